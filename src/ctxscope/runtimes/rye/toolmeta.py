"""Tool metadata as a build gets it: parsed once per file version in this process
(`toolparse`), kept across processes in the tool cache (`toolcache`), and for the primary
tools of an installed ryeos bundle, with the string constants they import from its package.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.tiers import cache_for, parse_cached
from ctxscope.runtimes.rye.toolcache import ToolCache, stamp_of
from ctxscope.runtimes.rye.toolparse import extract_python, module_constants, parse_tool


def tool_metadata(
    snapshot: Snapshot, path: str, disk: ToolCache | None = None
) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """A tool's metadata: from this process's parse while the file is unchanged, else from the
    persistent cache `disk`, else by parsing it (and remembering the result in both; the
    caller decides when `disk` is saved)."""
    memo = cache_for(snapshot).parsed
    if disk is not None and ("tool", path) not in memo:
        hit = from_disk(snapshot, path, disk)
        if hit is not None:
            return hit
    res = parse_cached(snapshot, "tool", path, lambda text: parse_tool(text, path))
    if res is None:
        return None, []
    read, _, stamp = memo[("tool", path)]
    if disk is not None and read is not None and not disk.has(path, stamp):
        disk.put(path, stamp, res)
    return res


def from_disk(
    snapshot: Snapshot, path: str, disk: ToolCache
) -> tuple[dict[str, Any] | None, list[Diagnostic]] | None:
    """What `disk` holds for the tool file as it is now (remembered in this snapshot's parse
    memo), or None; a file the cache never saw costs no stat."""
    if disk.held(path) is None:
        return None
    stamp = stamp_of(path)
    hit = disk.get(path, stamp) if stamp is not None else None
    if hit is not None and stamp is not None:
        cache_for(snapshot).parsed[("tool", path)] = (None, hit, stamp)
    return hit


def installed_primary_metadata(
    snapshot: Snapshot, path: str
) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """A primary action tool of an installed ryeos bundle (`.ai/tools/rye/fetch.py`), whose
    CONFIG_SCHEMA takes its descriptions from modules of the installed `rye` package: those
    string constants are read from the package's source beside the bundle (never imported).
    Each file is parsed once while it is unchanged."""
    res = parse_cached(snapshot, "primary-tool", path, lambda text: _primary(snapshot, text, path))
    return res if res is not None else (None, [])


def _primary(
    snapshot: Snapshot, text: str, path: str
) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return extract_python(text, path)
    site = Path(path).resolve()
    while site.name != ".ai" and site != site.parent:
        site = site.parent
    site = site.parent.parent  # <site-packages>/<bundle>/.ai -> <site-packages>
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = str(site.joinpath(*node.module.split(".")).with_suffix(".py"))
            cached = parse_cached(
                snapshot, "module-constants", module, lambda t: (module_constants(t), [])
            )
            found = cached[0] if cached is not None else {}
            for alias in node.names:
                if alias.name in found:
                    constants[alias.asname or alias.name] = found[alias.name]
    return extract_python(text, path, constants)
