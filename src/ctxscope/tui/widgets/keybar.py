"""The key bar: the keys the focused widget and the app answer to, drawn as one line.

It looks like Textual's compact footer (key in bold, then what it does; the command palette
key on the right, after a thin rule) but is one widget, not one per key: the screen is laid
out and drawn whole each time a panel is shown, and the footer's ~20 key widgets took half
of that. A key is pressed by clicking it; a disabled one is dim and only rings the bell.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from ctxscope.core.record import record
from ctxscope.tui.widgets.hover import HoverItems


@record(frozen=True, slots=True)
class Key:
    """One key on the bar."""

    key: str
    display: str
    description: str
    enabled: bool
    palette: bool = False
    pinned: bool = False
    """Drawn first and never dropped for want of room (help and quit)."""

    @property
    def width(self) -> int:
        return cell_len(self.display) + (cell_len(self.description) + 1 if self.description else 0)


PINNED = frozenset({"quit", "help"})
"""Actions whose keys the bar always shows, first: however narrow the terminal, `q` and `?`
(which lists every other key) stay in view."""


class KeyBar(HoverItems, Widget, can_focus=False):
    """One line of keys; rebuilt when the screen's bindings change what it would show."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--hover",
        "key-bar--rule",
    }
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-bar--hover { background: $block-hover-background; }
        & > .key-bar--rule { color: $foreground 20%; }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys: tuple[Key, ...] = ()
        self._spans: list[tuple[int, int, Key]] = []
        """Where each key is drawn (start, end column) in the last frame."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if screen is not self.screen:
            return
        palette = self.app.COMMAND_PALETTE_BINDING
        keys: list[Key] = []
        shown: set[str] = set()
        for key, (_, binding, enabled, _) in screen.active_bindings.items():
            is_palette = key == palette and self.app.ENABLE_COMMAND_PALETTE
            if is_palette or (binding.show and binding.action not in shown):
                shown.add(binding.action)  # one key per action (`?` and F1 show once)
                display = self.app.get_key_display(binding)
                pinned = binding.action in PINNED
                keys.append(Key(key, display, binding.description, enabled, is_palette, pinned))
        keys.sort(key=lambda k: not k.pinned)  # stable: the rest keep their order
        if tuple(keys) != self.keys:
            self.keys = tuple(keys)
            self.refresh()

    # -- drawing -------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        self._spans = []
        width = self.size.width
        base = self.rich_style
        style = self.get_component_rich_style
        key_style, desc_style = style("key-bar--key"), style("key-bar--description")
        hover = style("key-bar--hover")
        dim = Style(dim=True)
        segments: list[Segment] = []
        at = 0

        def draw(key: Key) -> None:
            nonlocal at
            extra = (hover if key == self._hover else Style()) + (Style() if key.enabled else dim)
            segments.append(Segment(key.display, key_style + extra))
            if key.description:
                segments.append(Segment(f" {key.description}", desc_style + extra))
            self._spans.append((at, at + key.width, key))
            at += key.width

        palette = [k for k in self.keys if k.palette]
        pinned = sum(k.width + 1 for k in self.keys if k.pinned)
        if pinned + sum(k.width + 2 for k in palette) > width:
            palette = []  # too narrow for both: help and quit come first
        room = width - sum(k.width + 2 for k in palette)  # the rule before, a space after
        for key in (k for k in self.keys if not k.palette):
            if at + key.width > room and not key.pinned:
                break
            draw(key)
            segments.append(Segment(" ", base))
            at += 1
        if palette:
            segments.append(Segment(" " * max(0, room - at), base))
            at = max(at, room)
            segments.append(Segment("▏", base + style("key-bar--rule")))
            at += 1
            for key in palette:
                draw(key)
        return Strip(segments).crop_extend(0, width, base)

    # -- mouse ---------------------------------------------------------------------------
    def _item_at(self, x: int) -> Key | None:
        return next((key for start, end, key in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._item_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()
