"""The "lost in the subagent" line above the panes: focusable, so `w` (or Enter, or a click)
opens the reasons and remedies for everything the subagent does not get."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from ctxscope.tui.widgets.one_line import OneLine

LOST = "\0lost"
"""The item name `current_item` gives when the line is focused."""


class LostLine(OneLine, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "choose", "Why", show=False)]

    class Chosen(Message):
        """The user asked for the reasons and remedies."""

    def action_choose(self) -> None:
        self.post_message(self.Chosen())

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Chosen())
