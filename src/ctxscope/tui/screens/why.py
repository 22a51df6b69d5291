"""The "why" modal: for one item, whether each session (or directive) has it, the rule, and
what would give it (remedies)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ctxscope.core.model import Explanation
from ctxscope.tui.safe import safe
from ctxscope.tui.widgets.common import DEGRADED, color, presence_mark


class WhyScreen(ModalScreen[None]):
    """Shows `explanations` for `item` (the same answers as `ctxscope explain`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,w,enter", "close", "Close")]

    def __init__(self, item: str, explanations: list[Explanation]) -> None:
        super().__init__()
        self.item = item
        self.explanations = explanations

    def compose(self) -> ComposeResult:
        with Vertical(id="why-dialog", classes="dialog"):
            yield Static(safe(f"Why: {self.item}"), classes="dialog-title", markup=False)
            with VerticalScroll():
                yield Static(safe(self._body()), id="why-body")
            yield Static("Esc closes", classes="dialog-hint")

    def _body(self) -> Group | Text:
        if not self.explanations:
            return Text(f"Nothing named {self.item!r} is known to this build.")
        muted = color(self.app, "ctx-placeholder")
        parts: list[Text] = []
        if self._many_items:
            parts.append(Text(f"for {self.explanations[0].scope}", style=muted, overflow="fold"))
        for e in self.explanations:
            # The answer's first line; the rule and the source below it at the full width
            # (a long session key must not squeeze them into a narrow column).
            head = Text.assemble(
                presence_mark(self.app, e.present, e.status),
                " ",
                Text(e.item if self._many_items else e.scope, style="bold"),
                "  ",
                Text(e.status, style="bold"),
            )
            parts.append(head)
            parts.append(Text(f"  {e.rule}"))
            if e.source:
                parts.append(Text(f"  {e.source}", style=muted, overflow="fold"))
            for remedy in e.remedies:
                parts.append(Text.assemble("  → ", (remedy, color(self.app, "ctx-heading"))))
        return Group(*parts)

    @property
    def _many_items(self) -> bool:
        """The answers are about several items of one scope (what a subagent lost)."""
        return len({e.item for e in self.explanations}) > 1

    @property
    def text(self) -> str:
        """The answers as plain text (for tests and exports)."""
        return "\n".join(
            f"{_mark(e.present, e.status)} {e.item if self._many_items else e.scope} "
            f"{e.status}: {e.rule}" + "".join(f"\n  → {r}" for r in e.remedies)
            for e in self.explanations
        )

    def action_close(self) -> None:
        self.dismiss(None)


def _mark(present: bool, status: str) -> str:
    return "◐" if present and status in DEGRADED else "✓" if present else "✗"
