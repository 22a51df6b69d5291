"""A table of keyed rows under a header line (Line API) whose cursor keeps its row's key.

The panels' tables are small (a row per file, script, candidate or map category) and are
replaced whole after each rebuild. Each row is laid out once when it is set, with every
column as wide as its widest cell (a row set again unchanged keeps its line while the
widths stay: the Runs panel's rows, updated a few at a time); a frame only crops the
visible lines and styles the cursor and the stripes. A line is one cell high: a cell's own
line breaks show as spaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ctxscope.tui.safe import safe
from ctxscope.tui.widgets.frame_style import FrameStyled, Run, text_segments
from ctxscope.tui.widgets.scrollbars import LightScrollBars

PAD = 1
"""Cells of space either side of a cell's text."""


def _cell(value: Any) -> Text:
    """A cell's text, its control characters shown as stand-ins."""
    text = safe(value).copy() if isinstance(value, Text) else Text(safe(str(value)))
    if "\n" in text.plain:
        text = Text(" ").join(text.split("\n", allow_blank=True))
    text.no_wrap = True
    return text


def _signature(value: Any) -> Any:
    """A cell as compared between updates: a `Text` with its own style (which `Text`'s
    equality leaves out), so that the same words in a new theme's colours redraw."""
    return _Styled(value) if isinstance(value, Text) else value


class _Styled:
    """A `Text` that compares equal only with the same text, spans and base style."""

    __slots__ = ("text",)

    def __init__(self, text: Text) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Styled) and (
            self.text is other.text
            or (self.text == other.text and str(self.text.style) == str(other.text.style))
        )

    __hash__ = None  # type: ignore[assignment]


SWATCH = frozenset("█▉▊▋▌▍▎▏▐░▒▓■▀▄")
"""Block glyphs: a cell made of them is a colour swatch (the Map legend's)."""


def _under_cursor(text: str, style: Style | None, cursor: Style) -> Style:
    """A segment's style on the cursor row: the cursor's colours, but a swatch keeps its own
    colour (on the cursor's background), so the selected category still shows which it is."""
    if not style:
        return cursor
    if text.strip() and SWATCH.issuperset(text.strip()) and style.color is not None:
        return cursor + style
    return style + cursor


class _RowMessage(Message):
    """A message about the row `key` of `table`."""

    def __init__(self, table: KeyedTable, key: str) -> None:
        super().__init__()
        self.table, self.key = table, key

    @property
    def control(self) -> KeyedTable:
        return self.table


class KeyedTable(FrameStyled, LightScrollBars, ScrollView, can_focus=True):
    """Rows of cells keyed by a string. `set_rows()` replaces them and puts the cursor back
    on the key it was on. Posts `Highlighted` when the row under the cursor changes and
    `Selected` on Enter or a double click (a click moves the cursor)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "keyed-table--header",
        "keyed-table--even-row",
        "keyed-table--cursor",
    }

    DEFAULT_CSS = """
    KeyedTable {
        height: auto;
        max-height: 100%;
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .keyed-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .keyed-table--header { background-tint: $foreground 5%; }
        }
        &:dark > .keyed-table--even-row { background: $surface-darken-1 40%; }
        & > .keyed-table--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .keyed-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .keyed-table--even-row { background: $surface-lighten-1 50%; }
        & > .keyed-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("g", "cursor_to(0)", "First row", show=False),
        Binding("G", "cursor_to(-1)", "Last row", show=False),
        Binding("space", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("ctrl+home", "cursor_to(0)", "First row", show=False),
        Binding("ctrl+end", "cursor_to(-1)", "Last row", show=False),
        Binding("home", "sideways(0)", "Left end", show=False),
        Binding("end", "sideways(1)", "Right end", show=False),
        Binding("enter", "select", "Select", show=False),
    ]

    class Highlighted(_RowMessage):
        """The row under the cursor is now `key`."""

    class Selected(_RowMessage):
        """The row `key` was chosen (Enter or a double click)."""

    def __init__(self, columns: Sequence[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns = tuple(columns)
        self._keys: list[str] = []
        self._cells: list[tuple[Text, ...]] = []
        self._shown: list[tuple[str, tuple[Any, ...]]] = []
        """The rows last set, to leave the table alone when a rebuild changes none."""
        self._index: dict[str, int] = {}
        self._header: Run = ([], 0)
        self._runs: list[Run] = []
        self._widths: list[int] = []
        self.cursor_row = 0

    # -- rows ----------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def row(self, key: str) -> tuple[Text, ...]:
        """The cells of row `key` (KeyError when there is none)."""
        return self._cells[self._index[key]]

    def plain_rows(self) -> list[str]:
        """Each row as plain text, its cells two spaces apart (what a copy or a test reads)."""
        return ["  ".join(cell.plain for cell in cells) for cells in self._cells]

    def index(self, key: str) -> int:
        """The position of row `key` (KeyError when there is none)."""
        return self._index[key]

    @property
    def current_key(self) -> str | None:
        """The key of the row under the cursor (None when there are no rows)."""
        return self._keys[self.cursor_row] if self._keys else None

    def set_rows(self, rows: Iterable[tuple[str, Sequence[Any]]]) -> None:
        """Replace the rows; the cursor stays on its key when that row is still there, else
        on the same position."""
        given = [(key, tuple(cells)) for key, cells in rows]
        wanted = [(key, tuple(_signature(c) for c in cells)) for key, cells in given]
        if wanted == self._shown:
            return  # nothing to redraw (colours compared too: a theme switch restyles)
        before = self.current_key
        # a row set again as it was keeps its cells and, where the columns keep their
        # widths, its laid-out line (a long table updated a few rows at a time)
        kept = {
            key: (shown, cells, run)
            for (key, shown), cells, run in zip(self._shown, self._cells, self._runs, strict=False)
        }
        self._shown = wanted
        self._keys = [key for key, _ in wanted]
        self._index = {key: n for n, key in enumerate(self._keys)}
        cells_of: list[tuple[Text, ...]] = []
        laid: dict[int, Run] = {}
        for (key, shown), (_, cells) in zip(wanted, given, strict=True):
            old = kept.get(key)
            if old is not None and old[0] == shown:
                cells_of.append(old[1])
                laid[id(old[1])] = old[2]
            else:
                cells_of.append(tuple(_cell(c) for c in cells))
        self._cells = cells_of
        self._layout(laid)
        at = self._index.get(before, self.cursor_row) if before is not None else 0
        self._put_cursor(at, before)

    def _layout(self, laid: dict[int, Run] | None = None) -> None:
        """Each row's line; `laid`: lines already made for these widths, by their cells'
        `id` (used where the widths stay)."""
        console = self.app.console
        widths = [cell_len(name) for name in self.columns]
        for cells in self._cells:
            for n, cell in enumerate(cells[: len(widths)]):
                widths[n] = max(widths[n], cell.cell_len)
        if widths != self._widths:
            laid = None
        self._widths = widths
        total = sum(w + 2 * PAD for w in widths)
        plain = Style.null()

        def run(cells: Sequence[Text]) -> Run:
            segments: list[Segment] = []
            at = 0
            for width, cell in zip(widths, cells, strict=False):
                segments.append(Segment(" " * PAD, plain))
                segments += text_segments(cell, console)
                segments.append(Segment(" " * (width - cell.cell_len + PAD), plain))
                at += width + 2 * PAD
            return segments, at

        self._header = run([Text(name) for name in self.columns])
        if laid:
            self._runs = [laid.get(id(cells)) or run(cells) for cells in self._cells]
        else:
            self._runs = [run(cells) for cells in self._cells]
        self.virtual_size = Size(total, len(self._runs) + 1)

    # -- cursor --------------------------------------------------------------------------
    def move_cursor(self, row: int, *, scroll: bool = True) -> None:
        """Put the cursor on `row` (clamped); `scroll`: bring it into view."""
        if not self._keys:
            return
        self._put_cursor(row, self.current_key)
        if scroll:
            self._show_cursor()

    def _put_cursor(self, row: int, before: str | None) -> None:
        """The cursor on `row` (clamped); `Highlighted` when the key under it is no longer
        `before`."""
        self.cursor_row = max(0, min(row, len(self._keys) - 1))
        self.refresh()
        if self.current_key is not None and self.current_key != before:
            self.post_message(self.Highlighted(self, self.current_key))

    @property
    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _show_cursor(self) -> None:
        top = round(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + self._visible_rows:
            y = self.cursor_row - self._visible_rows + 1
            self.scroll_to(y=y, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * self._visible_rows)

    def action_cursor_to(self, row: int) -> None:
        self.move_cursor(row if row >= 0 else len(self._keys) - 1)

    def action_sideways(self, to_end: int) -> None:
        self.scroll_to(x=self.max_scroll_x if to_end else 0, animate=False)

    def action_select(self) -> None:
        if self.current_key is not None:
            self.post_message(self.Selected(self, self.current_key))

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on its row (and the focus in the table); Enter then acts
        on it once. A double click acts at once."""
        row = event.y - self.gutter.top + round(self.scroll_y) - 1
        if event.y - self.gutter.top >= 1 and 0 <= row < len(self._keys):
            self.move_cursor(row, scroll=False)
            if event.chain >= 2:
                self.action_select()

    # -- drawing -------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.base_style
        scroll_x = round(self.scroll_x)
        if y == 0:
            style = base + self.get_component_rich_style("keyed-table--header")
            segments, length = self._header
        else:
            row = round(self.scroll_y) + y - 1
            if row >= len(self._runs):
                return Strip.blank(width, base)
            segments, length = self._runs[row]
            style = base
            if row % 2 == 0:
                style += self.get_component_rich_style("keyed-table--even-row")
            if row == self.cursor_row:
                cursor = self.get_component_rich_style("keyed-table--cursor")
                segments = [Segment(t, _under_cursor(t, s, cursor)) for t, s, _ in segments]
                segments.append(Segment(" " * max(0, width + scroll_x - length), cursor))
        # A row's style runs on to the right edge, past the last column.
        line = Strip(segments).apply_style(style)
        return line.crop_extend(scroll_x, scroll_x + width, style)
