"""The `/` prompt: a line to type what to find in a pane."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class SearchScreen(ModalScreen[str | None]):
    """Dismisses with the text to find (None when cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, pane: str, previous: str = "") -> None:
        super().__init__()
        self.pane = pane
        self.previous = previous

    def compose(self) -> ComposeResult:
        with Vertical(id="search-dialog", classes="dialog"):
            yield Static(f"Find in the {self.pane} pane", classes="dialog-title", markup=False)
            yield Input(value=self.previous, placeholder="text (case-insensitive)", id="search")
            yield Static(
                "Enter finds · n / N next / previous · Esc in the pane clears",
                classes="dialog-hint",
                markup=False,
            )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
