"""Small helpers shared by the panels: theme colours as Rich styles, status words."""

from __future__ import annotations

from rich.text import Text
from textual.app import App
from textual.color import Color

DEFAULTS = {
    "ctx-muted": "#9AA3B2",
    "ctx-missing": "#F26D78",
    "ctx-truncated": "#F0A35E",
    "ctx-placeholder": "#8A93A6",
    "ctx-heading": "#7DCFFF",
    "ctx-added": "#7FCF8C",
    "ctx-removed": "#F26D78",
    "ctx-added-background": "#7FCF8C1F",
    "ctx-removed-background": "#F26D781F",
    "ctx-section-rule": "#3A4050",
    "ctx-budget-ok": "#7FCF8C",
    "ctx-budget-high": "#E5A54B",
    "ctx-budget-over": "#F26D78",
    "ctx-map-file-1": "#7AA2F7",
    "ctx-map-file-2": "#E0AF68",
    "ctx-map-file-3": "#9ECE6A",
    "ctx-map-file-4": "#BB9AF7",
    "ctx-map-file-5": "#2AC3DE",
    "ctx-map-file-6": "#FF9E64",
    "ctx-map-tools": "#F7768E",
    "ctx-map-skills": "#73DACA",
    "ctx-map-subagent": "#C0CAF5",
    "ctx-map-task": "#E5C07B",
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
    return Text(label or status, style=style)


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
