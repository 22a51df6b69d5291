"""Small helpers shared by the panels: theme colours as Rich styles, status words."""

from __future__ import annotations

from rich.text import Text
from textual.app import App
from textual.color import Color

DEFAULTS = {
    "ctx-muted": "#9AA3B2",
    "ctx-missing": "#FF79C6",
    "ctx-truncated": "#F0A35E",
    "ctx-placeholder": "#8A93A6",
    "ctx-heading": "#7DCFFF",
    "ctx-added": "#7FCF8C",
    "ctx-removed": "#F26D78",
    "ctx-added-background": "#7FCF8C1F",
    "ctx-removed-background": "#F26D781F",
    "ctx-section-rule": "#3A4050",
    "ctx-changed": "#A48BE0",
    "ctx-budget-ok": "#7FCF8C",
    "ctx-budget-high": "#E5A54B",
    "ctx-budget-over": "#F26D78",
    "ctx-map-file-1": "#1B8CFC",
    "ctx-map-file-2": "#E5E35F",
    "ctx-map-file-3": "#459E35",
    "ctx-map-file-4": "#F678D7",
    "ctx-map-file-5": "#51F5D4",
    "ctx-map-file-6": "#FF875F",
    "ctx-map-file-7": "#CBB7F7",
    "ctx-map-file-8": "#A1894E",
    "ctx-map-file-9": "#5DCFF3",
    "ctx-map-file-10": "#FFAFAF",
    "ctx-map-tools": "#F1517F",
    "ctx-map-schemas": "#A068E8",
    "ctx-map-skills": "#5F875F",
    "ctx-map-subagent": "#C7E7A7",
    "ctx-map-task": "#E1962F",
    "ctx-map-runtime": "#6B7385",
}
"""Fallbacks for the ctxscope theme variables (so any Textual theme works)."""

STATUS_VAR = {
    "injected": "ctx-budget-ok",
    "ok": "ctx-budget-ok",
    "truncated": "ctx-truncated",
    "missing": "ctx-missing",
    "unreadable": "ctx-missing",
    "error": "ctx-missing",
    "timeout": "ctx-missing",
    "excluded": "ctx-placeholder",
    "empty": "ctx-placeholder",
    "not-injected": "ctx-placeholder",
    "first-run": "ctx-truncated",
    "not-run": "ctx-placeholder",
    "skipped": "ctx-placeholder",
    "running": "ctx-heading",
}


def color(app: App[object], name: str) -> str:
    """A theme variable as a Rich colour (`#rrggbb`), with ctxscope defaults."""
    value = app.theme_variables.get(name) or DEFAULTS.get(name) or "default"
    try:
        return Color.parse(value).hex6
    except Exception:
        return "default"


def status_text(app: App[object], status: str, label: str | None = None) -> Text:
    var = STATUS_VAR.get(status)
    style = color(app, var) if var else ""
    if status in ("missing", "truncated", "error", "timeout"):
        style = f"bold {style}"
    return Text(status if label is None else label, style=style)


DEGRADED = frozenset({"truncated", "unreadable", "missing"})
"""Explanation statuses of something present but not whole."""


def presence_mark(app: App[object], present: bool, status: str) -> Text:
    """✓ present and whole, ◐ present but cut (truncated, a [MISSING] marker), ✗ absent."""
    if present and status in DEGRADED:
        return Text("◐", style=f"bold {color(app, 'ctx-truncated')}")
    return check_mark(app, present)


def check_mark(app: App[object], ok: bool) -> Text:
    return (
        Text("✓", style=f"bold {color(app, 'ctx-added')}")
        if ok
        else Text("✗", style=f"bold {color(app, 'ctx-removed')}")
    )
