"""hooks.yaml loading and evaluation.

Hooks come from `config/agent/hooks.yaml` in the project, user and system spaces, plus the Rye
profile's built-in context hooks. A hook without `layer` gets its source's default (user 0,
built-in/system 2, project 3). The profile decides the order (`ordered`) and which sources the
runtime reads at all (ryeos reads no system-space hooks.yaml).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import field
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.secrets import describe
from ctxscope.core.yamlload import compose_yaml, load_yaml, yaml, yaml_diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import conditions
from ctxscope.runtimes.rye.configmerge import merge, read_configs
from ctxscope.runtimes.rye.prompt import INPUT_REF, fill_input_refs
from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.threaddata import Directive, Tier
from ctxscope.runtimes.rye.tiers import Space, outside_space, parse_cached

HOOKS_FILE = ("config", "agent", "hooks.yaml")
EVENTS = ("resolve_extends", "build_system_prompt", "thread_started", "thread_continued")
_DEFAULT_LAYER = {"user": 0, "directive": 1, "built-in": 2, "system": 2, "project": 3}


@record
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
    actions: list[dict[str, Any]] = field(default_factory=list)
    """Every action the hook runs, in order: its `actions:` list (ryeos 0.1), else its one
    `action`."""


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


def load_hooks(
    snapshot: Snapshot,
    spaces: list[Space],
    profile: RyeSemantics,
    directive: Directive | None = None,
) -> tuple[list[Hook], list[Diagnostic]]:
    """Every hook from every space plus the profile's built-ins and `directive`'s own
    `<hooks>` (origin `directive`, layer 1 by default), validated (not yet ordered)."""
    diags: list[Diagnostic] = []
    written = _written_hooks(snapshot, spaces, profile, directive, diags)
    hooks = [_validated(entry, profile, diags) for entry in written]
    return hooks, diags


_Written = tuple[dict[str, Any], str, Tier | None, str]
"""A hook as written, with its source, tier and origin."""


def _written_hooks(
    snapshot: Snapshot,
    spaces: list[Space],
    profile: RyeSemantics,
    directive: Directive | None,
    diags: list[Diagnostic],
) -> list[_Written]:
    """The hooks as written: the built-ins (merged with the spaces' hook conditions when the
    runtime does so), each space's hooks.yaml, then the directive's own."""
    written: list[_Written] = [(h, "built-in", None, "built-in") for h in profile.builtin_hooks]
    if profile.hook_conditions_merge:
        written, d = _merged_builtins(snapshot, spaces, profile)
        diags += d
    for space in spaces:
        path = str(space.root.joinpath(*HOOKS_FILE))
        if (note := outside_space(space, path)) is not None:
            diags.append(note)
            continue
        res = parse_cached(snapshot, "hooks", path, _hooks_parser(path))
        if res is None:
            continue
        entries, file_diags = res
        diags.extend(file_diags)
        written.extend((h, path, space.tier, space.tier) for h in entries)
    if directive is not None:
        written.extend((h, directive.path, directive.tier, "directive") for h in directive.hooks)
    return written


def _validated(entry: _Written, profile: RyeSemantics, diags: list[Diagnostic]) -> Hook:
    """One hook as written, read as the profile's runtime reads it; what is wrong with it
    goes to `diags` and (when it stops the hook from being evaluated) to its problems."""
    h, source, tier, origin = entry
    line = h.get("_line")
    raw_id = h.get("id") or f"<unnamed hook in {source}>"
    hid = raw_id if isinstance(raw_id, str) else describe(raw_id)
    event = str(h.get("event") or "")
    raw_action = h.get("action")
    action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
    problems = _condition_problems(h, hid, source, line, profile, diags)
    try:
        layer = int(h.get("layer", _DEFAULT_LAYER[origin]))
    except (TypeError, ValueError):
        problems.append(f"layer {describe(h.get('layer'))} is not a number")
        layer = _DEFAULT_LAYER[origin]
    position = h.get("position", "before")
    if position not in ("before", "after"):
        problems.append(f"position {describe(position)} is not before/after")
        position = str(position)
    if event not in EVENTS:
        diags.append(
            Diagnostic(
                "warning",
                f"hook {hid}: event {describe(h.get('event'))} is not simulated "
                f"(only {', '.join(EVENTS)})",
                source,
                line,
                code="rye-hook-event",
            )
        )
    for p in problems:
        diags.append(
            Diagnostic("error", f"hook {hid}: {p}", source, line, code="rye-hook-condition")
        )
    return Hook(
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
        _actions(h, action, profile),
    )


def _actions(
    h: dict[str, Any], action: dict[str, Any], profile: RyeSemantics
) -> list[dict[str, Any]]:
    """Every action hook `h` runs: its `actions:` list when the runtime reads one, else its
    one `action`."""
    many = h.get("actions") if profile.several_actions else None
    if isinstance(many, list) and many:
        return [a for a in many if isinstance(a, dict)]
    return [action] if action else []


def _condition_problems(
    h: dict[str, Any],
    hid: str,
    source: str,
    line: int | None,
    profile: RyeSemantics,
    diags: list[Diagnostic],
) -> list[str]:
    """What keeps hook `h`'s condition from being evaluated. ryeos reads an unknown op as
    false and fails only when it evaluates a bad pattern or comparison: under it each is a
    warning now, decided when the hook is evaluated."""
    problems = conditions.validate(h.get("condition"))
    if not profile.ryeos_conditions:
        return problems
    for p in problems:
        diags.append(
            Diagnostic(
                "warning",
                f"hook {hid}: {p} ({profile.runtime}: "
                + (
                    "false)"
                    if "unknown condition op" in p
                    else "the thread fails if it is evaluated)"
                ),
                source,
                line,
                code="rye-hook-condition",
            )
        )
    return []


CONDITIONS_FILE = "hook_conditions.yaml"


def _merged_builtins(
    snapshot: Snapshot, spaces: list[Space], profile: RyeSemantics
) -> tuple[list[_Written], list[Diagnostic]]:
    """ryeos's built-in hooks: its own hook_conditions.yaml (the profile's built-ins stand
    for its `context_hooks`) with the user's and then the project's
    `config/agent/hook_conditions.yaml` merged over it, lists by hook id (an entry with a
    known id replaces it, new ones go last); `builtin_hooks` then `context_hooks`."""
    files, diags = read_configs(
        snapshot, [s for s in spaces if s.tier != "system"], CONDITIONS_FILE
    )
    merged: dict[str, Any] = {"context_hooks": list(profile.builtin_hooks)}
    where: dict[Any, tuple[str, Tier]] = {}
    for space, path, data in files:  # the last file to name an id supplied it
        merged = merge(merged, data)
        for key in ("builtin_hooks", "context_hooks"):
            entries = data.get(key)
            for h in entries if isinstance(entries, list) else []:
                if isinstance(h, dict) and h.get("id") is not None:
                    where[h["id"]] = (path, space.tier)
    out: list[_Written] = []
    for key in ("builtin_hooks", "context_hooks"):
        entries = merged.get(key)
        for h in entries if isinstance(entries, list) else []:
            if isinstance(h, dict):
                hid = h.get("id")
                source, tier = (
                    where.get(hid, ("built-in", None))
                    if hid is not None
                    else (
                        "built-in",
                        None,
                    )
                )
                mine = h in profile.builtin_hooks and source == "built-in"
                out.append((h, "built-in" if mine else source, tier, "built-in"))
    return out, diags


def _hooks_parser(path: str) -> Callable[[str], tuple[list[dict[str, Any]], list[Diagnostic]]]:
    return lambda text: _parse_hooks_file(text, path)


_LAYERED_RESOLVE_ORDER = ("project", "user", "built-in", "system")


def ordered(hooks: list[Hook], event: str, profile: RyeSemantics) -> list[Hook]:
    """The hooks of `event` in the order the profile's runtime tries them: resolve_extends in
    ryeos origin by origin in file order (layer ignored); otherwise by layer, ties by origin.
    Hooks from an origin the runtime does not read are left out."""
    if event == "resolve_extends":
        rank = profile.resolve_extends_order or _LAYERED_RESOLVE_ORDER
        by_layer = profile.resolve_extends_order is None
    else:
        rank, by_layer = profile.context_order, True
    selected = [h for h in hooks if h.event == event and h.origin in rank]
    selected.sort(key=lambda h: (h.layer if by_layer else 0, rank.index(h.origin)))
    return selected


def check(
    hook: Hook,
    context: dict[str, Any],
    diags: list[Diagnostic] | None = None,
    profile: RyeSemantics | None = None,
) -> tuple[bool, str]:
    """(matched, why) for one hook against the hook context; errors never raise. A problem
    only evaluation finds (a regex over its time bound) also goes to `diags`; under ryeos an
    evaluation error is the runtime's own exception: the thread would not start
    (`rye-thread-refused`)."""
    if hook.problems:
        return False, "not evaluated: " + "; ".join(hook.problems)
    ryeos = profile is not None and profile.ryeos_conditions
    try:
        matched = (conditions.evaluate_ryeos if ryeos else conditions.evaluate)(
            hook.condition, context
        )
    except conditions.ConditionError as exc:
        if ryeos and profile is not None and "did not finish" not in str(exc):
            if diags is not None:
                diags.append(
                    Diagnostic(
                        "error",
                        f"hook {hook.id}: {exc}: {profile.runtime} raises here and the thread "
                        "does not start",
                        hook.source,
                        hook.line,
                        code="rye-thread-refused",
                    )
                )
            return False, f"condition error: {exc} (the thread would not start)"
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


_PIPES: dict[str, Callable[[Any], Any]] = {
    "json": lambda v: json.dumps(v, default=str),
    "from_json": lambda v: json.loads(v) if isinstance(v, str) else v,
    "length": lambda v: len(v) if v is not None else 0,
    "keys": lambda v: list(v.keys()) if isinstance(v, dict) else [],
    "upper": lambda v: str(v).upper(),
    "lower": lambda v: str(v).lower(),
}


def _expression(context: dict[str, Any], expr: str) -> Any:
    """`a.b || c | upper`: the first non-None path, then the pipes."""
    pieces = re.split(r"(?<!\|)\|(?!\|)", expr, maxsplit=1)
    path_expr, pipes = pieces[0], pieces[1] if len(pieces) > 1 else ""
    value = None
    for part in path_expr.split("||"):
        value = conditions.resolve_path(context, part.strip())
        if value is not None:
            break
    if pipes and value is not None:
        for name in pipes.split("|"):
            fn = _PIPES.get(name.strip())
            if fn is not None:
                try:
                    value = fn(value)
                except (TypeError, ValueError):
                    return None
    return value


def interpolate(text: str, context: dict[str, Any]) -> str:
    """A hook's `item_id` (and, in ryeos, its loaded text) filled from the hook context:
    `${path}` (with `||` fallbacks and `| pipe` filters; an unresolved one becomes empty),
    then `{input:name}` from the context's inputs (`{input:name?}` empty when absent,
    `{input:name:default}` its default)."""

    def sub(m: re.Match[str]) -> str:
        value = _expression(context, m.group(1))
        return "" if value is None else str(value)

    result = _INTERP.sub(sub, text)
    inputs = context.get("inputs") or {}
    if inputs and INPUT_REF.search(result):
        result = fill_input_refs(result, inputs)
    return result
