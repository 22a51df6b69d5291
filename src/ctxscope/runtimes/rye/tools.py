"""Layer 1: the tool palette.

Capability strings `rye.execute.tool.<dotted id or pattern>` select tool files under
`.ai/tools/` across the tiers; their metadata comes from `toolmeta` (never by running them).
Non-primary tools are admitted in priority order
(specific capabilities before wildcards) while they fit `tool_preload.max_tokens` at 4 chars
per token over len(JSON schema) + len(description); one that does not fit is skipped and later
smaller ones may still fit. Primary actions, narrowed to the granted actions, are always
registered; the Rye profile says whether they count against the budget (ryeos 0.1: yes) and
whether execute-for-tools-only still registers `rye_execute` (ryeos 0.1: no).
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

from ctxscope.core.keylines import yaml_key_lines
from ctxscope.core.model import Diagnostic
from ctxscope.core.tokens import CHARS_PER_TOKEN, estimate_tokens
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import measured
from ctxscope.runtimes.rye.capabilities import (
    PRIMARIES,
    PRIMARY_PREFIX,
    api_name,
    capabilities_tree,
    granted_actions,
    matches,
    specificity,
    tool_pattern,
)
from ctxscope.runtimes.rye.semantics import RyeSemantics
from ctxscope.runtimes.rye.semantics import load as load_profile
from ctxscope.runtimes.rye.threaddata import Located, Palette, ToolEntry
from ctxscope.runtimes.rye.tiers import (
    SYSTEM_SPACE,
    TOOL_EXTS,
    Index,
    Space,
    derived,
    outside_space,
    parse_cached,
    rglob_all,
)
from ctxscope.runtimes.rye.toolcache import Result
from ctxscope.runtimes.rye.toolmeta import installed_primary_metadata
from ctxscope.runtimes.rye.toolparse import tool_meta
from ctxscope.runtimes.rye.toolsource import Serial, ToolSource

DEFAULT_BUDGET = 2000


def parse_resilience(text: str, *, path: str) -> tuple[Any, list[Diagnostic]]:
    """(the YAML's data and the line of each of its keys), or (None, the parse error)."""
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        return None, [yaml_diagnostic(exc, path, "rye-yaml", what="resilience.yaml")]
    return (data, yaml_key_lines(text) if isinstance(data, dict) else {}), []


def preload_config(
    snapshot: Snapshot, spaces: list[Space]
) -> tuple[bool, int, str, list[Diagnostic]]:
    """(enabled, max_tokens, source) of `tool_preload` from resilience.yaml (first tier)."""
    diags: list[Diagnostic] = []
    enabled, budget, source = True, DEFAULT_BUDGET, "default"
    for space in reversed(spaces):
        path = str(space.root / "config" / "agent" / "resilience.yaml")
        if (note := outside_space(space, path)) is not None:
            diags.append(note)
            continue
        res = parse_cached(snapshot, "resilience", path, partial(parse_resilience, path=path))
        if res is None:
            continue
        parsed, d = res
        diags.extend(d)
        data, lines = parsed if parsed is not None else (None, {})
        tp = data.get("tool_preload") if isinstance(data, dict) else None
        if isinstance(tp, dict):
            if "enabled" in tp:
                enabled = tp["enabled"] is not False
                source = path
            if "max_tokens" in tp:
                line = lines.get(("tool_preload", "max_tokens"))
                value = tp["max_tokens"]
                try:
                    budget = int(value)
                    source = path
                except (TypeError, ValueError, OverflowError):
                    diags.append(
                        Diagnostic(
                            "error",
                            "tool_preload.max_tokens is not a finite number; the default "
                            f"{DEFAULT_BUDGET} applies",
                            path,
                            line,
                            code="rye-resilience",
                        )
                    )
                    continue
                if budget < 0:
                    diags.append(
                        Diagnostic(
                            "warning",
                            f"tool_preload.max_tokens is {value!r}, below 0: 0 is used (no "
                            "tool fits the budget; the runtime admits none either)",
                            path,
                            line,
                            code="rye-resilience",
                        )
                    )
                    budget = 0
    return enabled, budget, source, diags


def build_palette(
    snapshot: Snapshot,
    spaces: list[Space],
    caps: list[str],
    permissions_declared: bool,
    outputs: list[dict[str, Any]],
    tools: ToolSource | None = None,
    profile: RyeSemantics | None = None,
) -> tuple[Palette, list[Diagnostic]]:
    """The tools a thread is given and those it is not, each with why; their metadata asked
    of `tools` (default: each file parsed here, in turn)."""
    profile = profile if profile is not None else load_profile()
    tools = tools if tools is not None else Serial()
    enabled, budget, _source, diags = preload_config(snapshot, spaces)
    palette = Palette(enabled=enabled, budget_tokens=budget, capabilities=list(caps))
    if not enabled:
        palette.tree_text = "(tool registration disabled: tool_preload.enabled is false)"
        if profile.return_when_disabled:
            _directive_return(palette, outputs, profile)
        return palette, diags
    index = Index(snapshot, spaces, "tools", TOOL_EXTS)
    stand_in = bool(spaces) and spaces[-1].root == SYSTEM_SPACE
    diags.extend(index.notes)
    actions = (
        granted_actions(caps, profile)
        if permissions_declared or not profile.no_permissions_primaries
        else {a: {"tool", "directive", "knowledge"} for a in PRIMARIES}
    )
    charged = _add_primaries(
        snapshot, index, tools, profile, actions, permissions_declared, stand_in, palette, diags
    )
    broad = profile.broad_execute_grants_tools
    patterns = [(p, c) for c in caps if (p := tool_pattern(c, broad)) is not None]
    patterns.sort(key=lambda pc: -specificity(pc[0]))
    key = (tuple(str(s.root) for s in spaces), tuple(patterns), profile.rglob_tools)
    candidates, missing, files, folders = derived(
        snapshot,
        ("palette-candidates", *key),
        (index.entries,),
        (),
        partial(_granted, spaces, patterns, index, profile, palette, stand_in),
    )
    palette.skipped += _unread_tools(index, patterns, profile.rglob_tools)
    palette.skipped += _missing(index, missing, profile)
    # Each candidate's metadata, asked of the build's tool source by tools folder.
    found = tools.metadata(snapshot, folders)
    results, tool_diags = derived(
        snapshot,
        ("palette-results", *key),
        (candidates, found),
        (),
        partial(_found, files, folders, found),
    )
    diags += tool_diags
    registered, skipped, used, order_varies = derived(
        snapshot,
        ("palette-budget", *key),
        (candidates, results),
        (budget, charged, profile.name),
        partial(_admitted, index, candidates, results, budget, charged, profile, stand_in),
    )
    palette.registered += registered
    palette.skipped += skipped
    if order_varies:
        palette.notes.append(
            f"{profile.runtime} takes .py and .yaml tools in an order that changes from run to "
            "run (a set's iteration order), so which of them fit the budget can differ between "
            "runs; this palette takes .py first"
        )
    palette.used_tokens = estimate_tokens(used)
    _directive_return(palette, outputs, profile)
    palette.tree, palette.tree_text = capabilities_tree(palette, actions)
    return palette, diags


def _add_primaries(
    snapshot: Snapshot,
    index: Index,
    tools: ToolSource,
    profile: RyeSemantics,
    actions: dict[str, set[str]],
    permissions_declared: bool,
    stand_in: bool,
    palette: Palette,
    diags: list[Diagnostic],
) -> int:
    """The primary actions, registered or skipped in `palette` (their metadata's diagnostics
    added to `diags`); returns the chars of those that count against the budget."""
    charged = 0
    for action, name in PRIMARIES.items():
        tool_id, locs = _primary(index, profile, action)
        meta: dict[str, Any] | None
        d: list[Diagnostic]
        if not locs:
            meta, d = None, []
        elif tool_id.startswith(PRIMARY_PREFIX):
            meta, d = tools.one(snapshot, locs[0].path)
        else:
            meta, d = installed_primary_metadata(snapshot, locs[0].path)
        diags.extend(d)
        types = actions.get(action, set())
        narrowed = None
        if meta and profile.narrow_primary_description and types and len(types) < 3:
            narrowed = f"{action.capitalize()} a {' or '.join(sorted(types))}"
            meta = tool_meta(meta["schema"], narrowed)
        entry = _entry(
            tool_id,
            name,
            meta,
            locs[0].tier if locs else None,
            locs[0].path if locs else None,
            profile,
        )
        if stand_in and locs and meta:
            _measure(entry, measured.tool_fact(tool_id, primary=action), profile, narrowed)
        entry.primary = action
        wrapper_types = actions.get(action, set()) & profile.execute_wrapper_types
        if action == "execute" and action in actions and not wrapper_types:
            entry.status = "skipped"
            entry.reason = (
                f"execute is granted for tools only: {profile.runtime} registers each tool "
                "directly and no rye_execute"
            )
            palette.skipped.append(entry)
        elif action in actions:
            entry.reason = (
                "primary action: no permissions declared, primary actions only"
                if not permissions_declared
                else f"primary action granted ({', '.join(sorted(actions[action]))})"
            )
            entry.status = "registered"
            palette.registered.append(entry)
            if profile.primaries_charged:
                charged += entry.chars
                entry.reason += "; counts against the budget"
        else:
            entry.status, entry.reason = "skipped", f"primary action '{action}' not granted"
            if not permissions_declared:
                entry.reason = (
                    f"no permissions anywhere in the chain: {profile.runtime} grants nothing"
                )
            palette.skipped.append(entry)
    return charged


def _granted(
    spaces: list[Space],
    patterns: list[tuple[str, str]],
    index: Index,
    profile: RyeSemantics,
    palette: Palette,
    stand_in: bool,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str], dict[Path, list[str]]]:
    """(tool id, granting capability) of the tools granted, in the order the runtime takes
    them; the grants that name no tool file; each granted tool's file; those files by the tools
    folder of their tier, in the order of `spaces`."""
    if not profile.rglob_tools:
        candidates, missing = _candidates(index, patterns)
    else:
        taken = {e.id for e in palette.registered}
        candidates, missing = _rglob_candidates(spaces, patterns, taken, index)
        candidates = [
            c
            for c in candidates
            if c[0] in index.entries
            # the stand-in's own primaries (rye/primary/*) are no tools of ryeos's bundle
            and not (stand_in and c[0].startswith(PRIMARY_PREFIX))
        ]
    found = [index.get(tool_id)[0] for tool_id, _cap in candidates]
    roots: dict[str, Path] = {}  # a tier's first space (several system bundles: the first)
    for space in spaces:
        roots.setdefault(space.tier, space.root / "tools")
    folders: dict[Path, list[str]] = {folder: [] for folder in roots.values()}
    for loc in found:
        folders[roots[loc.tier]].append(loc.path)
    folders = {folder: paths for folder, paths in folders.items() if paths}
    return candidates, missing, [loc.path for loc in found], folders


def _found(
    files: list[str], folders: dict[Path, list[str]], found: dict[str, Result]
) -> tuple[list[Result], list[Diagnostic]]:
    """Each candidate's (metadata, diagnostics), and their diagnostics tier by tier, in
    candidate order within a tier."""
    return [found[path] for path in files], [
        d for paths in folders.values() for path in paths for d in found[path][1]
    ]


def _missing(
    index: Index, missing: list[tuple[str, str]], profile: RyeSemantics
) -> list[ToolEntry]:
    """The grants that name no tool file, each as a skipped entry saying why."""
    out: list[ToolEntry] = []
    for pattern, cap in missing:
        if pattern in index.refused:
            continue  # named among the unread tools
        out.append(
            ToolEntry(
                pattern,
                api_name(pattern),
                "skipped",
                (
                    f"only a trailing `/*` is a wildcard to {profile.runtime}: this names a "
                    "file that does not exist"
                    if profile.rglob_tools and "*" in pattern and not pattern.endswith("/*")
                    else "granted, but no tool file found in any tier"
                ),
                capability=cap,
            )
        )
    return out


def _admitted(
    index: Index,
    candidates: list[tuple[str, str]],
    results: list[tuple[dict[str, Any] | None, list[Diagnostic]]],
    budget: int,
    charged: int,
    profile: RyeSemantics,
    stand_in: bool,
) -> tuple[list[ToolEntry], list[ToolEntry], int, bool]:
    """`_admit`'s (registered, skipped, chars used), and whether which tools fit can vary
    from run to run (ryeos takes .py and .yaml tools in a set's order)."""
    registered, skipped, used = _admit(
        index, candidates, results, budget, charged, profile, stand_in
    )
    order_varies = (
        profile.rglob_tools
        and any(t.over_budget for t in skipped)
        and len(_kinds(registered + skipped) & {"py", "yaml", "yml"}) > 1
    )
    return registered, skipped, used, order_varies


def _kinds(entries: list[ToolEntry]) -> set[str]:
    """The file types among `entries`' tool files."""
    return {str(t.path).rsplit(".", 1)[-1] for t in entries if t.path}


def _directive_return(
    palette: Palette, outputs: list[dict[str, Any]], profile: RyeSemantics
) -> None:
    """Register `directive_return` when the directive declares outputs."""
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
            tool_meta(schema, "Return structured results when the directive is complete"),
            None,
            None,
            profile,
        )
        ret.status, ret.primary = "registered", "execute"
        ret.reason = "the directive declares <outputs>"
        palette.registered.append(ret)


def _admit(
    index: Index,
    candidates: list[tuple[str, str]],
    results: list[tuple[dict[str, Any] | None, list[Diagnostic]]],
    budget: int,
    charged: int,
    profile: RyeSemantics,
    stand_in: bool = False,
) -> tuple[list[ToolEntry], list[ToolEntry], int]:
    """Admit tools in order while they fit beside the `charged` primaries; a tool that does
    not fit is skipped and later (smaller) ones may still fit. Returns (registered, skipped,
    chars used including the primaries). `stand_in`: a system-tier tool is charged ryeos's
    measured size of the bundled tool it stands in for."""
    registered: list[ToolEntry] = []
    skipped: list[ToolEntry] = []
    max_chars = budget * CHARS_PER_TOKEN
    used = charged
    for (tool_id, cap), (meta, d) in zip(candidates, results, strict=True):
        loc = index.get(tool_id)[0]
        entry = _entry(tool_id, api_name(tool_id), meta, loc.tier, loc.path, profile)
        entry.capability = cap
        if stand_in and meta is not None and loc.tier == "system":
            _measure(entry, measured.tool_fact(tool_id), profile)
        if meta is None:
            entry.status = "skipped"
            why = next((x for x in d if x.severity == "error"), d[0] if d else None)
            entry.reason = (
                "no CONFIG_SCHEMA (or parameters) readable without running it"
                if why is None
                else why.message + (f" (line {why.line})" if why.line else "")
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


def _rglob_candidates(
    spaces: list[Space], patterns: list[tuple[str, str]], taken: set[str], index: Index
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(tool id, granting capability) in the order ryeos 0.1 finds them: per pattern, tier by
    tier; `x/*` walks `tools/x` with Path.rglob once per file type (.py, then .yaml, .yml;
    ryeos itself takes the types in a set's order, which varies between its runs); any
    other pattern names one file, the first tier that has it wins.

    One `rglob("*")` walk stands for the three: each yields in the same folder order, so the
    files of one type keep their order. A file the index listed is known to be a file; any
    other is stat'ed."""
    candidates: list[tuple[str, str]] = []
    missing: list[tuple[str, str]] = []
    seen = set(taken)
    listed = {loc.path for locs in index.entries.values() for loc in locs}
    for pattern, cap in patterns:
        found = False
        for space in spaces:
            tools = space.root / "tools"
            if pattern.endswith("/*"):
                folder = tools / pattern[:-2]
                if not folder.is_dir():
                    continue
                by_ext: dict[str, list[str]] = {ext: [] for ext in TOOL_EXTS}
                for text in rglob_all(folder):
                    for ext in TOOL_EXTS:
                        if text.endswith(ext):
                            by_ext[ext].append(text)
                            break
                start = len(str(tools)) + 1
                for ext, paths in by_ext.items():
                    for text in paths:
                        tool_id = text[start : -len(ext)].replace(os.sep, "/")
                        found = True
                        if tool_id not in seen and (text in listed or os.path.isfile(text)):
                            seen.add(tool_id)
                            candidates.append((tool_id, cap))
            elif any((tools / f"{pattern}{ext}").is_file() for ext in TOOL_EXTS):
                found = True
                if pattern not in seen:
                    seen.add(pattern)
                    candidates.append((pattern, cap))
                break
        if not found:
            missing.append((pattern, cap))
    return candidates, missing


def _unread_tools(index: Index, patterns: list[tuple[str, str]], rglob: bool) -> list[ToolEntry]:
    """Granted tools whose file links out of its space, so it is not read (the runtime
    follows the link): each named, with the link, as skipped."""
    out: list[ToolEntry] = []
    refused = [tid for tid in index.refused if not index.get(tid)]
    for tool_id in refused:
        for pattern, cap in patterns:
            if rglob:  # only a trailing `/*` is a wildcard
                trailing = pattern.endswith("/*") and "*" not in pattern[:-2]
                granted = tool_id.startswith(pattern[:-1]) if trailing else tool_id == pattern
            else:
                granted = matches(pattern, tool_id)
            if granted:
                link = index.refused[tool_id].path
                out.append(
                    ToolEntry(
                        tool_id,
                        api_name(tool_id),
                        "skipped",
                        f"granted by {cap}, but its file links outside the Rye space: not read",
                        path=link,
                        capability=cap,
                        unread=True,
                    )
                )
                break
    return out


def _candidates(
    index: Index, patterns: list[tuple[str, str]]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(tool id, granting capability) in priority order, and exact grants with no file."""
    candidates: list[tuple[str, str]] = []
    missing: list[tuple[str, str]] = []
    seen: set[str] = set()
    all_ids = sorted(
        i for i in index.entries if not i.startswith(PRIMARY_PREFIX) and not i.endswith("__init__")
    )
    for pattern, cap in patterns:
        if "*" not in pattern and pattern not in index.entries and pattern not in seen:
            seen.add(pattern)
            missing.append((pattern, cap))
            continue
        for tool_id in all_ids if "*" in pattern else [pattern]:
            if tool_id not in seen and matches(pattern, tool_id):
                seen.add(tool_id)
                candidates.append((tool_id, cap))
    return candidates, missing


def _primary(index: Index, profile: RyeSemantics, action: str) -> tuple[str, list[Located]]:
    """The tool that stands for primary `action`: the first of the profile's ids found in the
    system tier (the runtime's own bundle)."""
    for template in profile.primary_ids:
        tool_id = template.format(action=action)
        locs = [loc for loc in index.get(tool_id) if loc.tier == "system"]
        if locs:
            return tool_id, locs
    return profile.primary_ids[-1].format(action=action), []


def _entry(
    tool_id: str,
    name: str,
    meta: dict[str, Any] | None,
    tier: Any,
    path: str | None,
    profile: RyeSemantics,
) -> ToolEntry:
    """A palette entry sized as the profile's runtime sizes it: len(JSON schema) or, in
    ryeos, len(str(schema)) (the Python repr), plus len(description)."""
    schema = meta["schema"] if meta else None
    desc = meta["description"] if meta else ""
    chars = meta.get("chars", 0) if meta else 0
    if meta and profile.size == "python_repr":
        # Worked out where the file was parsed; a tool cache written before that holds none.
        chars = meta.get("repr_chars") or len(str(schema)) + len(desc)
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


def _measure(
    entry: ToolEntry,
    fact: dict[str, Any] | None,
    profile: RyeSemantics,
    description: str | None = None,
) -> None:
    """Charge stand-in tool `entry` the size ryeos measured for the tool it stands in for."""
    if fact is None:
        return
    entry.chars = measured.tool_chars(fact, profile.size, description)
    entry.tokens = estimate_tokens(entry.chars)
    entry.measured = True
