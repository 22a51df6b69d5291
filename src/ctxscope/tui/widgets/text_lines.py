"""Text drawn line by line (Line API): a few lines as they are (`TextLines`), or a Rich
renderable laid out once per width (`RichLines`)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from ctxscope.tui.safe import safe, safe_text
from ctxscope.tui.widgets.frame_style import FrameStyled, text_segments


class TextLines(FrameStyled, Widget):
    """Shows `text` line by line, each cut at the widget's width. Its height comes from the
    CSS, so an update redraws it without laying the screen out; lines are rendered once per
    update (Textual's own text pipeline costs several times that per frame)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.text = Text()
        self._lines: list[list[Segment]] = []

    def update(self, text: Text) -> None:
        text = safe_text(text)
        self.text = text
        console = self.app.console
        self._lines = [text_segments(line, console) for line in text.split("\n")]
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        if y >= len(self._lines):
            return Strip.blank(width, base)
        return Strip(self._lines[y]).apply_style(base).crop_extend(0, width, base)


class RichLines(FrameStyled, Widget):
    """A Rich renderable drawn line by line, as high as its lines at the widget's width. It
    is rendered once per width (the last two are kept: a scrollbar coming and going changes
    the width back and forth); a Static renders it again each time the screen is laid out,
    once to measure its height and once to draw it."""

    DEFAULT_CSS = "RichLines { height: auto; }"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.renderable: RenderableType = Text()
        self._by_width: dict[int, list[list[Segment]]] = {}

    def update(self, renderable: RenderableType) -> None:
        """Show `renderable` (a plain string is text, not markup), made safe for the
        terminal."""
        renderable = safe(renderable)
        self.renderable = Text(renderable) if isinstance(renderable, str) else renderable
        self._by_width = {}
        self.refresh(layout=True)

    def _lines(self, width: int) -> list[list[Segment]]:
        lines = self._by_width.get(width)
        if lines is None:
            console = self.app.console
            options = console.options.update(width=width, height=None, highlight=False)
            lines = console.render_lines(self.renderable, options, pad=False)
            if len(self._by_width) > 1:
                self._by_width.pop(next(iter(self._by_width)))
            self._by_width[width] = lines
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width)) if width > 0 else 0

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        lines = self._lines(width) if width > 0 else []
        if y >= len(lines):
            return Strip.blank(width, base)
        return Strip(lines[y]).apply_style(base).crop_extend(0, width, base)
