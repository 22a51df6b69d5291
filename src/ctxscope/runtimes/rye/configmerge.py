"""ryeos 0.1's cascade of agent config files (`loaders/config_loader.py`): every system
bundle's `.ai/config/agent/<name>`, then the user space's, then the project's, each merged
over the last: mappings key by key, lists of mappings that carry `id` entry by entry (an
entry with a known id replaces it in place, new ones go last), anything else replaced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.tiers import Space, outside_space, parse_cached


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    result = dict(base)
    for key, value in override.items():
        if key == "extends":
            continue
        old = result.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            result[key] = merge(old, value)
        elif (
            isinstance(old, list)
            and isinstance(value, list)
            and old
            and isinstance(old[0], dict)
            and old[0].get("id") is not None
        ):
            result[key] = merge_by_id(old, value)
        else:
            result[key] = value
    return result


def merge_by_id(base: list[Any], override: list[Any]) -> list[Any]:
    by_id = {o.get("id"): o for o in override if isinstance(o, dict) and o.get("id") is not None}
    out: list[Any] = []
    seen: set[Any] = set()
    for item in base:
        item_id = item.get("id") if isinstance(item, dict) else None
        if item_id is not None:
            out.append(by_id.get(item_id, item))
            seen.add(item_id)
        else:
            out.append(item)
    out += [o for o in override if isinstance(o, dict) and o.get("id") not in (None, *seen)]
    return out


def _parser(path: str) -> Callable[[str], tuple[Any, list[Diagnostic]]]:
    def parse(text: str) -> tuple[Any, list[Diagnostic]]:
        try:
            return load_yaml(text), []
        except yaml.YAMLError as exc:
            return None, [yaml_diagnostic(exc, path, "rye-yaml", what="agent config")]

    return parse


def read_configs(
    snapshot: Snapshot, spaces: list[Space], name: str
) -> tuple[list[tuple[Space, str, dict[str, Any]]], list[Diagnostic]]:
    """Each space's `config/agent/<name>` that holds a mapping, lowest tier first."""
    out: list[tuple[Space, str, dict[str, Any]]] = []
    diags: list[Diagnostic] = []
    for space in reversed(spaces):
        path = str(space.root / "config" / "agent" / name)
        if (note := outside_space(space, path)) is not None:
            diags.append(note)
            continue
        res = parse_cached(snapshot, f"config:{name}", path, _parser(path))
        if res is None:
            continue
        data, d = res
        diags += d
        if isinstance(data, dict):
            out.append((space, path, data))
    return out, diags


def load_config(
    snapshot: Snapshot, spaces: list[Space], name: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """`config/agent/<name>` merged over the spaces as ryeos merges it."""
    config: dict[str, Any] = {}
    files, diags = read_configs(snapshot, spaces, name)
    for _space, _path, data in files:
        config = merge(config, data)
    return config, diags
