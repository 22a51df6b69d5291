"""The "lost in the subagent" line above the panes: focusable, so `w` (or Enter, or a click)
opens the reasons and remedies for everything the subagent does not get."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.visual import VisualType

from ctxscope.tui.widgets.one_line import FitLine

LOST = "\0lost"
"""The item name `current_item` gives when the line is focused."""


class LostLine(FitLine, can_focus=True):
    """One line, or two when the terminal is too narrow for what it says (its `fit` makes
    the text for the width: the figures are never cut, a list too long ends `… N more`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "choose", "Why", show=False)]
    _said = ""

    def update(self, content: VisualType = "", *, layout: bool = False) -> None:
        self._said = str(content)
        super().update(content, layout=layout)
        self._fit()

    def on_resize(self) -> None:
        super().on_resize()
        self._fit()

    def _fit(self) -> None:
        width = self.content_size.width
        lines = self._said.count("\n") + 1
        if lines == 1 and width > 0 and cell_len(self._said) > width:
            lines = 2
        if self.styles.height is None or self.styles.height.value != lines:
            self.styles.height = lines

    class Chosen(Message):
        """The user asked for the reasons and remedies."""

    def action_choose(self) -> None:
        self.post_message(self.Chosen())

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Chosen())
