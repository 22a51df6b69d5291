"""A truncated file's dropped text: what the runtime cut out of the prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ctxscope.tui.safe import safe


class CutScreen(ModalScreen[None]):
    """Shows `text` (what a truncation dropped) under `title`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,v", "close", "Close"),
        Binding("c", "copy", "Copy"),
        Binding("o", "open", "Open in the editor"),
    ]

    def __init__(
        self,
        title: str,
        text: str,
        copy: Callable[[str], None],
        open_file: Callable[[], None] | None = None,
    ) -> None:
        """`copy(text)` copies the text out (clipboard and a file); `open_file()` opens the
        file in the editor at the first line cut."""
        super().__init__()
        self.title_text = title
        self.text = text
        self._copy = copy
        self._open = open_file

    def compose(self) -> ComposeResult:
        with Vertical(id="cut-dialog", classes="dialog"):
            yield Static(safe(self.title_text), classes="dialog-title", markup=False)
            with VerticalScroll():
                yield Static(safe(self.text), markup=False, id="cut-body")
            yield Static(
                "c copies the text (clipboard and a file) · o opens the file at the cut · "
                "Esc closes",
                classes="dialog-hint",
            )

    def action_copy(self) -> None:
        self._copy(self.text)

    def action_open(self) -> None:
        if self._open is not None:
            self._open()

    def action_close(self) -> None:
        self.dismiss(None)
