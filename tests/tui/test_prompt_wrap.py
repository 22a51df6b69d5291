"""A prompt line that fits its pane is laid out without Rich's word wrapping; the result must
be exactly what the wrapping gives (cells, styles and width). A search finds what a reader would."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.style import Style
from rich.text import Span, Text

from ctxscope.tui.widgets.prompt_wrap import find_all, heading_line
from ctxscope.tui.widgets.prompt_wrap import wrap as _wrap

BOLD, RED = Style(bold=True), Style(color="red")
LINES = [
    "",
    " ",
    "short line",
    "trailing spaces   ",
    "exactly twenty chars",
    "twenty one chars ...",
    "wide 漢字 cells 漢字",
    "漢字漢字漢字漢字漢字",
    "emoji 🙂 inside",
    "a line much longer than the pane is wide, so it wraps",
    "    indented text",
    "tab\tinside",
    "unbreakablewordlongerthanthepane",
]


def rich_wrap(text: Text, width: int, console: Console) -> list[tuple[list[object], int]]:
    out = []
    for line in text.wrap(console, width, overflow="fold"):
        line.rstrip()
        out.append((list(line.render(console)), line.cell_len))
    return out


@pytest.mark.parametrize("width", [1, 8, 19, 20, 21, 40])
@pytest.mark.parametrize("plain", LINES)
def test_a_line_is_laid_out_as_rich_wraps_it(plain: str, width: int) -> None:
    console = Console(width=200)
    spans = [Span(0, min(4, len(plain)), BOLD), Span(len(plain) // 2, len(plain), RED)]
    for text in (Text(plain), Text(plain, spans=spans), Text(plain, style="italic")):
        assert _wrap(text.copy(), width, console) == rich_wrap(text.copy(), width, console)


def test_a_search_finds_every_match_in_reading_order_ignoring_case() -> None:
    bodies = ["Soul and SOUL", "none here", "aaaa"]
    assert find_all(bodies, "soul") == [(0, 0, 4), (0, 9, 13)]
    assert find_all(bodies, "aa") == [(2, 0, 2), (2, 2, 4)]  # matches never overlap
    assert find_all(bodies, "") == []


def test_a_heading_line_keeps_the_file_name_and_the_first_metric_when_narrow() -> None:
    console = Console(width=200)
    metrics = Text("2,053 ch ≈515 tok · workspace")
    segments, width = heading_line("## /tmp/ws/AGENTS.md", BOLD, metrics, 60, console)
    line = "".join(s.text for s in segments)
    assert width == 60 and line.startswith("## /tmp/ws/AGENTS.md") and line.endswith("workspace")
    path = "## /a/very/long/folder/name/that/goes/on/AGENTS.md"
    segments, width = heading_line(path, BOLD, metrics, 40, console)
    line = "".join(s.text for s in segments)
    assert width <= 40 and "AGENTS.md" in line  # the path cut in the middle, not its end
    assert line.rstrip().endswith("≈515 tok") and "workspace" not in line
