"""Scrollbars whose lines are kept while they stay the same.

Textual draws a scrollbar through its whole text pipeline, line by line, each time the
screen is laid out (≈0.1 ms a line here: the two panes' bars alone cost ≈4 ms of every
panel switch). `LineScrollBar` lays the bar out once for its size, position and colours and
reuses those lines until one of them changes; the cells, colours and mouse actions are
Textual's own. `LightScrollBars` gives a scrollable widget such bars.
"""

from __future__ import annotations

from typing import Any, cast

from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget


class LineScrollBar(ScrollBar):
    """A `ScrollBar` drawn from lines laid out once per look."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1):
        super().__init__(vertical, name, thickness=thickness)
        self._look: tuple[Any, ...] | None = None
        self._strips: list[Strip] = []

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()
        if not isinstance(bar, ScrollBarRender):
            return super().render_lines(crop)
        width, height = self.size
        base = self.rich_style
        look = (width, height, bar.virtual_size, bar.window_size, bar.position, bar.style, base)
        if look != self._look:
            console = self.app.console
            options = console.options.update_dimensions(width, height)
            lines = console.render_lines(bar, options, pad=True)
            self._strips = [Strip(line, width).apply_style(base) for line in lines]
            self._look = look
        strips = self._strips[crop.y : crop.bottom]
        filters = self.get_line_filters()
        if filters:
            _, background = self.background_colors
            for line_filter in filters:
                strips = [strip.apply_filter(line_filter, background) for strip in strips]
        if crop.column_span != (0, width):
            strips = [strip.crop(crop.x, crop.right) for strip in strips]
        return strips


class LightScrollBars:
    """A mixin, put before the widget among a scrollable widget's bases: its scrollbars are
    `LineScrollBar`s, made as Textual makes its own (hidden until needed). Not a widget
    itself, so CSS and component classes still come from the widget base."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return _light_bar(cast("Widget", self), vertical=True)

    @property
    def horizontal_scrollbar(self) -> ScrollBar:
        return _light_bar(cast("Widget", self), vertical=False)


def _light_bar(owner: Widget, *, vertical: bool) -> ScrollBar:
    """`owner`'s scrollbar, made on first use as Textual makes its own: attached to
    `owner`, running, and hidden until needed."""
    name = "vertical" if vertical else "horizontal"
    bar: ScrollBar | None = getattr(owner, f"_{name}_scrollbar")
    if bar is None:
        thickness = owner.scrollbar_size_vertical if vertical else owner.scrollbar_size_horizontal
        bar = LineScrollBar(vertical, name, thickness=thickness)
        bar.display = False
        setattr(owner, f"_{name}_scrollbar", bar)
        owner.app._start_widget(owner, bar)
    return bar
