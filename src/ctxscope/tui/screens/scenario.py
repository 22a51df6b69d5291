"""The scenario editor: every scenario field a build reads, the agents, directives, profiles,
Rye profiles and prompt modes offered as choices, switches for the yes/no fields, numbers
and lists checked before they apply."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, Switch

from ctxscope.core.safetext import terminal_safe
from ctxscope.runtimes.rye import profile_names as rye_profile_names

FIELDS = (
    "requester",
    "target",
    "task",
    "label",
    "model",
    "thinking",
    "depth",
    "active_children",
    "channel",
    "tools",
    "timezone",
    "prompt_mode",
    "directive",
    "inputs",
    "rye_profile",
    "continued",
    "profile",
    "user",
    "setup_completed",
)
CHOICES = ("requester", "target", "prompt_mode", "directive", "rye_profile", "profile")
"""Fields picked from a list (blank: as in ctxscope.yaml / the default)."""
NUMBERS = ("depth", "active_children")
SWITCHES = ("continued", "setup_completed")
"""Yes/no fields: what the switch shows applies (off is applied too)."""
HINTS = {
    "tools": "comma-separated: read, exec, message",
    "inputs": "Rye directive inputs: key=value, key=value",
    "thinking": "off, low, medium, high",
    "timezone": "an IANA zone: Europe/Lisbon",
    "user": "GoClaw: the users.json user sending the message",
}


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
        self.choices = {
            "requester": agents,
            "target": agents,
            "directive": directives,
            "profile": profiles,
            "prompt_mode": ["full", "minimal", "none"],
            "rye_profile": rye_profile_names(),
        }

    def compose(self) -> ComposeResult:
        with Vertical(id="scenario-dialog", classes="dialog"):
            yield Static(
                "Scenario  (blank = as in ctxscope.yaml / default; Ctrl+S applies)",
                classes="dialog-title",
            )
            with VerticalScroll(id="scenario-scroll"), Grid(id="scenario-grid"):
                for name in FIELDS:
                    yield Label(name.replace("_", " "))
                    yield self._field(name, self.values.get(name))
            yield Static(markup=False, id="scenario-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    def _field(self, name: str, value: Any) -> Input | Select[str] | Switch:
        if name in SWITCHES:
            return Switch(bool(value), id=f"field-{name}")
        if name in CHOICES:
            options = list(dict.fromkeys(self.choices.get(name, [])))
            if isinstance(value, str) and value and value not in options:
                options.insert(0, value)
            return Select(
                [(Text(terminal_safe(o)), o) for o in options],  # text, not markup
                value=value if isinstance(value, str) and value else Select.NULL,
                allow_blank=True,
                prompt="(default)",
                id=f"field-{name}",
            )
        if isinstance(value, list):
            text = ", ".join(map(str, value))
        elif isinstance(value, dict):
            text = ", ".join(f"{k}={v}" for k, v in value.items())
        else:
            text = "" if value is None else str(value)
        return Input(text, id=f"field-{name}", placeholder=HINTS.get(name, ""))

    def collect(self) -> dict[str, Any] | None:
        """The values to apply, or None (with the error shown and its field focused)."""
        out: dict[str, Any] = {}
        for name in FIELDS:
            widget = self.query_one(f"#field-{name}")
            if isinstance(widget, Switch):
                out[name] = widget.value
                continue
            if isinstance(widget, Select):
                value = widget.value
                out[name] = value if isinstance(value, str) and value else None
                continue
            assert isinstance(widget, Input)
            text = widget.value.strip()
            try:
                out[name] = _parse(name, text)
            except ValueError as exc:
                self.query_one("#scenario-error", Static).update(terminal_safe(f"{name}: {exc}"))
                widget.focus()
                return None
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


def _parse(name: str, text: str) -> Any:
    """A typed field's value (None when blank); ValueError says what is wrong."""
    if not text:
        return None
    if name in NUMBERS:
        if not text.isdigit():
            raise ValueError(f"{text!r} is not a whole number ≥ 0")
        return int(text)
    if name == "tools":
        return [t.strip() for t in text.split(",") if t.strip()] or None
    if name == "inputs":
        pairs: dict[str, str] = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"{item!r} is not key=value")
            pairs[key.strip()] = value.strip()
        return pairs or None
    return text
