"""The first build starts before the interface loads (`Builder.start`), and the app shows it
in its first frame instead of building again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rich.text import Text

from ctxscope.api import Inspector
from ctxscope.tui.app import make_app
from ctxscope.tui.build import Build, Builder, BuildError
from ctxscope.tui.status import status_line
from ctxscope.tui.widgets import prompt_wrap
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.one_line import OneLine
from ctxscope.tui.widgets.prompt_view import PromptView
from tests.tui.conftest import settled, started_app


def finished(builder: Builder) -> None:
    assert builder._early is not None
    builder._early[0].result(timeout=30)


def test_a_started_build_is_taken_once_then_builds_are_made_again(workspace: Path) -> None:
    builder = Builder(Inspector(workspace))
    assert builder.started_build() is None  # nothing was started
    builder.start()
    finished(builder)
    first = builder.started_build()
    assert isinstance(first, Build) and first.number == 1
    assert builder.started_build() is None  # taken
    (workspace / "SOUL.md").write_text("# Soul\n\nA new line the next build must read.\n")
    second = builder.build()
    assert second is not None and second.number == 2
    assert "A new line the next build must read." in second.report.requester.system_prompt


def test_a_started_build_made_for_other_scenario_edits_is_not_used(workspace: Path) -> None:
    builder = Builder(Inspector(workspace))
    builder.start()
    finished(builder)
    builder.set_edits({"requester": "steward"})
    assert builder.started_build() is None
    build = builder.build()
    assert build is not None and build.report.scenario.requester == "steward"


def test_the_next_build_waits_for_a_started_one_and_returns_it(workspace: Path) -> None:
    builder = Builder(Inspector(workspace))
    builder.start()
    build = builder.build()  # may run while the started build is still under way
    assert build is not None and build.number == 1
    assert builder.build().number == 2  # type: ignore[union-attr]


def test_a_started_build_that_fails_fails_the_next_build(workspace: Path) -> None:
    builder = Builder(Inspector(workspace))
    (workspace / "openclaw.json").write_text("{ not json")
    builder.start()
    finished_or_failed = builder._early
    assert finished_or_failed is not None
    with pytest.raises(BuildError):
        finished_or_failed[0].result(timeout=30)
    assert builder.started_build() is None  # a failure is left for build() to report
    with pytest.raises(BuildError) as caught:
        builder.build()
    assert "openclaw.json" in str(caught.value)


async def test_the_app_shows_a_started_build_in_its_first_frame(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder = Builder(Inspector(workspace))
    builder.start()
    finished(builder)
    widths: set[int] = set()
    real_wrap = prompt_wrap.wrap

    def wrap(text: Text, width: int, console: object) -> list[prompt_wrap.Run]:
        widths.add(width)
        return real_wrap(text, width, console)

    monkeypatch.setattr(prompt_wrap, "wrap", wrap)
    app = make_app(builder=builder, watch=False)
    async with app.run_test(size=(200, 50)) as pilot:
        # On mount, before any build thread ran: the started build is the one shown.
        assert app.build is not None and app.build.number == 1
        assert app._builds._thread is None
        await pilot.pause()
        main = app.query_one("#main-view", PromptView)
        assert main._lines and main.virtual_size.height == len(main._lines)
        # The panes were given the build before they had a size: their text is laid out
        # once they have one, at that width only.
        assert widths == {main._text_width}


def test_a_started_build_leaves_the_rye_side_for_the_build_after_it(workspace: Path) -> None:
    builder = Builder(Inspector(workspace))
    builder.start()
    finished(builder)
    first = builder.started_build()
    assert first is not None and first.report.scenario.directive  # the sample names one
    assert first.rye_pending and first.check_pending
    assert first.report.thread is None and first.directives == []
    assert "building Rye…" in status_line(build=first, error=None).text
    after = builder.build()
    assert after is not None and not after.rye_pending
    assert after.report.thread is not None
    assert after.report.thread.directive == first.report.scenario.directive
    assert after.directives and "building Rye" not in status_line(build=after, error=None).text
    # The OpenClaw side is the same build either way.
    assert after.report.requester.system_prompt == first.report.requester.system_prompt


def test_the_first_build_does_not_load_the_rye_engine(workspace: Path) -> None:
    """What the first frame waits for: the CLI's first build in a fresh process imports none
    of the Rye engine; the build after it does."""
    probe = (
        "import sys\n"
        "from ctxscope.api import Inspector\n"
        "from ctxscope.tui.build import Builder\n"
        f"b = Builder(Inspector({str(workspace)!r}))\n"
        "b.start()\n"
        "first = b.build()\n"
        "print(first.rye_pending, 'ctxscope.runtimes.rye.build' in sys.modules)\n"
        "b.build()\n"
        "print('ctxscope.runtimes.rye.build' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    ).stdout.split("\n")
    assert out[:2] == ["True False", "True"]


async def test_the_app_adds_the_rye_side_once_the_first_frame_is_drawn(workspace: Path) -> None:
    app = started_app(workspace)
    finished(app.builder)
    async with app.run_test(size=(200, 50)) as pilot:
        assert app.build is not None and app.build.rye_pending
        assert "building Rye…" in str(app.query_one("#statusbar", OneLine).render())
        await settled(pilot, app)
        build = app.build
        assert build.number == 2 and not build.rye_pending and build.report.thread is not None
        # Adding the Rye side is not an edit: no delta strip, no section marked as changed.
        assert not app.query_one("#deltabar", OneLine).display
        assert not any(app.ctl.changed_sections.values())
        assert all(len(sizes) == 1 for sizes in app.ctl.file_history.values())
        await app.action_panel("chain")
        await pilot.pause()
        labels = [str(node.label) for node in app.query_one(ChainTree).root.children]
        assert any(label.startswith(build.report.thread.directive) for label in labels)
