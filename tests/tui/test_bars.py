"""Budget bars: a bar fills the width it is drawn in; rows line their values up."""

from __future__ import annotations

import io

from rich.console import Console
from rich.style import Style
from rich.text import Text

from ctxscope.tui.widgets.bars import BarRows, FitBar

STYLES = {"ok": Style(color="green"), "empty": Style(color="grey50")}


def lines(renderable: object, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text().splitlines()


def test_rows_line_their_values_up_after_the_longest_label_and_fill_the_width() -> None:
    rows = BarRows(
        [
            (Text("Tokens", style="bold"), Text()),
            (Text("  main ≈tokens"), FitBar(50, 200, STYLES)),
            (Text("  total"), FitBar(10, None, STYLES, no_limit=" chars (no limit)")),
            (Text("  tools"), Text("a very long line of text " * 10)),
        ]
    )
    heading, bar, total, tools = lines(rows, 80)
    assert heading.rstrip() == "Tokens"
    assert bar.index("█") == total.index("10") - 1 == tools.index("a very") == 15
    assert len(bar) == 80 and bar.rstrip().endswith("░ 50 / 200 (25%)")
    cells = bar.count("█") + bar.count("░")
    assert cells == 80 - 15 - 28 and bar.count("█") == round(cells / 4)  # a quarter used
    assert len(tools) == 80  # cut at the edge, not wrapped onto a second line
    assert lines(rows, 60)[1].count("█") < bar.count("█")  # the bar follows the width
