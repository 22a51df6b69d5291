"""A bar one line high (the top, delta, lost and status lines)."""

from __future__ import annotations

from collections.abc import Callable

from textual.visual import VisualType
from textual.widgets import Static

from ctxscope.tui.safe import safe


class OneLine(Static):
    """A Static whose size never depends on what it says (its CSS makes it one line high):
    an update redraws the line without laying the screen out again. What it says is made
    safe for the terminal (control characters as stand-ins)."""

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        super().update(safe(content), layout=layout)


class FitLine(OneLine):
    """A line made for its width (the top bar): `fit(width)` makes it again whenever the
    width changes."""

    fit: Callable[[int], str] | None = None

    def on_resize(self) -> None:
        if self.fit is not None:
            self.update(self.fit(self.content_size.width))
