"""The scenario editor: target agent, task, label, model, depth, directive, profile."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, Static

FIELDS = ("target", "task", "label", "model", "depth", "directive", "profile")


class ScenarioScreen(ModalScreen[dict[str, Any] | None]):
    """Edit scenario fields. Dismisses with the edited values (an empty field means "as in
    ctxscope.yaml / the default"), or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Apply"),
    ]

    def __init__(
        self,
        values: dict[str, Any],
        *,
        agents: list[str],
        directives: list[str],
        profiles: list[str],
    ) -> None:
        super().__init__()
        self.values = values
        self.suggestions = {"target": agents, "directive": directives, "profile": profiles}

    def compose(self) -> ComposeResult:
        with Vertical(id="scenario-dialog", classes="dialog"):
            yield Static(
                "Scenario  (empty = as in ctxscope.yaml / default; Enter applies)",
                classes="dialog-title",
            )
            with Grid(id="scenario-grid"):
                for name in FIELDS:
                    yield Label(name)
                    value = self.values.get(name)
                    suggest = self.suggestions.get(name)
                    yield Input(
                        "" if value is None else str(value),
                        id=f"field-{name}",
                        type="integer" if name == "depth" else "text",
                        suggester=SuggestFromList(suggest, case_sensitive=False)
                        if suggest
                        else None,
                    )
            yield Static(markup=False, id="scenario-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    def collect(self) -> dict[str, Any] | None:
        out: dict[str, Any] = {}
        for name in FIELDS:
            text = self.query_one(f"#field-{name}", Input).value.strip()
            if name == "depth" and text:
                if not text.isdigit():
                    self.query_one("#scenario-error", Static).update(
                        "depth must be a whole number ≥ 0"
                    )
                    return None
                out[name] = int(text)
            else:
                out[name] = text or None
        return out

    def action_save(self) -> None:
        values = self.collect()
        if values is not None:
            self.dismiss(values)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_save()
        else:
            self.action_cancel()
