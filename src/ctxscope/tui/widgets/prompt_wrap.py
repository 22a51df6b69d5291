"""How the prompt view wraps its text into lines of a width: each line of a block wrapped on
its own and kept by its text, spans and width (an edit re-wraps only the lines it changed),
a section's heading line (a long path cut in the middle so its file's name stays in view),
and where a search query matches."""

from __future__ import annotations

from rich.console import Console
from rich.style import Style
from rich.text import Span, Text

from ctxscope.tui.widgets.frame_style import Run

LineKey = tuple[str, tuple[Span, ...], int]
"""One line of a body: its text, its styled spans and the width it is wrapped to."""


def wrap_by_line(
    text: Text, width: int, console: object, cache: dict[LineKey, list[Run]]
) -> tuple[list[Run], list[LineKey]]:
    """`wrap(text)`, line by line through `cache` (Rich wraps each line on its own, so the
    result is the same): a 2 MiB AGENTS.md edited at one line re-wraps that line only."""
    runs: list[Run] = []
    keys: list[LineKey] = []
    for line in text.split("\n", allow_blank=True):
        key = (line.plain, tuple(line.spans), width)
        wrapped = cache.get(key)
        if wrapped is None:
            wrapped = cache[key] = wrap(line, width, console)
        keys.append(key)
        runs.extend(wrapped)
    return runs, keys


def wrap(text: Text, width: int, console: object) -> list[Run]:
    plain = text.plain
    if "\n" not in plain and "\t" not in plain and text.cell_len <= width:
        line = text.copy()  # a line that fits: what Rich's wrap would give, made directly
        line.rstrip()
        return [(list(line.render(console)), line.cell_len)]  # type: ignore[arg-type]
    out: list[Run] = []
    for line in text.wrap(console, width, overflow="fold"):  # type: ignore[arg-type]
        line.rstrip()
        out.append((list(line.render(console)), line.cell_len))  # type: ignore[arg-type]
    return out


def keep_the_end(heading: str, room: int) -> str:
    """A `## /long/path/FILE.md` heading cut in the middle of its path, so the file's name
    stays in view: `## …/ws/FILE.md`."""
    marks, _, path = heading.partition(" ")
    if "/" not in path or room <= len(marks) + 2:
        return heading
    keep = room - len(marks) - 2  # "## " + "…"
    return f"{marks} …{path[-keep:]}" if keep > 0 else heading


def find_all(bodies: list[str], query: str) -> list[tuple[int, int, int]]:
    """Every case-insensitive, non-overlapping match of `query` in `bodies`: (which body,
    start, end), in reading order."""
    needle = query.lower()
    found: list[tuple[int, int, int]] = []
    for index, body in enumerate(text.lower() for text in bodies) if needle else ():
        at = body.find(needle)
        while at >= 0:
            found.append((index, at, at + len(needle)))
            at = body.find(needle, at + len(needle))
    return found


def heading_line(heading: str, style: Style, metrics: Text, width: int, console: Console) -> Run:
    """A section's heading line: the heading on the left (a long path cut in the middle, see
    `keep_the_end`), its `metrics` on the right (only their first part when the line is
    narrow, cut when it is narrower still)."""
    if width - metrics.cell_len < 24:
        metrics = Text(metrics.plain.split(" · ")[0], style=metrics.style)
    room = width - metrics.cell_len - 2
    if room < 12:
        metrics.truncate(max(0, width - 14), overflow="ellipsis")
        room = width - metrics.cell_len - 2
    head = Text(heading, style=style)
    if head.cell_len > room:
        head = Text(keep_the_end(heading, max(1, room)), style=style)
    head.truncate(max(1, room), overflow="ellipsis")
    gap = max(1, width - head.cell_len - metrics.cell_len)
    line = Text.assemble(head, " " * gap, metrics)
    line.truncate(width)
    return list(line.render(console)), line.cell_len
