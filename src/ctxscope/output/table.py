"""Plain-text and markdown tables (no colour: output is meant for pipes and files)."""

from __future__ import annotations

import os
from collections.abc import Sequence


def text_table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], max_last: int = 100
) -> str:
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    for row in cells:
        if len(row[-1]) > max_last:
            row[-1] = row[-1][: max_last - 1] + "…"
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def esc(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    out = [
        "| " + " | ".join(esc(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def short_path(path: str | None, base: str | None = None) -> str:
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
