"""Nothing from a workspace reaches the terminal raw.

A file name, a config value, a hook's name or a script's output may hold escape sequences
(OSC 52 writes the clipboard, OSC 0 retitles the window). Two layers keep them off the
terminal, both with `ctxscope.core.safetext.terminal_safe`, the CLI's own sanitiser:

- what the widgets are given: `safe()` makes a string, a Rich `Text` (its spans moved with
  it) or a group of them safe before it is laid out, so widths are right. The panes' blocks
  (`render.py`), every table cell, the one-line bars, the text panels, tree labels, dialogs
  and notifications go through it;
- what is drawn: `TerminalSafe`, a line filter the app adds to every widget's lines, turns
  any control character left in a drawn segment (and a link holding one) into its stand-in.
  Whatever a widget was given, its lines cannot carry an escape sequence to the terminal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.console import Group
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Span, Text
from textual.color import Color
from textual.filter import LineFilter

from ctxscope.core.safetext import UNSAFE, offset_map, terminal_safe


def safe_text(text: Text) -> Text:
    """`text` with its control characters shown as stand-ins, its spans moved with them
    (`text` itself when it has none)."""
    plain = text.plain
    if UNSAFE.search(plain) is None:
        return text
    at = offset_map(plain)
    return Text(
        terminal_safe(plain),
        style=text.style,
        justify=text.justify,
        overflow=text.overflow,
        no_wrap=text.no_wrap,
        end=text.end,
        tab_size=text.tab_size,
        spans=[Span(at(s.start), at(s.end), s.style) for s in text.spans],
    )


def safe(value: Any) -> Any:
    """A string, `Text`, `Group` or `Table` made safe for the terminal (groups and tables
    cell by cell); anything else as it is (the line filter still guards it)."""
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, Text):
        return safe_text(value)
    if isinstance(value, Group):
        return Group(*(safe(r) for r in value.renderables), fit=value.fit)
    if isinstance(value, Table):
        for column in value.columns:
            cells = getattr(column, "_cells", None)
            if isinstance(cells, list):
                cells[:] = [safe(cell) for cell in cells]
        return value
    return value


@lru_cache(256)
def _safe_style(style: Style) -> Style:
    """`style` without a link whose address holds a control character (OSC 8 would carry
    it to the terminal)."""
    return style.update_link(None)


class TerminalSafe(LineFilter):
    """Shows every control character in a drawn line as its stand-in; the line keeps its
    width (what a stand-in adds is cut at its end)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        for text, style, _ in segments:  # the common line: printable text and no link
            if not text.isprintable() or (style is not None and style.link):
                break
        else:
            return segments
        changed = False
        out: list[Segment] = []
        for segment in segments:
            text, style, control = segment
            if control is None:
                if UNSAFE.search(text) is not None:
                    text, changed = terminal_safe(text), True
                if style is not None and style.link and UNSAFE.search(style.link) is not None:
                    style, changed = _safe_style(style), True
            out.append(Segment(text, style, control))
        if not changed:
            return segments
        width = Segment.get_line_length(segments)
        return list(Segment.adjust_line_length(out, width))


TERMINAL_SAFE = TerminalSafe()
"""The app's one instance (strips cache filtered lines per filter)."""
