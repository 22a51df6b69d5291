"""A bar one line high (the top, delta, lost and status lines)."""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class OneLine(Static):
    """A Static whose size never depends on what it says (its CSS makes it one line high):
    an update redraws the line without laying the screen out again."""

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        super().update(content, layout=layout)
