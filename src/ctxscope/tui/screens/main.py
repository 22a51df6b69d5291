"""The app's own screen (the panes, bars and panels are composed onto it)."""

from __future__ import annotations

from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget


class MainScreen(Screen[None]):
    """Textual's screen repaints itself whole each time focus moves (≈30-50 ms at 200×50);
    here only what the move restyles is drawn again: the widgets that lose and gain focus
    and their ancestors (Textual restyles those itself), and each pane's border, which the
    app sets as focus moves."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
