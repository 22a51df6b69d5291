"""Hover for widgets drawn as a row of clickable items (the key bar, the panel tabs)."""

from __future__ import annotations

from typing import Any, cast

from textual import events
from textual.widget import Widget


class HoverItems:
    """A mixin, put before the widget among its bases: `_hover` is the item under the
    mouse (None off the items), and the widget is redrawn when it changes. The widget says
    which item is drawn at a column with `_item_at`."""

    _hover: Any = None

    def _item_at(self, x: int) -> Any:
        raise NotImplementedError

    def on_mouse_move(self, event: events.MouseMove) -> None:
        found = self._item_at(event.x)
        if found != self._hover:
            self._hover = found
            cast("Widget", self).refresh()

    def on_leave(self) -> None:
        if self._hover is not None:
            self._hover = None
            cast("Widget", self).refresh()
