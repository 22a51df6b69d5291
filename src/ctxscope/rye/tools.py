"""Layer 1: the tool palette.

Capability strings `rye.execute.tool.<dotted id or pattern>` select tool files under
`.ai/tools/` across the tiers; their metadata comes from `toolmeta` (never by running them).
Non-primary tools are admitted in priority order
(specific capabilities before wildcards) while they fit `tool_preload.max_tokens` at 4 chars
per token over len(JSON schema) + len(description); one that does not fit is skipped and later
smaller ones may still fit. Primary actions, narrowed to the granted actions, are always
registered and do not count against the budget.
"""

from __future__ import annotations

from typing import Any

import yaml

from ctxscope.model import Diagnostic
from ctxscope.rye.model import Palette, ToolEntry
from ctxscope.rye.tiers import TOOL_EXTS, Index, Space, cache_for, parse_cached
from ctxscope.rye.toolcache import ToolCache
from ctxscope.rye.toolmeta import tool_meta, tool_metadata
from ctxscope.snapshot import Snapshot
from ctxscope.tokens import CHARS_PER_TOKEN, estimate_tokens
from ctxscope.yamlload import load_yaml, yaml_diagnostic

PRIMARIES = {"execute": "rye_execute", "fetch": "rye_fetch", "sign": "rye_sign"}
_ACTION_PRIMARY = {
    "execute": "execute",
    "fetch": "fetch",
    "search": "fetch",
    "load": "fetch",
    "sign": "sign",
}
_PRIMARY_PREFIX = "rye/primary/"
DEFAULT_BUDGET = 2000


def api_name(tool_id: str) -> str:
    """`rye/file-system/read` -> `rye_file_system_read`."""
    return tool_id.replace("/", "_").replace("-", "_").replace(".", "_")


def _tool_pattern(cap: str) -> str | None:
    if cap in ("rye.*", "rye.execute.*", "rye.execute.tool.*"):
        return "*"
    prefix = "rye.execute.tool."
    if cap.startswith(prefix) and len(cap) > len(prefix):
        return cap[len(prefix) :].replace(".", "/")
    return None


def _specificity(pattern: str) -> int:
    if "*" not in pattern:
        return 1000
    return len([p for p in pattern.split("*")[0].split("/") if p])


def _matches(pattern: str, tool_id: str) -> bool:
    if pattern == "*":
        return True
    if pattern.endswith("/*") and "*" not in pattern[:-2]:
        return tool_id.startswith(pattern[:-1])
    if "*" in pattern:
        from fnmatch import fnmatchcase

        return fnmatchcase(tool_id, pattern)
    return tool_id == pattern


def granted_actions(caps: list[str]) -> dict[str, set[str]]:
    """primary action -> item types it may act on."""
    out: dict[str, set[str]] = {}
    for cap in caps:
        parts = cap.split(".")
        if len(parts) < 2 or parts[0] != "rye":
            continue
        if parts[1] == "*":
            for a in PRIMARIES:
                out.setdefault(a, set()).update(("tool", "directive", "knowledge"))
            continue
        primary = _ACTION_PRIMARY.get(parts[1])
        if primary is None:
            continue
        types = out.setdefault(primary, set())
        if len(parts) == 2 or parts[2] == "*":
            types.update(("tool", "directive", "knowledge"))
        elif parts[2] in ("tool", "directive", "knowledge"):
            types.add(parts[2])
    return out


def preload_config(
    snapshot: Snapshot, spaces: list[Space]
) -> tuple[bool, int, str, list[Diagnostic]]:
    """(enabled, max_tokens, source) of `tool_preload` from resilience.yaml (first tier)."""
    diags: list[Diagnostic] = []
    enabled, budget, source = True, DEFAULT_BUDGET, "default"
    for space in reversed(spaces):
        path = str(space.root / "config" / "agent" / "resilience.yaml")

        def parse(text: str, path: str = path) -> tuple[Any, list[Diagnostic]]:
            try:
                return load_yaml(text), []
            except yaml.YAMLError as exc:
                return None, [yaml_diagnostic(exc, path, "rye-yaml", what="resilience.yaml")]

        res = parse_cached(snapshot, "resilience", path, parse)
        if res is None:
            continue
        data, d = res
        diags.extend(d)
        tp = data.get("tool_preload") if isinstance(data, dict) else None
        if isinstance(tp, dict):
            if "enabled" in tp:
                enabled = tp["enabled"] is not False
                source = path
            if "max_tokens" in tp:
                try:
                    budget = max(0, int(tp["max_tokens"]))
                    source = path
                except (TypeError, ValueError, OverflowError):
                    diags.append(
                        Diagnostic(
                            "error",
                            "tool_preload.max_tokens is not a finite number; the default "
                            f"{DEFAULT_BUDGET} applies",
                            path,
                            code="rye-resilience",
                        )
                    )
    return enabled, budget, source, diags


def build_palette(
    snapshot: Snapshot,
    spaces: list[Space],
    caps: list[str],
    permissions_declared: bool,
    outputs: list[dict[str, Any]],
    tool_cache: ToolCache | None = None,
) -> tuple[Palette, list[Diagnostic]]:
    enabled, budget, _source, diags = preload_config(snapshot, spaces)
    palette = Palette(enabled=enabled, budget_tokens=budget, capabilities=list(caps))
    if not enabled:
        palette.tree_text = "(tool registration disabled: tool_preload.enabled is false)"
        return palette, diags
    index = Index(snapshot, spaces, "tools", TOOL_EXTS)
    diags.extend(index.notes)
    actions = (
        granted_actions(caps)
        if permissions_declared
        else {a: {"tool", "directive", "knowledge"} for a in PRIMARIES}
    )
    for action, name in PRIMARIES.items():
        tool_id = _PRIMARY_PREFIX + action
        locs = index.get(tool_id)
        meta, d = tool_metadata(snapshot, locs[0].path, tool_cache) if locs else (None, [])
        diags.extend(d)
        entry = _entry(
            tool_id, name, meta, locs[0].tier if locs else None, locs[0].path if locs else None
        )
        entry.primary = action
        if action in actions:
            entry.reason = (
                "primary action: no permissions declared, primary actions only"
                if not permissions_declared
                else f"primary action granted ({', '.join(sorted(actions[action]))})"
            )
            entry.status = "registered"
            palette.registered.append(entry)
        else:
            entry.status, entry.reason = "skipped", f"primary action '{action}' not granted"
            palette.skipped.append(entry)
    patterns = [(p, c) for c in caps if (p := _tool_pattern(c)) is not None]
    patterns.sort(key=lambda pc: -_specificity(pc[0]))
    memo = cache_for(snapshot).memo
    memo_key = ("palette-candidates", tuple(str(s.root) for s in spaces), tuple(patterns))
    hit = memo.get(memo_key)
    if hit is not None and hit[0] is index.entries:
        candidates, missing = hit[1]
    else:
        candidates, missing = _candidates(index, patterns)
        memo[memo_key] = (index.entries, (candidates, missing))
    for pattern, cap in missing:
        palette.skipped.append(
            ToolEntry(
                pattern,
                api_name(pattern),
                "skipped",
                "granted, but no tool file found in any tier",
                capability=cap,
            )
        )

    results = []
    for tool_id, _cap in candidates:
        res = tool_metadata(snapshot, index.get(tool_id)[0].path, tool_cache)
        diags.extend(res[1])
        results.append(res)
    budget_key = ("palette-budget", memo_key)
    prev = memo.get(budget_key)
    if (
        prev is not None
        and prev[0][0] is candidates
        and prev[0][1] == budget
        and all(a is b for a, b in zip(prev[0][2], results, strict=True))
    ):
        registered, skipped, used = prev[1]
    else:
        registered, skipped, used = _admit(index, candidates, results, budget)
        memo[budget_key] = ((candidates, budget, results), (registered, skipped, used))
    palette.registered += registered
    palette.skipped += skipped
    palette.used_tokens = estimate_tokens(used)
    if outputs:
        props = {
            str(o["name"]): {
                "type": o.get("type", "string"),
                "description": o.get("description", ""),
            }
            for o in outputs
        }
        schema = {
            "type": "object",
            "properties": props,
            "required": [str(o["name"]) for o in outputs if o.get("required")],
        }
        ret = _entry(
            "rye/agent/threads/directive_return",
            "directive_return",
            tool_meta(schema, "Return the directive's outputs"),
            None,
            None,
        )
        ret.status, ret.primary = "registered", "execute"
        ret.reason = "the directive declares <outputs>"
        palette.registered.append(ret)
    palette.tree, palette.tree_text = capabilities_tree(palette, actions)
    return palette, diags


def _admit(
    index: Index,
    candidates: list[tuple[str, str]],
    results: list[tuple[dict[str, Any] | None, list[Diagnostic]]],
    budget: int,
) -> tuple[list[ToolEntry], list[ToolEntry], int]:
    """Admit tools in order while they fit; a tool that does not fit is skipped and later
    (smaller) ones may still fit. Returns (registered, skipped, chars used)."""
    registered: list[ToolEntry] = []
    skipped: list[ToolEntry] = []
    max_chars = budget * CHARS_PER_TOKEN
    used = 0
    for (tool_id, cap), (meta, d) in zip(candidates, results, strict=True):
        loc = index.get(tool_id)[0]
        entry = _entry(tool_id, api_name(tool_id), meta, loc.tier, loc.path)
        entry.capability = cap
        if meta is None:
            entry.status = "skipped"
            entry.reason = (
                "no CONFIG_SCHEMA (or parameters) readable without running it"
                if not d
                else "tool file could not be read: " + d[0].message
            )
            skipped.append(entry)
        elif used + entry.chars <= max_chars:
            used += entry.chars
            entry.status, entry.reason = "registered", f"granted by {cap}; fits the budget"
            registered.append(entry)
        else:
            left = estimate_tokens(max_chars - used) if max_chars > used else 0
            entry.status, entry.over_budget = "skipped", True
            entry.reason = (
                f"skipped by budget: needs ≈{entry.tokens} tokens, ≈{left} of {budget} left"
            )
            skipped.append(entry)
    return registered, skipped, used


def _candidates(
    index: Index, patterns: list[tuple[str, str]]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(tool id, granting capability) in priority order, and exact grants with no file."""
    candidates: list[tuple[str, str]] = []
    missing: list[tuple[str, str]] = []
    seen: set[str] = set()
    all_ids = sorted(
        i for i in index.entries if not i.startswith(_PRIMARY_PREFIX) and not i.endswith("__init__")
    )
    for pattern, cap in patterns:
        if "*" not in pattern and pattern not in index.entries and pattern not in seen:
            seen.add(pattern)
            missing.append((pattern, cap))
            continue
        for tool_id in all_ids if "*" in pattern else [pattern]:
            if tool_id not in seen and _matches(pattern, tool_id):
                seen.add(tool_id)
                candidates.append((tool_id, cap))
    return candidates, missing


def _entry(
    tool_id: str, name: str, meta: dict[str, Any] | None, tier: Any, path: str | None
) -> ToolEntry:
    schema = meta["schema"] if meta else None
    desc = meta["description"] if meta else ""
    chars = meta.get("chars", 0) if meta else 0
    return ToolEntry(
        tool_id,
        name,
        "skipped",
        "",
        tier,
        path,
        desc,
        schema,
        chars=chars,
        tokens=estimate_tokens(chars),
    )


def capabilities_tree(palette: Palette, actions: dict[str, set[str]]) -> tuple[dict[str, Any], str]:
    """primary -> item type -> (for execute/tool) namespace -> tool names; and its text."""
    tree: dict[str, Any] = {}
    tools = [t for t in palette.registered if t.primary is None]
    for action, name in PRIMARIES.items():
        if action not in actions:
            continue
        node: dict[str, Any] = {}
        for item_type in ("directive", "tool", "knowledge"):
            if item_type not in actions[action]:
                continue
            sub: dict[str, list[str]] = {}
            if action == "execute" and item_type == "tool":
                for t in tools:
                    ns, _, bare = t.id.rpartition("/")
                    sub.setdefault(ns, []).append(bare)
            node[item_type] = dict(sorted(sub.items()))
        tree[name] = node
    lines: list[str] = []
    for name, node in tree.items():
        lines.append(name)
        types = list(node.items())
        for i, (item_type, sub) in enumerate(types):
            last = i == len(types) - 1
            lines.append(("└─ " if last else "├─ ") + item_type)
            trunk = "   " if last else "│  "
            groups = list(sub.items())
            for j, (ns, names) in enumerate(groups):
                branch = "└─ " if j == len(groups) - 1 else "├─ "
                lines.append(f"{trunk}{branch}{ns or '.'}: {', '.join(names)}")
    return tree, "\n".join(lines)
