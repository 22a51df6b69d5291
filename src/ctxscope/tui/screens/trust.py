"""Confirmation before running the workspace's context scripts, or before revoking that."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ctxscope.tui.safe import safe


class TrustScreen(ModalScreen[bool]):
    """Ask to trust `workspace` (or, with `revoke`, to stop trusting it); dismisses True for
    yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "Cancel"),
        Binding("y", "answer(True)", "Trust"),
    ]

    def __init__(self, workspace: str, scripts: list[str], *, revoke: bool = False) -> None:
        super().__init__()
        self.workspace = safe(workspace)  # shown as text, control characters as stand-ins
        self.scripts = [safe(s) for s in scripts]
        self.revoke = revoke

    def compose(self) -> ComposeResult:
        listed = "\n".join(f"  • {s}" for s in self.scripts) or "  (none configured)"
        if self.revoke:
            with Vertical(id="trust-dialog", classes="dialog"):
                yield Static("Stop trusting this workspace?", classes="dialog-title")
                yield Static(
                    markup=False,
                    content=f"{self.workspace}\n\nIts context scripts run before each "
                    f"simulated spawn:\n{listed}\n\nRevoking forgets the trust: the scripts "
                    "stop running and their cached results are dropped.",
                )
                with Horizontal(classes="dialog-buttons"):
                    yield Button("Revoke (y)", variant="warning", id="yes")
                    yield Button("Keep (n)", id="no")
            return
        with Vertical(id="trust-dialog", classes="dialog"):
            yield Static("Trust this workspace?", classes="dialog-title")
            yield Static(
                markup=False,
                content=f"{self.workspace}\n\nIts context scripts are programs (or URLs) named "
                "in the "
                f"config; trusting runs them before each simulated spawn:\n{listed}\n\n"
                "Trust is remembered for this folder and this exact config; editing the config "
                "asks again.",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Trust and run (y)", variant="warning", id="yes")
                yield Button("Cancel (n)", id="no")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
