"""`t` restyles everything at once: the Files table's status words and sparklines take the
new theme's colours without waiting for a rebuild."""

from __future__ import annotations

from pathlib import Path

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


async def test_t_restyles_the_files_table_and_its_sparklines(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True, theme="ctxscope-dark")
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        app.rebuild()  # a second build: each file has a history (a sparkline)
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 2)
        await pilot.press("1")
        await pilot.pause()
        table = app.query_one("#files-table", KeyedTable)
        status, spark = 2, 6
        dark_ok = color(app, "ctx-budget-ok")
        row = table.row("main:AGENTS.md")
        assert row[status].plain == "injected" and row[spark].plain
        assert dark_ok in str(row[status].style) and dark_ok in str(row[spark].style)
        await pilot.press("t")
        await wait_for(pilot, lambda: app.theme != "ctxscope-dark", what="theme")
        await pilot.pause()
        light_ok = color(app, "ctx-budget-ok")
        assert light_ok != dark_ok
        row = table.row("main:AGENTS.md")
        assert light_ok in str(row[status].style), row[status].style
        assert light_ok in str(row[spark].style), row[spark].style
        assert app.build.number == 2  # no rebuild did it
