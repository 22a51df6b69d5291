"""Confirmation before running the workspace's context scripts, or before revoking that."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ctxscope.tui.safe import safe


class TrustScreen(ModalScreen[bool]):
    """Ask to trust `workspace` with exactly what `listed` lists (every agent's scripts and
    every config file: the trust set's listing), or, with `revoke`, to stop trusting it;
    dismisses True for yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "Cancel"),
        Binding("y", "answer(True)", "Trust"),
    ]

    def __init__(self, workspace: str, listed: str, *, revoke: bool = False) -> None:
        super().__init__()
        self.workspace = safe(workspace)  # shown as text, control characters as stand-ins
        self.listed = safe(listed)
        self.revoke = revoke

    def compose(self) -> ComposeResult:
        listed = self.listed
        if self.revoke:
            with Vertical(id="trust-dialog", classes="dialog"):
                yield Static("Stop trusting this workspace?", classes="dialog-title")
                yield Static(
                    markup=False,
                    content=f"{self.workspace}\n\nIts context scripts run before each "
                    "simulated spawn, by the agent that spawns:",
                )
                with VerticalScroll(id="trust-list"):
                    yield Static(listed, markup=False)
                yield Static(
                    markup=False,
                    content="Revoking forgets the trust: the scripts stop running and their "
                    "cached results are dropped.",
                )
                with Horizontal(classes="dialog-buttons"):
                    yield Button("Revoke (y)", variant="warning", id="yes")
                    yield Button("Keep (n)", id="no")
            return
        with Vertical(id="trust-dialog", classes="dialog"):
            yield Static("Trust this workspace?", classes="dialog-title")
            yield Static(
                markup=False,
                content=f"{self.workspace}\n\nTrusting runs these context scripts (programs "
                "or URLs from the config) before each simulated spawn, by the agent that spawns:",
            )
            with VerticalScroll(id="trust-list"):
                yield Static(listed, markup=False)
            yield Static(
                markup=False,
                content="Remembered for this folder and exactly this list: a change asks again.",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Trust and run (y)", variant="warning", id="yes")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Give the list what the screen has left once the rest of the dialog (text and
        buttons) is shown: the list scrolls, the buttons stay in view on 80x24."""
        dialog = self.query_one("#trust-dialog", Vertical)
        listing = self.query_one("#trust-list", VerticalScroll)
        others = sum(
            w.outer_size.height + w.styles.margin.height
            for w in dialog.children
            if w is not listing
        )
        room = int(self.size.height * 0.9) - dialog.styles.gutter.height - others
        listing.styles.max_height = max(3, room)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
