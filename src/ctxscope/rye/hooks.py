"""hooks.yaml loading and evaluation.

Hooks come from `config/agent/hooks.yaml` in the project, user and system spaces, plus the two
built-in context hooks (`ctx_environment`, `ctx_directive_instruction`). Ordering follows Rye:
a hook without `layer` gets its source's default (user 0, built-in/system 2, project 3); hooks
are sorted by layer, ties kept in listing order — user, built-in, system, project for
`thread_started`/`thread_continued`, and project, user, built-in, system for `resolve_extends`
(whose first match wins).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from ctxscope.model import Diagnostic
from ctxscope.rye import conditions
from ctxscope.rye.model import Tier
from ctxscope.rye.tiers import Space, parse_cached
from ctxscope.snapshot import Snapshot
from ctxscope.yamlload import compose_yaml, load_yaml, yaml_diagnostic

HOOKS_FILE = ("config", "agent", "hooks.yaml")
EVENTS = ("resolve_extends", "thread_started", "thread_continued")
_DEFAULT_LAYER = {"user": 0, "built-in": 2, "system": 2, "project": 3}

BUILTIN_HOOKS: list[dict[str, Any]] = [
    {
        "id": "ctx_environment",
        "event": "thread_started",
        "layer": 2,
        "position": "before",
        "action": {
            "primary": "execute",
            "item_type": "knowledge",
            "item_id": "rye/agent/core/Environment",
        },
    },
    {
        "id": "ctx_directive_instruction",
        "event": "thread_started",
        "layer": 2,
        "position": "before",
        "wrap": False,
        "action": {
            "primary": "execute",
            "item_type": "knowledge",
            "item_id": "rye/agent/core/DirectiveInstruction",
        },
    },
]


@dataclass
class Hook:
    id: str
    event: str
    layer: int
    source: str
    tier: Tier | None
    origin: str
    """`built-in`, `project`, `user` or `system`."""
    condition: Any
    action: dict[str, Any]
    position: str = "before"
    wrap: bool = True
    problems: list[str] = field(default_factory=list)
    line: int | None = None


def _parse_hooks_file(text: str, path: str) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        return [], [yaml_diagnostic(exc, path, "rye-yaml", what="hooks file")]
    if data is None:
        return [], []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, list):
        return [], [
            Diagnostic(
                "error", "hooks file needs a top-level `hooks:` list", path, code="rye-hooks"
            )
        ]
    lines = _hook_lines(text)
    out: list[dict[str, Any]] = []
    diags: list[Diagnostic] = []
    for i, h in enumerate(hooks):
        if not isinstance(h, dict):
            diags.append(
                Diagnostic("error", f"hook #{i + 1} is not a mapping", path, code="rye-hooks")
            )
            continue
        h = dict(h)
        h["_line"] = lines[i] if i < len(lines) else None
        out.append(h)
    return out, diags


def _hook_lines(text: str) -> list[int]:
    """Line numbers (1-based) of each entry of the top-level `hooks:` list."""
    try:
        root = compose_yaml(text)
    except yaml.YAMLError:
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if getattr(key, "value", None) == "hooks" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def load_hooks(snapshot: Snapshot, spaces: list[Space]) -> tuple[list[Hook], list[Diagnostic]]:
    """Every hook from every space plus the built-ins, validated (not yet ordered)."""
    hooks: list[Hook] = []
    diags: list[Diagnostic] = []
    raw: list[tuple[dict[str, Any], str, Tier | None, str]] = [
        (h, "built-in", None, "built-in") for h in BUILTIN_HOOKS
    ]
    for space in spaces:
        path = str(space.root.joinpath(*HOOKS_FILE))
        res = parse_cached(snapshot, "hooks", path, _hooks_parser(path))
        if res is None:
            continue
        entries, file_diags = res
        diags.extend(file_diags)
        raw.extend((h, path, space.tier, space.tier) for h in entries)
    for h, source, tier, origin in raw:
        line = h.get("_line")
        hid = str(h.get("id") or f"<unnamed hook in {source}>")
        event = str(h.get("event") or "")
        raw_action = h.get("action")
        action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
        problems = conditions.validate(h.get("condition"))
        try:
            layer = int(h.get("layer", _DEFAULT_LAYER[origin]))
        except (TypeError, ValueError):
            problems.append(f"layer {h.get('layer')!r} is not a number")
            layer = _DEFAULT_LAYER[origin]
        position = str(h.get("position", "before"))
        if position not in ("before", "after"):
            problems.append(f"position {position!r} is not before/after")
        if event not in EVENTS:
            diags.append(
                Diagnostic(
                    "warning",
                    f"hook {hid}: event {event!r} is not simulated (only {', '.join(EVENTS)})",
                    source,
                    line,
                    code="rye-hook-event",
                )
            )
        for p in problems:
            diags.append(
                Diagnostic("error", f"hook {hid}: {p}", source, line, code="rye-hook-condition")
            )
        hooks.append(
            Hook(
                hid,
                event,
                layer,
                source,
                tier,
                origin,
                h.get("condition"),
                action,
                position,
                h.get("wrap", True) is not False,
                problems,
                line,
            )
        )
    return hooks, diags


def _hooks_parser(path: str) -> Callable[[str], tuple[list[dict[str, Any]], list[Diagnostic]]]:
    return lambda text: _parse_hooks_file(text, path)


_ORDER = {
    "resolve_extends": ("project", "user", "built-in", "system"),
    "thread_started": ("user", "built-in", "system", "project"),
    "thread_continued": ("user", "built-in", "system", "project"),
}


def ordered(hooks: list[Hook], event: str) -> list[Hook]:
    rank = _ORDER.get(event, _ORDER["thread_started"])
    selected = [h for h in hooks if h.event == event]
    selected.sort(key=lambda h: (h.layer, rank.index(h.origin)))
    return selected


def check(
    hook: Hook, context: dict[str, Any], diags: list[Diagnostic] | None = None
) -> tuple[bool, str]:
    """(matched, why) for one hook against the hook context; errors never raise. A problem
    only evaluation finds (a regex over its time bound) also goes to `diags`."""
    if hook.problems:
        return False, "not evaluated: " + "; ".join(hook.problems)
    try:
        matched = conditions.evaluate(hook.condition, context)
    except conditions.ConditionError as exc:
        if diags is not None:
            diags.append(
                Diagnostic(
                    "error",
                    f"hook {hook.id}: {exc}",
                    hook.source,
                    hook.line,
                    code="rye-hook-condition",
                )
            )
        return False, f"not evaluated: {exc}"
    desc = conditions.describe(hook.condition)
    if matched:
        return True, f"condition matched: {desc}"
    actual = _actual(hook.condition, context)
    return False, f"condition false: {desc}{actual}"


def _actual(condition: Any, context: dict[str, Any]) -> str:
    if isinstance(condition, dict) and isinstance(condition.get("path"), str):
        value = conditions.resolve_path(context, condition["path"])
        return f" (actual {value!r})"
    return ""


_INTERP = re.compile(r"\$\{([^}]+)\}")


def interpolate(text: str, context: dict[str, Any]) -> str:
    """`${inputs.env}` in a hook's item_id -> the value from the hook context."""

    def sub(m: re.Match[str]) -> str:
        value = conditions.resolve_path(context, m.group(1).strip())
        return "" if value is None else str(value)

    return _INTERP.sub(sub, text)
