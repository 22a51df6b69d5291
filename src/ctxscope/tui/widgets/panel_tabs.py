"""The panels' tabs: a line of labels and the bar under it, drawn by one widget.

It looks and answers like Textual's tabs (labels padded by a space, the active one bright
and underlined by a bar, a click on either line chooses a tab, ←/→ while focused) but is one
widget, not one per tab plus a bar, a scroller and two containers: the screen is laid out and
drawn whole each time a panel is shown, and those widgets were a third of it. The bar moves at
once; when the labels are wider than the widget, the active one is kept in view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ctxscope.tui.widgets.frame_style import FrameStyled
from ctxscope.tui.widgets.hover import HoverItems

BAR, HALF_RIGHT, HALF_LEFT = "━", "╸", "╺"


class PanelTabs(FrameStyled, HoverItems, Widget, can_focus=True):
    """Tabs named `(name, label)`; `active` is the chosen name. Choosing a tab (click, ←/→)
    posts `Chosen`; the app switches the panel and sets `active`."""

    ALLOW_SELECT = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous panel", show=False),
        Binding("right", "step(1)", "Next panel", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "panel-tabs--tab",
        "panel-tabs--active",
        "panel-tabs--hover",
        "panel-tabs--bar",
    }
    DEFAULT_CSS = """
    PanelTabs {
        height: 2;
        & > .panel-tabs--tab { color: $foreground 50%; }
        & > .panel-tabs--hover { color: $foreground; }
        & > .panel-tabs--active { color: $foreground; }
        & > .panel-tabs--bar {
            color: $block-cursor-background;
            background: $foreground 10%;
        }
        &:focus {
            & > .panel-tabs--bar { background: $foreground 30%; }
            & > .panel-tabs--active {
                text-style: $block-cursor-text-style;
                color: $block-cursor-foreground;
                background: $block-cursor-background;
            }
        }
        &:ansi {
            & > .panel-tabs--tab { text-style: dim; }
            & > .panel-tabs--active { text-style: not dim bold; }
            & > .panel-tabs--bar {
                color: $block-cursor-background;
                background: $border-blurred;
            }
        }
    }
    """

    class Chosen(Message):
        """A tab was clicked or stepped to (`stepped`: with ←/→, the focus stays on the
        tabs)."""

        def __init__(self, name: str, *, stepped: bool = False) -> None:
            super().__init__()
            self.name = name
            self.stepped = stepped

    def __init__(self, tabs: Sequence[tuple[str, str]], active: str, *, id: str | None = None):
        super().__init__(id=id)
        self.tabs = tuple(tabs)
        self._active = active
        self._spans: list[tuple[int, int, str]] = []
        at = 0
        for name, label in self.tabs:
            width = cell_len(label) + 2  # a space of padding on each side
            self._spans.append((at, at + width, name))
            at += width
        self._total = at

    @property
    def active(self) -> str:
        return self._active

    @active.setter
    def active(self, name: str) -> None:
        if name != self._active:
            self._active = name
            self.refresh()

    # -- layout --------------------------------------------------------------------------
    def _offset(self) -> int:
        """How far the labels are scrolled: none while they fit, else the active tab
        centred as far as the labels allow."""
        width = self.size.width
        span = self._active_span()
        if self._total <= width or span is None:
            return 0
        centre = (span[0] + span[1]) // 2
        return max(0, min(self._total - width, centre - width // 2))

    def _active_span(self) -> tuple[int, int, str] | None:
        return next((s for s in self._spans if s[2] == self._active), None)

    def _item_at(self, x: int) -> str | None:
        x += self._offset()
        return next((name for start, end, name in self._spans if start <= x < end), None)

    # -- drawing -------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.base_style
        line = self._labels(base) if y == 0 else self._bar(base, width) if y == 1 else []
        offset = self._offset()
        return Strip(line).crop_extend(offset, offset + width, base)

    def _labels(self, base: Style) -> list[Segment]:
        style = self.get_component_rich_style
        segments = []
        for name, label in self.tabs:
            part = "panel-tabs--active" if name == self._active else "panel-tabs--tab"
            tab = style(part)
            if name == self._hover and name != self._active:
                tab += style("panel-tabs--hover")
            segments.append(Segment(f" {label} ", base + tab))
        return segments

    def _bar(self, base: Style, width: int) -> list[Segment]:
        """Textual's tab underline, as wide as the labels or the widget: the active label
        (not its padding) in the bar's colour, half-width ends of the dim bar beside it."""
        bar = self.get_component_rich_style("panel-tabs--bar")
        on = base + Style.from_color(bar.color)
        off = base + Style.from_color(bar.bgcolor)
        total = max(self._total, width)
        span = self._active_span()
        if span is None:
            return [Segment(BAR * total, off)]
        start, end = span[0] + 1, span[1] - 1
        segments = [Segment(BAR * (start - 1) + HALF_RIGHT, off), Segment(BAR * (end - start), on)]
        if end < total:
            segments.append(Segment(HALF_LEFT + BAR * (total - end - 1), off))
        return segments

    # -- keys and mouse ------------------------------------------------------------------
    def action_step(self, step: int) -> None:
        names = [name for name, _ in self.tabs]
        at = names.index(self._active) if self._active in names else 0
        self.post_message(self.Chosen(names[(at + step) % len(names)], stepped=True))

    def on_click(self, event: events.Click) -> None:
        found = self._item_at(event.x)
        if found is not None:
            self.post_message(self.Chosen(found))
