"""Keys in reach: `? Help` stays on the key bar at 120 and 80 columns, panes and tables move
with j/k/g/G/Space as pagers do, and help explains the marks the panes draw."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.tui.app import make_app
from ctxscope.tui.screens.help import HelpScreen
from ctxscope.tui.widgets.keybar import KeyBar
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_help_stays_on_the_key_bar(workspace: Path, size: tuple[int, int]) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.pause()
        bar = app.query_one(KeyBar)
        text = "".join(s.text for s in bar.render_line(0))
        assert "? Help" in text and "q Quit" in text, text
        app.query_one("#main", PromptPane).view.focus()
        await pilot.pause()
        text = "".join(s.text for s in bar.render_line(0))
        assert "? Help" in text, text


async def test_j_k_g_G_and_space_move_a_pane_and_a_table(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        view = app.query_one("#main", PromptPane).view
        view.focus()
        await pilot.pause()
        await pilot.press("g", "j", "j")  # from the top (it opens at the files)
        assert view.scroll_y == 2
        await pilot.press("k")
        assert view.scroll_y == 1
        await pilot.press("space")
        assert view.scroll_y > 2
        await pilot.press("G")
        assert view.scroll_y == view.max_scroll_y > 0
        await pilot.press("g")
        assert view.scroll_y == 0
        await pilot.press("1")
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0


async def test_help_explains_the_marks(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        text = app.screen.text  # type: ignore[attr-defined]
        for mark in ("~", "−", "◐", "▌", "⟦…⟧"):
            assert any(line.strip().startswith(mark) for line in text.splitlines()), mark
        assert "j / k" in text and "g / G" in text


def test_a_letter_and_its_capital_do_related_things() -> None:
    from ctxscope.tui.app import CtxscopeApp

    actions = {}
    for binding in CtxscopeApp.BINDINGS:
        for key in binding.key.split(","):  # type: ignore[union-attr]
            actions[key] = binding.action  # type: ignore[union-attr]
    pairs = {k: (actions[k], actions[k.upper()]) for k in actions if k.upper() in actions}
    pairs = {k: v for k, v in pairs.items() if k.islower()}
    assert pairs == {  # copy a section / the prompt; why this / why the subagent lacks
        "c": ("copy_section", "copy_prompt"),
        "w": ("why", "why_lost"),
    }, pairs


async def test_capital_w_explains_what_the_subagent_lacks_from_anywhere(workspace: Path) -> None:
    from ctxscope.tui.screens.why import WhyScreen

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        app.query_one("#main", PromptPane).view.focus()
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why")
        text = app.screen.text  # type: ignore[attr-defined]
        assert "USER.md" in text and "agents/coder/workspace/AGENTS.md" in text
