"""A scrolling view drawn line by line (Textual's Line API), styled once per frame."""

from __future__ import annotations

from rich.style import Style
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip


class LineView(ScrollView):
    """`base_style` is the widget's style, worked out once per frame while one is drawn
    (it walks the ancestors' backgrounds: per line, that is most of a line's cost)."""

    _frame_style: Style | None = None

    @property
    def base_style(self) -> Style:
        return self._frame_style or self.rich_style

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None
