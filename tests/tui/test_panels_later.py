"""The screen is composed with its first panel only; the other panels are added once the
first frame is drawn (the first frame waits for none of them). A panel asked for before
they are added is added at once, filled and focused when mounted."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import ContentSwitcher

from ctxscope.tui.app import FIRST_PANEL
from ctxscope.tui.commands import PANELS
from ctxscope.tui.widgets.panels import PANEL_WIDGETS
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import settled, started_app, wait_for


def test_every_panel_has_a_widget() -> None:
    assert tuple(PANEL_WIDGETS) == PANELS


async def test_the_first_frame_has_the_first_panel_only_then_all_are_added(
    workspace: Path,
) -> None:
    app = started_app(workspace)
    composed: list[str | None] = []
    async with app.run_test(size=(200, 50)) as pilot:
        stack = app.query_one("#panel-stack", ContentSwitcher)
        composed = [child.id for child in stack.children]
        await settled(pilot, app)
        children = {child.id: child for child in stack.children}
        assert set(children) == set(PANELS)
        shown = [name for name, child in children.items() if child.display]
        assert shown == [FIRST_PANEL] and stack.current == FIRST_PANEL
    assert composed == [FIRST_PANEL]


async def test_a_panel_key_right_after_the_first_frame_shows_it_filled_and_focused(
    workspace: Path,
) -> None:
    app = started_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.action_panel("files")  # the other panels may not be mounted yet
        assert app.panel_ready("files")
        assert app.query_one("#panel-stack", ContentSwitcher).current == "files"
        table = app.query_one("#files-table", KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the files")
        await pilot.pause()
        focused = app.focused
        assert focused is not None and app.query_one("#files") in focused.ancestors_with_self
