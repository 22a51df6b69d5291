"""The key bar: Textual's footer, recomposed only when the keys it shows change."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeyBar(Footer):
    """Textual's `Footer` rebuilds all its keys on every focus change; moving between the
    panes (or into a panel with the same keys) changes none of them, and rebuilding ~25 key
    widgets stalls that frame by 50–150 ms. This one rebuilds only when what it would show
    differs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[Any, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # What the bar draws: the keys it shows and the palette key. A table or a tree taking
        # focus adds its own hidden keys (cursor moves), which change nothing on the bar.
        palette = self.app.COMMAND_PALETTE_BINDING
        shown = tuple(
            (key, binding.key_display, binding.description, binding.action, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == palette
        )
        if shown == self._shown and self._bindings_ready and screen is self.screen:
            return
        self._shown = shown
        super().bindings_changed(screen)
