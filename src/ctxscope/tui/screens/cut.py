"""A truncated file's dropped text: what the runtime cut out of the prompt."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class CutScreen(ModalScreen[None]):
    """Shows `text` (what a truncation dropped) under `title`."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,v", "close", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="cut-dialog", classes="dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            with VerticalScroll():
                yield Static(self.text, markup=False, id="cut-body")
            yield Static("Esc closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
