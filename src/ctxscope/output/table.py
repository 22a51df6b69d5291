"""Plain-text and markdown tables (no colour: output is meant for pipes and files)."""

from __future__ import annotations

import itertools
import os
import textwrap
from collections.abc import Sequence
from typing import cast

from ctxscope.core.safetext import all_one_line, line_safe

WIDTH: int | None = None
"""The columns a text table may take: the terminal's, when the CLI writes to one (see
`fit_to`); None (output to a pipe or a file): rows are never wrapped or cut."""
MIN_LAST = 24
"""The narrowest the last column is wrapped to; with less room the terminal wraps the row."""


def fit_to(columns: int | None) -> None:
    """Make text tables fit `columns` (a terminal's width) by wrapping their last column;
    None: never wrap."""
    global WIDTH
    WIDTH = columns


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns padded to their widest cell. Nothing is ever cut: on a terminal (`WIDTH`)
    the last column wraps onto indented lines below its row."""
    cells: list[Sequence[str]] = [[*map(str, headers)]]
    if set(map(type, itertools.chain.from_iterable(rows))) <= {str}:
        text = cast("Sequence[Sequence[str]]", rows)  # text already: not copied
    else:
        text = [[*map(str, row)] for row in rows]
    if not all_one_line(itertools.chain.from_iterable(text)):
        text = [[*map(line_safe, row)] for row in text]
    cells += text
    widths = [max(map(len, column)) for column in zip(*cells, strict=True)]
    indent = sum(widths[:-1]) + 2 * (len(widths) - 1)
    room = WIDTH - indent if WIDTH else 0
    wrap = room >= MIN_LAST and widths[-1] > room
    if wrap:
        widths[-1] = room
    elif all(len(row) == len(widths) for row in cells):  # each row one line: one format
        line = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + ("  {}" if widths[:-1] else "{}")
        lines = [line.format(*row).rstrip() for row in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)
    lines = []
    for n, row in enumerate(cells):
        last = _wrapped(row[-1], room) if wrap else [row[-1]]
        padded = [c.ljust(w) for c, w in zip(row[:-1], widths, strict=False)]
        lines.append("  ".join([*padded, last[0]]).rstrip())
        lines += [" " * indent + more for more in last[1:]]
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _wrapped(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` characters, broken between words where it can."""

    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def esc(value: object) -> str:
        return line_safe(str(value)).replace("|", "\\|")

    out = [
        "| " + " | ".join(esc(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def relative_path(path: str | None, base: str | None = None) -> str:
    """`path` relative to `base` (default: the current folder) unless that climbs out more
    than one level; `-` for no path."""
    if not path:
        return "-"
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("../..") else rel


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"
