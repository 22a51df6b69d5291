"""Budget bars drawn as text: `████░░░░ 8,421 / 200,000 (4%)`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field

from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from ctxscope.core.record import record


def level(used: int, limit: int) -> str:
    """`ok` below 75 %, `high` up to 100 %, `over` beyond."""
    if limit <= 0:
        return "over" if used else "ok"
    ratio = used / limit
    return "ok" if ratio < 0.75 else ("high" if ratio <= 1.0 else "over")


def bar(
    used: int, limit: int, width: int, styles: dict[str, Style], *, unit: str = "", label: str = ""
) -> Text:
    """A bar of `width` cells followed by the figures; `styles` maps ok/high/over/empty."""
    figures = f" {used:,} / {limit:,}{unit}"
    pct = f" ({used / limit:.0%})" if limit > 0 else ""
    tail = (figures + pct).ljust(28)
    cells = max(4, width - len(tail) - len(label))
    filled = 0 if limit <= 0 else min(cells, round(cells * used / limit))
    if used and not filled:
        filled = 1
    text = Text(label)
    text.append("█" * filled, styles.get(level(used, limit), Style()))
    text.append("░" * (cells - filled), styles.get("empty", Style()))
    text.append(tail)
    return text


@record
class FitBar:
    """A bar laid out at the width a `BarRows` line leaves it, so it fills its column on any
    screen and after any resize; with no limit, the figures alone."""

    used: int
    limit: int | None
    styles: dict[str, Style] = field(default_factory=dict)
    unit: str = ""
    no_limit: str = ""
    """What follows the figures when there is no limit."""

    def text(self, width: int) -> Text:
        """The bar and its figures in `width` cells."""
        if self.limit is None:
            return Text(f" {self.used:,}{self.unit}{self.no_limit}")
        return bar(self.used, self.limit, width, self.styles, unit=self.unit)


@record
class BarRows:
    """Rows of a label and a value, one line each: the labels as wide as the longest, then a
    space, then the value in the rest of the line (a `FitBar` fills it; text is cut)."""

    rows: list[tuple[Text, Text | FitBar]]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        labels = max((label.cell_len for label, _ in self.rows), default=0)
        room = max(1, options.max_width - labels - 1)
        for label, value in self.rows:
            line = label.copy()
            line.pad_right(labels - label.cell_len + 1)
            line.append_text(value.text(room) if isinstance(value, FitBar) else value)
            line.no_wrap = True  # what is longer than the line is cut at its edge
            yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(options.max_width, options.max_width)
