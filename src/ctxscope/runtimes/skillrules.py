"""A release's skills budget as its profile states it (`skills_budget`): the rule it follows
(`compact` or `cut`, see `ctxscope.runtimes.openclaw.skillbudget`) and the sizes measured on
its skills loader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxscope.core.record import record

STYLES = ("compact", "cut")


@record(frozen=True)
class BudgetRules:
    """A release's skills budget (see the module's docstring); sizes measured on its loader."""

    style: str
    max_chars: int
    max_count: int
    intro_chars: int
    """Chars of the runtime's catalog before `<available_skills>` in its full form (its
    leading blank lines included)."""
    notes: dict[str, int]
    """Chars of the notes above the catalog: `truncated` without its two numbers; 2026.9's
    compact notes and the compact details a truncated note adds."""
    load_line: dict[str, int]
    """The catalog's loading line in the compact forms, in chars more than the full form's
    (`name`: descriptions left out; `name_or_description`: shortened)."""
    describe_min: int = 4
    describe_max: int = 220
    context_divisor: int = 0
    context_describe_min: int = 64
    agent_limits: bool = False


def budget_rules(raw: dict[str, Any], fail: Callable[[str], Exception]) -> BudgetRules | None:
    """A profile's `skills_budget` mapping as rules (None: the profile sets none)."""
    if not raw:
        return None
    style = raw.get("style")
    if style not in STYLES:
        raise fail(f"`skills_budget.style` must be one of {list(STYLES)}")

    def number(key: str, default: int | None = None) -> int:
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(f"`skills_budget.{key}` must be a whole number ≥ 0")
        return value

    def sizes(key: str) -> dict[str, int]:
        value = raw.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value.values()
        ):
            raise fail(f"`skills_budget.{key}` must map names to whole numbers")
        return {str(k): v for k, v in value.items()}

    return BudgetRules(
        style=style,
        max_chars=number("max_chars"),
        max_count=number("max_count"),
        intro_chars=number("intro_chars"),
        notes=sizes("notes"),
        load_line=sizes("load_line"),
        describe_min=number("describe_min", 4),
        describe_max=number("describe_max", 220),
        context_divisor=number("context_divisor", 0),
        context_describe_min=number("context_describe_min", 64),
        agent_limits=bool(raw.get("agent_limits", False)),
    )
