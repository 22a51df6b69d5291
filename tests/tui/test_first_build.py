"""The first build starts before the interface loads (`Builder.start`), and the app shows it
in its first frame instead of building again."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from ctxscope.api import Inspector
from ctxscope.tui.app import make_app
from ctxscope.tui.build import Build, Builder, BuildError
from ctxscope.tui.widgets import prompt_wrap
from ctxscope.tui.widgets.prompt_view import PromptView


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
