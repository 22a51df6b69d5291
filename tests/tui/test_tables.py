"""The panels' table: cursor kept by key across row replacements, keys, clicks, drawing."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


class TableApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield KeyedTable(("name", "size"), id="t")

    def on_keyed_table_highlighted(self, event: KeyedTable.Highlighted) -> None:
        self.events.append(("highlighted", event.key))

    def on_keyed_table_selected(self, event: KeyedTable.Selected) -> None:
        self.events.append(("selected", event.key))


def rows(*names: str) -> list[tuple[str, tuple[str, str]]]:
    return [(name, (name, f"{len(name) * 100:,}")) for name in names]


def drawn(table: KeyedTable, y: int) -> str:
    return "".join(segment.text for segment in table.render_line(y))


async def test_the_cursor_stays_on_its_key_when_rows_are_replaced() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(rows("AGENTS.md", "SOUL.md", "TOOLS.md"))
        table.focus()
        await pilot.press("down")
        await pilot.pause()
        assert table.current_key == "SOUL.md"
        app.events.clear()
        table.set_rows(rows("NEW.md", "AGENTS.md", "TOOLS.md", "SOUL.md"))
        await pilot.pause()
        assert (table.cursor_row, table.current_key) == (3, "SOUL.md")
        assert app.events == []  # the row under the cursor is the same one
        table.set_rows(rows("NEW.md", "AGENTS.md"))  # its row is gone: same place, clamped
        await pilot.pause()
        assert table.current_key == "AGENTS.md"
        assert app.events == [("highlighted", "AGENTS.md")]
        table.set_rows([])
        assert table.current_key is None and table.row_count == 0


async def test_keys_move_the_cursor_a_click_moves_it_and_enter_or_a_double_click_selects() -> None:
    app = TableApp()
    names = [f"file-{n:02}.md" for n in range(30)]
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(rows(*names))
        table.focus()
        await pilot.pause()
        assert table.size.height == 12  # header + rows, up to the screen
        await pilot.press("pagedown")
        await pilot.pause()
        assert table.cursor_row == 11  # a page is the rows on screen (the header stays)
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert table.current_key == "file-29.md"
        assert drawn(table, 11).split()[0] == "file-29.md"  # scrolled to keep it in view
        assert drawn(table, 0).split() == ["name", "size"]  # the header does not scroll
        await pilot.press("ctrl+home", "down", "enter")
        await pilot.pause()
        assert app.events[-2:] == [("highlighted", "file-01.md"), ("selected", "file-01.md")]
        await pilot.click(KeyedTable, offset=(2, 4))  # the fourth row under the header
        await pilot.pause()
        assert app.events[-2:] == [("selected", "file-01.md"), ("highlighted", "file-03.md")]
        await pilot.press("enter")  # a click moves the cursor; Enter acts, once
        await pilot.pause()
        assert app.events[-2:] == [("highlighted", "file-03.md"), ("selected", "file-03.md")]
        await pilot.double_click(KeyedTable, offset=(2, 5))  # a double click acts at once
        await pilot.pause()
        assert app.events[-2:] == [("highlighted", "file-04.md"), ("selected", "file-04.md")]
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert table.scroll_y > 0
        await pilot.click(KeyedTable, offset=(2, 0))  # the header selects nothing
        await pilot.pause()
        assert app.events[-1] == ("highlighted", "file-29.md") and table.cursor_row == 29


async def test_columns_fit_their_widest_cell_and_a_cell_stays_on_one_line() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(
            [("a", ("a-rather-long-name.md", "1")), ("b", (Text("two\nlines"), "22,000"))]
        )
        await pilot.pause()
        header, first, second = (drawn(table, y) for y in range(3))
        assert header.index("size") == first.index("1") == second.index("22,000")
        assert second.split()[:2] == ["two", "lines"]
        assert str(table.row("b")[0]) == "two lines" and table.index("b") == 1


async def test_the_cursor_row_is_styled_to_the_right_edge() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(KeyedTable)
        table.set_rows(rows("AGENTS.md", "SOUL.md"))
        table.focus()
        await wait_for(pilot, lambda: table.has_focus, what="focus")
        cursor = table.get_component_rich_style("keyed-table--cursor")
        line = list(table.render_line(1))
        assert sum(segment.cell_length for segment in line) == table.size.width
        assert line[-1].style is not None and line[-1].style.bgcolor == cursor.bgcolor
        await pilot.press("down")
        await pilot.pause()
        stripe = table.rich_style + table.get_component_rich_style("keyed-table--even-row")
        assert stripe.bgcolor != table.rich_style.bgcolor
        first = list(table.render_line(1))  # the first row, striped, without the cursor now
        assert first[-1].style is not None and first[-1].style.bgcolor == stripe.bgcolor
