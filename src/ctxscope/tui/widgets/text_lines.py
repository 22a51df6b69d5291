"""A few lines of styled text drawn as they are (Line API): no measuring, no wrapping."""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from ctxscope.tui.widgets.frame_style import FrameStyled


class TextLines(FrameStyled, Widget):
    """Shows `text` line by line, each cut at the widget's width. Its height comes from the
    CSS, so an update redraws it without laying the screen out; lines are rendered once per
    update (Textual's own text pipeline costs several times that per frame)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.text = Text()
        self._lines: list[list[Segment]] = []

    def update(self, text: Text) -> None:
        self.text = text
        console = self.app.console
        self._lines = [list(line.render(console)) for line in text.split("\n")]
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        if y >= len(self._lines):
            return Strip.blank(width, base)
        return Strip(self._lines[y]).apply_style(base).crop_extend(0, width, base)
