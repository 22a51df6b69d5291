"""The `B` dialog: pin a side as "before" (or unpin by typing `unpin`). An empty line pins
nothing and unpins nothing: the dialog stays and says what to type."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

UNPIN = "unpin"
"""What to type to unpin (`config:unpin` pins a file of that name)."""
HINT = (
    "now (the workspace as it is) · HEAD~1 or any git revision · openclaw-2026.2, "
    "openclaw-2026.9 (a profile) · the path of a config or scenario file · "
    "run:agent:main:main, run:agent:main:subagent:… (a recorded run, beside its own pane) · "
    f"git:, profile:, config:, scenario: force the kind · {UNPIN}: unpin · Esc cancels"
)
EMPTY = f"Nothing typed: type a side to pin (for example HEAD~1), {UNPIN} to unpin, or Esc."


class PinScreen(ModalScreen[str | None]):
    """Dismisses with the spec to pin (`UNPIN` unpins; None when cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: str = "") -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="pin-dialog", classes="dialog"):
            yield Static(
                "Pin a before side: the delta strip, d and the map compare against it",
                classes="dialog-title",
                markup=False,
            )
            yield Input(value=self.current, placeholder="e.g. HEAD~1", id="pin-spec")
            error = Static("", classes="dialog-error", id="pin-error", markup=False)
            error.display = False
            yield error
            yield Static(HINT, classes="dialog-hint", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        spec = event.value.strip()
        if not spec:
            error = self.query_one("#pin-error", Static)
            error.update(EMPTY)
            error.display = True
            return
        self.dismiss(spec)

    def action_cancel(self) -> None:
        self.dismiss(None)
