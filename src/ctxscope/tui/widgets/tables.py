"""A DataTable that keeps its cursor row (by key) when its rows are replaced."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import DataTable


class KeyedTable(DataTable[Any]):
    """`set_rows()` replaces the rows and puts the cursor back on the same key."""

    DEFAULT_CSS = """
    KeyedTable { height: auto; max-height: 100%; }
    """

    def __init__(self, columns: Sequence[str], *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._columns = list(columns)
        self._shown: list[tuple[str, tuple[Any, ...]]] = []
        """The rows last set, to leave the table alone when a rebuild changes none."""

    async def _on_idle(self, event: events.Idle) -> None:
        # DataTable measures new rows when idle but keeps the header line it cached before,
        # so a header drawn between `add_row` and the measuring stays too narrow. Drop the
        # line caches when a re-measure changed a column's width (Textual is pinned, so the
        # private names are stable); otherwise the frame already drawn is right.
        remeasure = self._require_update_dimensions or bool(self._updated_cells)
        widths = [c.content_width for c in self.columns.values()]
        await super()._on_idle(event)
        if remeasure and widths != [c.content_width for c in self.columns.values()]:
            self._clear_caches()
            self.refresh()

    def on_mount(self) -> None:
        self.add_columns(*self._columns)

    @property
    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:
            return None
        return None if key.value is None else str(key.value)

    def set_rows(self, rows: Iterable[tuple[str, Sequence[Any]]]) -> None:
        wanted = [(key, tuple(cells)) for key, cells in rows]
        if wanted == self._shown and self.row_count == len(wanted):
            return  # nothing to redraw
        self._shown = wanted
        keep = self.current_key
        scroll = self.scroll_y
        self.clear()
        for key, cells in wanted:
            self.add_row(*(Text(c) if isinstance(c, str) else c for c in cells), key=key)
        if keep is not None:
            with contextlib.suppress(Exception):
                self.move_cursor(row=self.get_row_index(keep), scroll=False)
        self.scroll_to(y=scroll, animate=False, immediate=True)
