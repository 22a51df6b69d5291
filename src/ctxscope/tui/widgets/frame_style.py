"""Shared by the widgets drawn line by line (Line API): the laid-out line, and the widget's
style worked out once per frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip

Run = tuple[list[Segment], int]
"""A laid-out line: its segments and its width in cells. Kept instead of a `Strip`: a
Strip carries seven caches and keeps what is derived from it, and a view may hold every line
of a long text; Strips are made for the lines being drawn."""


def text_segments(text: Text, console: Console) -> list[Segment]:
    """One line of `text` as segments, its own style under its spans. (`Text.render` leaves
    that style out when the text has no spans.)"""
    if text.spans:
        return list(text.render(console))
    return [Segment(text.plain, console.get_style(text.style) or Style.null())]


class FrameStyled:
    """A mixin, put first among the bases of a Line-API widget: while a frame is drawn,
    `base_style` is the widget's style worked out once (it walks the ancestors' backgrounds:
    per line, that is most of a short line's cost). Not a widget itself, so the widget's CSS
    and component classes still come from its widget base."""

    _frame_style: Style | None = None

    if TYPE_CHECKING:

        @property
        def rich_style(self) -> Style: ...

    @property
    def base_style(self) -> Style:
        return self._frame_style or self.rich_style

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)  # type: ignore[misc]
        finally:
            self._frame_style = None
