"""A panel key puts the focus in that panel, as k9s and lazygit do: `j`/`k` then move its
rows, Enter acts on the row and `o` opens its file, with no Tab to press first. `m` (the
panels on the whole screen) does the same; `z` (the panels hidden) gives the focus back to
the main pane."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.tui.app import make_app
from ctxscope.tui.commands import PANELS, panel_key
from ctxscope.tui.widgets.panel_tabs import PanelTabs
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


async def test_a_panel_key_puts_the_focus_in_its_panel(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        for index, name in enumerate(PANELS):
            await pilot.press(panel_key(index))
            await pilot.pause()
            panel = app.query_one(f"#{name}")
            focused = app.focused
            assert focused is panel or panel in getattr(focused, "ancestors", []), name


async def test_after_1_j_moves_the_files_rows_and_o_opens_the_file(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    opened: list[tuple[Path, int]] = []
    monkeypatch.setattr(app, "open_in_editor", lambda path, line=1: opened.append((path, line)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("1")
        table = app.query_one("#files-table", KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the files")
        await pilot.press("j", "o")
        await pilot.pause()
        key = table.keys[1]
        assert table.cursor_row == 1 and key.startswith("main:")
        assert opened == [(workspace / key.removeprefix("main:"), 1)]


async def test_m_puts_the_focus_in_the_panel_and_z_gives_it_back(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("m")
        await pilot.pause()
        legend = app.query_one("#map-main").query_one(KeyedTable)
        assert app.focused is legend
        await pilot.press("j")
        await pilot.pause()
        assert legend.cursor_row == 1
        await pilot.press("m")  # back: the panes show again, the focus in the main pane
        await pilot.pause()
        assert isinstance(app.focused, PromptView) and app.focused.id == "main-view"
        await pilot.press("7", "z")
        await pilot.pause()
        assert isinstance(app.focused, PromptView) and app.focused.id == "main-view"


async def test_arrows_on_the_tabs_keep_the_focus_on_the_tabs(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        tabs = app.query_one(PanelTabs)
        tabs.focus()
        await pilot.press("right", "right")
        await pilot.pause()
        assert app.focused is tabs and app.active_panel == PANELS[(PANELS.index("map") + 2) % 10]


async def test_the_map_grid_fills_the_panels_room_after_m(workspace: Path) -> None:
    """The grid was 4 rows whatever the room, leaving 20 empty rows below the legends once
    `m` gave the panels the screen: it takes the height the legends leave."""
    from ctxscope.tui.widgets.map_panel import ROWS, MapColumn, MapPanel

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        panel = app.query_one(MapPanel)
        column = app.query_one("#map-main", MapColumn)
        await wait_for(pilot, lambda: column.legend_lines > 10, what="the legend")
        assert column.rows == ROWS  # the panes take most of the screen: the least grid
        await pilot.press("m")

        def filled() -> bool:
            used = column.rows + 3 + max(c.legend_lines for c in app.query(MapColumn))
            return column.rows > ROWS and 0 <= panel.size.height - used <= 1

        await wait_for(pilot, filled, what="the grid filling the room")
        grid = column.query_one(".map-grid")
        assert grid.size.height == column.rows + 3
        assert len(grid._lines) == column.rows + 3  # type: ignore[attr-defined]  # all drawn
        await pilot.press("m")
        await wait_for(pilot, lambda: column.rows == ROWS, what="the grid back to its least")


async def test_the_panes_open_with_their_files_in_view_at_120_columns(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        for pane in ("main", "child"):
            view = app.query_one(f"#{pane}-view", PromptView)

            def in_view(view: PromptView = view) -> bool:
                start = view.line_of("file:AGENTS.md")
                top, height = round(view.scroll_y), view.scrollable_content_region.height
                return start is not None and height > 0 and top <= start < top + height - 2

            await wait_for(pilot, in_view, what=f"the {pane} pane's first file in view")
        main = app.query_one("#main-view", PromptView)
        assert main.scroll_y > 0  # the runtime sections before the files filled the screen
        await pilot.press("g")  # the top is a key away
        await pilot.pause()
        assert main.scroll_y == 0
