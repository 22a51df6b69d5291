"""The app's bars as pure functions (`ctxscope.tui.status`), one state at a time, with real
builds of the sample workspace and no terminal."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from ctxscope.api import Inspector
from ctxscope.core.model import Diagnostic
from ctxscope.scripts import TrustStore
from ctxscope.tui.build import Build, Builder
from ctxscope.tui.status import (
    Exact,
    child_alarm,
    child_extra,
    child_notice,
    delta_text,
    exact_notice,
    lost_text,
    status_line,
    thread_header,
    top_line,
    unknown_mark,
)
from tests.conftest import SAMPLE


@pytest.fixture
def builder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Builder:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    ins = Inspector(ws, trust_store=TrustStore(tmp_path / "trust.json"))
    return Builder(ins, frozen=True)


def built(builder: Builder) -> Build:
    build = builder.build()
    assert build is not None
    return build


def test_the_status_line_in_each_state(builder: Builder) -> None:
    build = dataclasses.replace(built(builder), check_pending=False)
    assert status_line(build=None, error=None) == status_line(build=None, error=None)
    assert status_line(build=None, error=None).text == "building…"
    loading = Exact("OpenClaw 2026.9.6", ready=None)
    assert status_line(build=None, error=None, exact=loading).text == (
        "loading OpenClaw 2026.9.6 for exact mode (takes a few seconds)…"
    )
    failed = Exact("OpenClaw 2026.9.6", failure="no node", ready=None)
    assert status_line(build=None, error=None, exact=failed).text == "building…"

    broken = Diagnostic("error", "bad JSON", "openclaw.json", 3)
    line = status_line(build=build, error=broken)
    assert line.error and line.text.startswith("✗ ") and "openclaw.json" in line.text
    assert line.text.endswith("— showing the last good build")

    quiet = status_line(build=build, error=None, frozen=True)
    assert not quiet.error
    assert quiet.text.startswith(f"build #{build.number}  ·  ")
    assert " ms" not in quiet.text
    assert "check finding(s) (7: Problems)" in quiet.text
    timed = status_line(build=dataclasses.replace(build, duration_ms=12.4), error=None)
    assert f"build #{build.number}  ·  12 ms  ·  " in timed.text

    checking = dataclasses.replace(build, check_pending=True)
    assert ", checking the Rye space… (7: Problems)" in status_line(build=checking, error=None).text

    # The sample's scripts are untrusted: counted, with the key that trusts them.
    spawn = build.report.spawn
    assert spawn is not None and spawn.scripts.results and not spawn.trusted
    untrusted = f"{len(spawn.scripts.results)} script(s) not run: untrusted (ctrl+t)"
    assert quiet.text.endswith(untrusted)
    running = status_line(build=build, error=None, scripts_running=True).text
    assert running.endswith("⟳ scripts running…") and untrusted not in running

    polling = Diagnostic("warning", "inotify limit", code="watch")
    stopped = Diagnostic("error", "cannot watch", code="watch")
    assert (
        "⚠ polling for changes" in status_line(build=build, error=None, watch_problem=polling).text
    )
    assert (
        "✗ not watching: r rebuilds"
        in status_line(build=build, error=None, watch_problem=stopped).text
    )
    assert (
        "⚠ watching bounded (7: Problems)"
        in status_line(build=build, error=None, watch_bounded=True).text
    )
    assert "watching bounded" not in quiet.text and "polling" not in quiet.text


def test_the_status_line_warns_when_the_build_has_errors(builder: Builder) -> None:
    build = built(builder)
    assert not status_line(build=build, error=None).warn
    bad = Diagnostic("error", "broken", "x.md")
    report = dataclasses.replace(build.report, diagnostics=[*build.report.diagnostics, bad])
    worse = dataclasses.replace(build, report=report)
    line = status_line(build=worse, error=None)
    errors = sum(d.severity == "error" for d in worse.diagnostics)
    assert line.warn and f"{errors} error(s)" in line.text


def test_the_top_line_in_each_view(builder: Builder) -> None:
    build = built(builder)
    ins = builder.inspector
    sc, runtime = build.report.scenario, build.inputs.runtime
    common = {"scenario": sc, "runtime": runtime, "workspace": ins.workspace}
    plain = top_line(build=build, exact=None, **common)
    assert plain.startswith("main → coder  ·  ")
    assert plain.endswith(f"  ·  {ins.workspace}")
    assert "exact mode" not in plain
    linked = top_line(build=build, exact=None, diff=True, linked=True, **common)
    assert linked == "[diff linked] " + plain
    # The Rye view has no diff or link: the panes are not two OpenClaw sessions.
    rye = top_line(build=build, exact=None, diff=True, linked=True, rye_pane=True, **common)
    assert rye == "[rye thread] " + plain
    # Before a build: the scenario's agents as asked.
    assert top_line(build=None, exact=None, **common).startswith(
        f"{sc.requester} → {sc.target_agent}  ·  "
    )
    on = Exact("OpenClaw 2026.9.6", ready=True)
    loading = Exact("OpenClaw 2026.9.6", ready=None)
    broken = Exact("OpenClaw 2026.9.6", failure="helper died", ready=True)
    assert "  ·  exact mode on  ·  " in top_line(build=build, exact=on, **common)
    assert "  ·  exact mode loading  ·  " in top_line(build=build, exact=loading, **common)
    assert "  ·  exact mode unavailable  ·  " in top_line(build=build, exact=broken, **common)
    assert "  ·  exact unavailable: no Node ≥ 22 found  ·  " in top_line(
        build=build, exact=None, exact_unavailable="no Node ≥ 22 found", **common
    )


def test_the_top_line_names_an_override_unknown_agents_and_the_directive(
    builder: Builder,
) -> None:
    builder.set_edits({"target": "ghost", "directive": "project/deploy"})
    build = built(builder)
    ins = builder.inspector
    line = top_line(
        scenario=build.report.scenario,
        runtime=build.inputs.runtime,
        build=build,
        workspace=ins.workspace,
        exact=None,
    )
    spawn = build.report.spawn
    assert spawn is not None
    assert line.startswith(f"main → {spawn.target_agent_id}")
    if spawn.target_agent_id == "ghost":
        assert "ghost (unknown)" in line
    assert "  ·  project/deploy  ·  " in line


def test_the_delta_strip_and_the_lost_line(builder: Builder) -> None:
    first = built(builder)
    again = built(builder)
    assert delta_text(first, again) == f"Δ build #{again.number}: no change in either prompt"
    soul = builder.inspector.workspace / "SOUL.md"
    soul.write_text(soul.read_text() + "\nOne more rule.\n")
    edited = built(builder)
    text = delta_text(again, edited)
    assert text.startswith(f"Δ build #{edited.number}: SOUL.md +16 ch")
    assert text.endswith("  │  child unchanged")
    assert first.child is not None and first.lost
    lost = lost_text(first)
    assert lost.startswith("Lost in the subagent (W: why, and remedies): persona ≈")
    assert "SOUL.md" in lost
    assert lost_text(dataclasses.replace(first, report=_no_child(first))) == ""


def _no_child(build: Build):  # type: ignore[no-untyped-def]
    report = dataclasses.replace(build.report, child=None, spawn=None)
    return report


def test_the_exact_notice(builder: Builder) -> None:
    ins = builder.inspector
    assert exact_notice(ins) is None  # off
    ins.exact_on = True
    ins.exact_problem = Diagnostic("warning", "no OpenClaw found; showing ctxscope's model")
    assert exact_notice(ins) == (
        "exact unavailable: no OpenClaw found; showing ctxscope's model",
        True,
    )
    assert Exact.of(ins) is None


def test_the_subagent_panes_marks(builder: Builder) -> None:
    build = built(builder)
    assert child_notice(build) == "" and child_extra(build) == "" and child_alarm(build) == ""
    assert child_notice(build, scripts_running=True).startswith("⟳ context scripts running…")
    builder.set_edits({"target": "ghost"})
    ghost = built(builder)
    spawn = ghost.report.spawn
    assert spawn is not None and not spawn.policy.allowed
    assert child_notice(ghost).startswith(f"✗ spawn forbidden: {spawn.policy.error}.")
    assert child_alarm(ghost).startswith("✗ spawn forbidden")
    assert unknown_mark(ghost, "ghost") == "? unknown agent"
    assert unknown_mark(ghost, "main") == ""
    lone = dataclasses.replace(build, report=_no_child(build))
    assert child_extra(lone) == "no subagent" and child_alarm(lone) == ""


def test_the_rye_threads_header(builder: Builder) -> None:
    thread = built(builder).report.thread
    assert thread is not None
    head = thread_header(thread)
    assert head.directive == thread.directive
    assert head.line.startswith(f"{thread.profile.name} · ")
    assert f"system {len(thread.system_message):,} ch" in head.line
    assert head.line.endswith(f"{len(thread.palette.registered)} tools")
    assert head.used >= thread.palette.used_tokens > 0
    assert head.alarm == ("⛔ not started" if thread.refused else "")


def test_the_top_line_fits_its_width_and_keeps_the_workspace(builder: Builder) -> None:
    """At 120 columns the workspace's path was cut off the end of the top line: it is kept,
    with `~` for the home folder and an ellipsis in the middle, and the line fits."""
    build = built(builder)
    sc, runtime = build.report.scenario, build.inputs.runtime
    sc = dataclasses.replace(sc, directive="project/deploy/deploy_staging")
    home = "/home/someone"
    workspace = Path(home) / "work" / "clients" / "acme-corporation" / "agents" / "workspace"
    common = {"scenario": sc, "runtime": runtime, "workspace": workspace, "home": home}
    whole = top_line(build=build, exact=None, linked=True, **common)
    assert whole.endswith(f"  ·  {workspace}")  # no width: all of it
    for width in (200, 118, 100, 78):
        line = top_line(build=build, exact=None, linked=True, width=width, **common)
        assert len(line) <= width, (width, line)
        tail = line.rsplit("  ·  ", 1)[1]
        assert tail.endswith("workspace") and len(tail) >= 12, line
        if len(whole) > width:
            assert tail.startswith("~"), line


def test_a_runtime_placeholders_heading_says_runtime_once(builder: Builder) -> None:
    from ctxscope.tui.render import session_blocks

    blocks = session_blocks(built(builder).report.requester)
    folded = [b for b in blocks if b.placeholder]
    assert folded
    for block in folded:
        assert block.metrics.endswith(" · runtime placeholder"), block.metrics
        assert block.metrics.count("runtime") == 1, block.metrics


def test_the_lost_line_fits_two_lines_and_says_what_it_leaves_out(builder: Builder) -> None:
    """At 80 and 120 columns the lost line dropped its section list with no `…`, or ended
    mid-list: it fits two lines, each group ends with its bracket, a group cut short ends
    `… N more`; its files come in the main session's load order."""
    build = built(builder)
    whole = lost_text(build)
    assert "(W: why, and remedies)" in whole and "\n" not in whole
    for width in (78, 118):
        text = lost_text(build, width)
        lines = text.split("\n")
        assert len(lines) <= 2 and all(len(line) <= width for line in lines), text
        assert text.endswith(")") and "9 sections ≈" in text, (
            text
        )  # the sample as OpenClaw sends it
        assert "more)" in text, text  # something left out, and said so
    assert lost_text(build, 400) == whole
    loaded = [f.name for f in build.report.requester.files]
    files = whole.split(" files ≈")[1].split("(")[1].split(")")[0].split(", ")
    assert files == sorted(files, key=loaded.index), files
