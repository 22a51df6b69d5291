"""What a Rye chain's capabilities grant: the actions each allows (ryeos's
`rye.<action>.<kind>.<id>` patterns), a tool id's API name, and the tree of what the palette
admits by capability."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.threaddata import Palette

PRIMARIES = {"execute": "rye_execute", "fetch": "rye_fetch", "sign": "rye_sign"}


ACTION_PRIMARY = {
    "execute": "execute",
    "fetch": "fetch",
    "search": "fetch",
    "load": "fetch",
    "sign": "sign",
}


PRIMARY_PREFIX = "rye/primary/"


def api_name(tool_id: str) -> str:
    """`rye/file-system/read` -> `rye_file_system_read`."""
    return tool_id.replace("/", "_").replace("-", "_").replace(".", "_")


def tool_pattern(cap: str, broad: bool = True) -> str | None:
    """The tool-id pattern a capability grants; `broad`: `rye.*`/`rye.execute.*`/
    `rye.execute.tool.*` grant every tool (Rye's docs), else nothing (ryeos 0.1)."""
    if cap in ("rye.*", "rye.execute.*", "rye.execute.tool.*"):
        return "*" if broad else None
    prefix = "rye.execute.tool."
    if cap.startswith(prefix) and len(cap) > len(prefix):
        return cap[len(prefix) :].replace(".", "/")
    return None


def specificity(pattern: str) -> int:
    if "*" not in pattern:
        return 1000
    return len([p for p in pattern.split("*")[0].split("/") if p])


def matches(pattern: str, tool_id: str) -> bool:
    if pattern == "*":
        return True
    if pattern.endswith("/*") and "*" not in pattern[:-2]:
        return tool_id.startswith(pattern[:-1])
    if "*" in pattern:
        return fnmatchcase(tool_id, pattern)
    return tool_id == pattern


_RYEOS_PREFIXES = (
    ("rye.execute.tool.", "execute", "tool"),
    ("rye.execute.directive.", "execute", "directive"),
    ("rye.execute.knowledge.", "execute", "knowledge"),
    ("rye.fetch.directive.", "fetch", "directive"),
    ("rye.fetch.tool.", "fetch", "tool"),
    ("rye.fetch.knowledge.", "fetch", "knowledge"),
    ("rye.fetch.", "fetch", None),
    ("rye.sign.directive.", "sign", "directive"),
    ("rye.sign.tool.", "sign", "tool"),
    ("rye.sign.knowledge.", "sign", "knowledge"),
    ("rye.sign.", "sign", None),
)
"""How ryeos 0.1's tool_schema_loader classifies a capability: the first prefix with
something after it wins; `rye.*`, `rye.execute.*` and anything else grant nothing."""


def _ryeos_classify(cap: str) -> tuple[str, str | None, str] | None:
    for prefix, action, sub_type in _RYEOS_PREFIXES:
        if cap.startswith(prefix) and len(cap) > len(prefix):
            rest = cap[len(prefix) :]
            return action, sub_type, rest.replace(".", "/") if sub_type == "tool" else rest
    return None


def granted_actions(caps: list[str], profile: RyeSemantics | None = None) -> dict[str, set[str]]:
    """primary action -> item types it may act on."""
    out: dict[str, set[str]] = {}
    if profile is not None and not profile.broad_execute_grants_tools:
        for cap in caps:
            hit = _ryeos_classify(cap)
            if hit is not None:
                types = out.setdefault(hit[0], set())
                types.update((hit[1],) if hit[1] else ("tool", "directive", "knowledge"))
        return out
    for cap in caps:
        parts = cap.split(".")
        if len(parts) < 2 or parts[0] != "rye":
            continue
        if parts[1] == "*":
            for a in PRIMARIES:
                out.setdefault(a, set()).update(("tool", "directive", "knowledge"))
            continue
        primary = ACTION_PRIMARY.get(parts[1])
        if primary is None:
            continue
        types = out.setdefault(primary, set())
        if len(parts) == 2 or parts[2] == "*":
            types.update(("tool", "directive", "knowledge"))
        elif parts[2] in ("tool", "directive", "knowledge"):
            types.add(parts[2])
    return out


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
