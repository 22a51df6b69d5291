"""Map panel: where each session's tokens go, main and subagent side by side.

Per session: a one-line bar of the context window (used / free), a grid coloured by category
(each workspace file, the tool list, skills, subagent context, the first user message, other
runtime text) in which a cell holds the same number of tokens on both sides, so the smaller
session leaves cells empty, and a legend with tokens and shares. The subagent's legend ends
with what the main session has and it does not get (`lost`). Enter on a legend row shows that
category's section in its pane.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message

from ctxscope.core.contextmap import (
    EMPTY_COLOUR,
    MapCategory,
    colour_vars,
    context_map,
    lost_labels,
    recorded_map,
)
from ctxscope.core.contextmap import grid as cell_grid
from ctxscope.core.model import Session
from ctxscope.tui.recorded import Beside, Figure
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.tables import KeyedTable
from ctxscope.tui.widgets.text_lines import TextLines

ROWS = 4
"""The grid's rows at least; the grid takes the room the legends leave (`m`: up to
`MOST_ROWS`)."""
MOST_ROWS = 24


def category_colours(app: Any, *maps: list[MapCategory]) -> dict[str, str]:
    """A colour per category key of the maps given, from the theme (a file keeps its colour
    in every map)."""
    return {key: color(app, var) for key, var in colour_vars(*maps).items()}


class MapColumn(Vertical):
    """One session's map: title, window bar, cell grid and legend."""

    class Chosen(Message):
        """A legend row was chosen: show `section` in the `side` pane."""

        def __init__(self, side: str, section: str) -> None:
            super().__init__()
            self.side, self.section = side, section

    # The grid is the title, the window bar, the cell size and the rows of cells: always
    # that high, so a redraw (a legend move, an edit) never lays the screen out.
    DEFAULT_CSS = f"""
    MapColumn {{ width: 1fr; height: auto; padding: 0 1; }}
    MapColumn .map-grid {{ height: {ROWS + 3}; }}
    """

    def __init__(self, side: str) -> None:
        super().__init__(id=f"map-{side}")
        self.side = side
        self.categories: list[MapCategory] = []
        self._shown: tuple[Any, ...] | None = None
        self.recorded: list[Figure] = []
        self._drawn_width = -1
        """The width the grid was last drawn for."""
        self.rows = ROWS
        """The grid's rows of cells (`MapPanel` sets them to the room it has)."""

    def compose(self) -> ComposeResult:
        yield TextLines(classes="map-grid")
        yield KeyedTable(
            ("", "category", "≈tok", "of used", "of window"), id=f"map-{self.side}-legend"
        )

    def on_resize(self) -> None:
        if self.size.width != self._drawn_width:  # the grid and the bar follow the width
            self._redraw()

    def show(
        self,
        session: Session | None,
        cats: list[MapCategory],
        title: str,
        scale: int = 0,
        lost: list[str] | None = None,
        colours: dict[str, str] | None = None,
        recorded: list[Figure] | None = None,
    ) -> None:
        """`cats`: the session's `context_map`; `scale`: the tokens the full grid stands for
        (the larger session's, so both sides use one cell size); `lost`: categories the other
        session has and this one lacks; `colours`: each category's colour, shared by both
        sessions' maps (else worked out for this map alone); `recorded`: a recorded run's
        figures beside the prediction's, listed under the legend."""
        lost = lost or []
        self.recorded = recorded or []
        self._shown = (session, cats, title, scale, lost, colours, recorded)
        self.categories = cats if session is not None else []
        used = [c for c in self.categories if c.kind != "free"]
        total = sum(c.tokens for c in used)
        colours = colours or category_colours(self.app, self.categories)
        # The legend does not depend on the width: it is set at once, so the layout that
        # shows the panel already holds it; the grid follows once the column has a width.
        legend = self.query_one(KeyedTable)
        rows = self._legend_rows(session, colours, total, lost) if total else []
        legend.set_rows(rows + self._recorded_rows())
        self._drawn_width = self.size.width
        if not self.size.width:
            return
        grid = self.query_one(".map-grid", TextLines)
        if session is None:
            text = Text(f"{title}: no session", style=color(self.app, "ctx-muted"))
        else:
            text = self._grid_text(session, used, total, colours, title, max(scale, total))
        grid.update(text)

    def _grid_text(
        self,
        session: Session,
        used: list[MapCategory],
        total: int,
        colours: dict[str, str],
        title: str,
        scale: int,
    ) -> Text:
        """The title, the window bar, the cell size and the `rows` rows of cells."""
        width = max(10, self.size.width - 2)
        window = session.context_window
        text = Text.assemble(
            (f"{title} ", "bold"),
            (f"{total:,} / {window:,} ≈tok ({100 * total / max(window, 1):.1f}%)\n"),
        )
        filled = min(width, round(width * total / max(window, 1))) if total else 0
        filled = max(filled, 1 if total else 0)
        text.append("▆" * filled, style=color(self.app, "ctx-heading"))
        text.append("▁" * (width - filled) + "\n", style=color(self.app, "ctx-section-rule"))
        if not total:
            return text
        text.append(
            f"a cell ≈{scale / (width * self.rows):,.0f} tok, as on the other side\n",
            style=color(self.app, "ctx-muted"),
        )
        run = cell_grid(used, scale, width * self.rows)
        picked = self._picked_category()
        empty = color(self.app, EMPTY_COLOUR)

        def glyph(c: MapCategory | None) -> tuple[str, str]:
            if c is None:
                return "·", empty
            if picked is None or c is picked:
                return "█", colours[c.key]
            return "░", colours[c.key]  # a legend row is selected: the others step back

        for row in range(self.rows):
            cells = [glyph(c) for c in run[row * width : (row + 1) * width]]
            for (char, style), same in groupby(cells):  # one span per run of a colour
                text.append(char * len(list(same)), style=style)
            if row < self.rows - 1:
                text.append("\n")
        return text

    def _legend_rows(
        self, session: Session | None, colours: dict[str, str], total: int, lost: list[str]
    ) -> list[tuple[str, tuple[Text | str, ...]]]:
        """A row per category (tokens, share of the used tokens and of the window), then
        the categories this session lacks."""
        window = session.context_window if session is not None else 0
        rows: list[tuple[str, tuple[Text | str, ...]]] = []
        for c in self.categories:
            swatch = Text("██", style=Style.parse(colours[c.key]))
            of_window = f"{100 * c.tokens / max(window, 1):.1f}%"
            of_used = f"{100 * c.tokens / total:.1f}%" if c.kind != "free" else ""
            rows.append((self._row_key(c), (swatch, c.label, f"{c.tokens:,}", of_used, of_window)))
        gone = color(self.app, "ctx-removed")
        for label in lost:
            rows.append(
                (
                    f"{self.side}:lost:{label}",
                    (
                        Text("−", style=gone),
                        Text(label, style=gone),
                        "—",
                        "",
                        Text("lost", style=gone),
                    ),
                )
            )
        return rows

    def _recorded_rows(self) -> list[tuple[str, tuple[Text | str, ...]]]:
        """A row per figure of the recorded run: its chars, the prediction's, the gap."""
        if not self.recorded:
            return []
        rows: list[tuple[str, tuple[Text | str, ...]]] = []
        head = color(self.app, "ctx-heading")
        for f in self.recorded:
            rec = f"{f.recorded:,}" if f.recorded is not None else "—"
            pred = f"{f.predicted:,}" if f.predicted is not None else "—"
            gap = f" ({f.delta:+,})" if f.delta else " (same)" if f.delta == 0 else ""
            rows.append(
                (
                    f"{self.side}:recorded:{f.item}",
                    (
                        Text("≡", style=head),
                        Text(f"recorded {f.item}", style=head),
                        f"{rec} ch",
                        f"now {pred}{gap}",
                        "record",
                    ),
                )
            )
        return rows

    def _picked_category(self) -> MapCategory | None:
        """The category of the legend row under the cursor while the legend has focus."""
        legend = self.query_one(KeyedTable)
        if not legend.has_focus:
            return None
        key = legend.current_key
        return next((c for c in self.categories if self._row_key(c) == key), None)

    def _redraw(self) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    def set_rows(self, rows: int) -> None:
        """The grid `rows` rows of cells high (its height set only when they change)."""
        if rows != self.rows:
            self.rows = rows
            self.query_one(".map-grid", TextLines).styles.height = rows + 3
            self._redraw()

    @property
    def legend_lines(self) -> int:
        """The legend's lines: its header and rows."""
        return 1 + self.query_one(KeyedTable).row_count

    @on(KeyedTable.Highlighted)
    def _moved(self, event: KeyedTable.Highlighted) -> None:
        if event.table.has_focus:  # only then does the grid show the row's category
            self._redraw()

    def on_descendant_focus(self) -> None:
        self._redraw()

    def on_descendant_blur(self) -> None:
        self._redraw()

    def _row_key(self, c: MapCategory) -> str:
        """`<side>:<first section id>` (what w explains), `<side>:free` for free space."""
        return f"{self.side}:{c.sections[0] if c.sections else c.key}"

    @on(KeyedTable.Selected)
    def _chosen(self, event: KeyedTable.Selected) -> None:
        event.stop()  # Enter here shows the section (w still explains it)
        found = next((c for c in self.categories if self._row_key(c) == event.key), None)
        if found is not None and found.sections:
            self.post_message(self.Chosen(self.side, found.sections[0]))


class MapPanel(Horizontal):
    """The main and subagent maps side by side; the grids take the height the legends
    leave (`ROWS` at least), so with the panels on the whole screen (`m`) the map fills it."""

    DEFAULT_CSS = """
    MapPanel { height: 1fr; }
    """

    def on_resize(self) -> None:
        self._fit_rows()

    def _fit_rows(self) -> None:
        columns = list(self.query(MapColumn))
        if not self.size.height or not columns:
            return
        legend = max(c.legend_lines for c in columns)
        rows = max(ROWS, min(MOST_ROWS, self.size.height - 3 - legend))
        for column in columns:
            column.set_rows(rows)

    def compose(self) -> ComposeResult:
        yield MapColumn("main")
        yield MapColumn("child")

    def show(
        self,
        main: Session,
        child: Session | None,
        titles: tuple[str, str] = ("MAIN", "SUBAGENT"),
        recorded: Beside | None = None,
        *,
        before_recorded: bool = False,
    ) -> None:
        """`main` and `child` side by side on one cell size (`titles`: the columns' names;
        the second's legend ends with what it lacks of the first). `recorded`: a recorded
        run, listed under its side's legend (recorded vs predicted). `before_recorded`:
        `main` is a recorded run's session (figures, no section texts), drawn by the
        categories its record holds."""
        figures = (
            {"main": [], "child": []} if recorded is None else {recorded.side: recorded.figures}
        )
        mine = recorded_map(main) if before_recorded else context_map(main)
        theirs = context_map(child) if child is not None else []
        scale = max(main.tokens.total, child.tokens.total if child else 0)
        gone = lost_labels(mine, theirs) if child is not None else []
        colours = category_colours(self.app, mine, theirs)
        self.query_one("#map-main", MapColumn).show(
            main, mine, titles[0], scale, [], colours, figures.get("main")
        )
        self.query_one("#map-child", MapColumn).show(
            child, theirs, titles[1], scale, gone, colours, figures.get("child")
        )
        self._fit_rows()
