"""The change feed: what a watcher reported decides what a rebuild may trust unchecked."""

from __future__ import annotations

import shutil
from pathlib import Path

from ctxscope.core.changefeed import KEPT, ChangeFeed
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import build_thread
from ctxscope.runtimes.rye.toolsource import Remembered, Serial

SAMPLE = Path(__file__).resolve().parents[1] / "sample_workspace"


def test_quiet_only_under_a_watched_folder_with_no_change_reported() -> None:
    feed = ChangeFeed()
    assert not feed.quiet("/w/.ai/tools", feed.now())  # no watcher: nothing is trusted
    feed.watching(["/w"])
    since = feed.now()
    assert feed.quiet("/w/.ai/tools", since)
    assert not feed.quiet("/elsewhere/tools", since)  # not watched
    feed.changed(["/w/AGENTS.md"])
    assert feed.quiet("/w/.ai/tools", since)  # a change elsewhere
    feed.changed(["/w/.ai/tools/x/t.py"])
    assert not feed.quiet("/w/.ai/tools", since)  # a change under it
    later = feed.now()
    assert feed.quiet("/w/.ai/tools", later)
    feed.changed(["/w/.ai"])  # a folder above it (renamed, removed)
    assert not feed.quiet("/w/.ai/tools", later)
    later = feed.now()
    feed.changed(None)  # unknown
    assert not feed.quiet("/w/.ai/tools", later)
    later = feed.now()
    feed.stopped()
    assert not feed.quiet("/w/.ai/tools", later)


def test_a_result_older_than_the_kept_batches_is_checked_again() -> None:
    feed = ChangeFeed()
    feed.watching(["/w"])
    since = feed.now()
    for i in range(KEPT + 1):
        feed.changed([f"/w/other{i}.md"])
    assert not feed.quiet("/w/.ai/tools", since)
    assert feed.quiet("/w/.ai/tools", feed.now())


def test_the_palette_trusts_a_quiet_tools_folder_and_rereads_a_reported_one(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE / ".ai", ws / ".ai")
    tool = ws / ".ai" / "tools" / "project" / "deploy" / "kubectl.py"
    directive, inputs = "project/deploy/deploy_staging", {"env": "staging"}
    snap, source = Snapshot(), Remembered(Serial())  # as the app has them
    snap.changes.watching([ws])

    def description() -> str | None:
        report = build_thread(ws, directive, inputs=inputs, snapshot=snap, tools=source)
        tools = report.palette.registered + report.palette.skipped  # granted, fits or not
        entry = next((t for t in tools if t.path == str(tool)), None)
        assert entry is not None, "the sample's deploy directive is granted kubectl"
        return entry.description

    first = description()
    assert first is not None and "Apply manifests" in first
    # An edit the watcher did not report: trusted, not even stat'ed.
    tool.write_text(tool.read_text().replace("Apply manifests", "Nightly dump"))
    assert description() == first
    # Reported: read again.
    snap.changes.changed([str(tool)])
    assert "Nightly dump" in (description() or "")
    # Without a watcher every build checks every file.
    snap.changes.stopped()
    tool.write_text(tool.read_text().replace("Nightly dump", "Weekly archive"))
    assert "Weekly archive" in (description() or "")


def test_the_space_check_is_kept_until_a_change_under_a_rye_space(tmp_path: Path) -> None:
    from ctxscope.runtimes.rye import check_space

    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    directive = ws / ".ai" / "directives" / "project" / "deploy" / "deploy_staging.md"
    snap = Snapshot()

    def errors() -> list[str]:
        return [d.message for d in check_space(ws, snapshot=snap) if d.severity == "error"]

    clean = errors()
    broken = directive.read_text().replace("</directive>", "")
    snap.changes.watching([ws])
    assert errors() == clean
    # An edit outside the Rye spaces, reported: the earlier check stands (it is not redone).
    directive.write_text(broken)
    snap.changes.changed([str(ws / "AGENTS.md")])
    assert errors() == clean
    # The directive's change reported: checked again, the broken directive is found.
    snap.changes.changed([str(directive)])
    assert len(errors()) > len(clean)
    # Without a watcher every check is made afresh: the repair is seen unreported.
    snap.changes.stopped()
    shutil.copy(
        SAMPLE / ".ai" / "directives" / "project" / "deploy" / "deploy_staging.md", directive
    )
    assert errors() == clean


def test_a_cancelled_space_check_gives_up_and_keeps_nothing(tmp_path: Path) -> None:
    from ctxscope.runtimes.rye.space import check_space_cancellable, kept_space_check

    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    snap = Snapshot()
    snap.changes.watching([ws])
    asked = [0]

    def after_one() -> bool:  # a newer edit arrives while the first directive is built
        asked[0] += 1
        return asked[0] > 1

    assert check_space_cancellable(ws, snapshot=snap, cancelled=after_one) is None
    assert kept_space_check(ws, None, snap) is None
    done = check_space_cancellable(ws, snapshot=snap)
    assert done is not None and kept_space_check(ws, None, snap) == done
