"""Which context scripts run for a spawn, and in which order.

1. `agents.defaults.subagents.contextScripts.run[]`;
2. minus the ids in the requester agent's `subagents.contextScripts.ignore[]`;
3. plus the requester agent's own `run[]`;
4. deduplicated by id: an entry keeps the place of its first occurrence and takes the value of
   its last (so the agent's entry wins over a default with the same id);
5. stably sorted by `priority`, highest first.

Invalid entries become a `Diagnostic` naming the config file and the entry's JSON path; they
are skipped and the rest still resolve.
"""

from __future__ import annotations

import math
from typing import Any

from ctxscope.core.ids import normalize_agent_id
from ctxscope.core.model import Diagnostic, Severity
from ctxscope.core.secrets import describe
from ctxscope.scripts.entries import VARIABLE_NAMES, ScriptEntry, canonical_json

DEFAULTS_PATH = "agents.defaults.subagents.contextScripts"

KNOWN_KEYS = frozenset(
    {
        "id",
        "uri",
        "format",
        "method",
        "priority",
        "position",
        "log",
        "errorHandling",
        "returnKey",
        "errorKey",
        "agentIdOverrideKey",
        "argMap",
        "timeoutMs",
    }
)

_CHOICES: dict[str, tuple[Any, ...]] = {
    "format": ("arguments", "json"),
    "position": ("prepend", "append"),
    "errorHandling": ("continue", "stop"),
}


MAX_TIMEOUT_MS = 86_400_000
"""The longest `timeoutMs` accepted: one day (a larger one would overflow the timers)."""


class _Invalid(Exception):
    pass


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def default_entries(
    config: dict[str, Any], *, config_path: str | None = None
) -> tuple[list[ScriptEntry], list[Diagnostic]]:
    """The entries of `agents.defaults.subagents.contextScripts.run`, in config order."""
    diags: list[Diagnostic] = []
    agents = _dict(config.get("agents") if isinstance(config, dict) else None)
    block = _scripts_block(_dict(agents.get("defaults")), DEFAULTS_PATH, config_path, diags)
    return _entries(block, DEFAULTS_PATH, config_path, diags), diags


def resolve_entries(
    config: dict[str, Any], requester_agent_id: str, *, config_path: str | None = None
) -> tuple[list[ScriptEntry], list[Diagnostic]]:
    """The entries that run when `requester_agent_id` calls `sessions_spawn`, in run order."""
    defaults, diags = default_entries(config, config_path=config_path)
    agents = _dict(config.get("agents") if isinstance(config, dict) else None)

    agent_entries: list[ScriptEntry] = []
    ignore: set[str] = set()
    found = _find_agent(agents.get("list"), requester_agent_id)
    if found is not None:
        index, agent = found
        base = f"agents.list[{index}].subagents.contextScripts"
        block = _scripts_block(agent, base, config_path, diags)
        agent_entries = _entries(block, base, config_path, diags)
        ignore = _ignore_list(block, base, config_path, diags)

    return _run_order(defaults, ignore, agent_entries), diags


def _run_order(
    defaults: list[ScriptEntry], ignore: set[str], own: list[ScriptEntry]
) -> list[ScriptEntry]:
    """Steps 2-5: the defaults not ignored, then the agent's own, deduplicated by id, sorted."""
    merged: dict[str, ScriptEntry] = {}
    for entry in [e for e in defaults if e.id not in ignore] + own:
        merged[entry.id] = entry  # dict keeps the first position, takes the last value
    return sorted(merged.values(), key=lambda e: -e.priority)


def every_agent_entries(config: dict[str, Any]) -> list[tuple[str | None, list[ScriptEntry]]]:
    """What `resolve_entries` gives each possible requester: (agent id, entries) for every
    agent of `agents.list` (the first of a repeated id), then (None, the defaults) for any
    other requester. One pass over the list, however many agents there are."""
    defaults, _ = default_entries(config)
    agents = _dict(config.get("agents") if isinstance(config, dict) else None)
    raw_list = agents.get("list")
    only_defaults = _run_order(defaults, set(), [])
    out: list[tuple[str | None, list[ScriptEntry]]] = []
    seen: set[str] = set()
    for index, agent in enumerate(raw_list if isinstance(raw_list, list) else []):
        if not isinstance(agent, dict) or not isinstance(agent.get("id"), str):
            continue
        agent_id = normalize_agent_id(agent["id"])
        if agent_id in seen:
            continue
        seen.add(agent_id)
        base = f"agents.list[{index}].subagents.contextScripts"
        unused: list[Diagnostic] = []  # spawn reports them for its requester
        block = _scripts_block(agent, base, None, unused)
        if not block:
            out.append((agent_id, only_defaults))
            continue
        own = _entries(block, base, None, unused)
        out.append((agent_id, _run_order(defaults, _ignore_list(block, base, None, unused), own)))
    out.append((None, only_defaults))
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _find_agent(agent_list: Any, agent_id: str) -> tuple[int, dict[str, Any]] | None:
    if not isinstance(agent_list, list):
        return None
    want = normalize_agent_id(agent_id)
    for index, agent in enumerate(agent_list):
        if (
            isinstance(agent, dict)
            and isinstance(agent.get("id"), str)
            and normalize_agent_id(agent["id"]) == want
        ):
            return index, agent
    return None


def _scripts_block(
    holder: dict[str, Any], base: str, config_path: str | None, diags: list[Diagnostic]
) -> dict[str, Any]:
    block = _dict(holder.get("subagents")).get("contextScripts")
    if block is None:
        return {}
    if not isinstance(block, dict):
        diags.append(_diag(config_path, f"{base}: must be an object; ignored"))
        return {}
    return block


def _entries(
    block: dict[str, Any], base: str, config_path: str | None, diags: list[Diagnostic]
) -> list[ScriptEntry]:
    run = block.get("run")
    if run is None:
        return []
    if not isinstance(run, list):
        diags.append(_diag(config_path, f"{base}.run: must be a list of script entries; ignored"))
        return []
    entries = []
    for index, raw in enumerate(run):
        where = f"{base}.run[{index}]"
        try:
            entries.append(parse_entry(raw, where, config_path, diags))
        except _Invalid as exc:
            diags.append(_diag(config_path, f"{where}: {exc}; entry skipped"))
    return entries


def _ignore_list(
    block: dict[str, Any], base: str, config_path: str | None, diags: list[Diagnostic]
) -> set[str]:
    ignore = block.get("ignore")
    if ignore is None:
        return set()
    if not isinstance(ignore, list):
        diags.append(_diag(config_path, f"{base}.ignore: must be a list of script ids; ignored"))
        return set()
    ids = set()
    for index, item in enumerate(ignore):
        if isinstance(item, str):
            ids.add(item)
        else:
            diags.append(
                _diag(config_path, f"{base}.ignore[{index}]: must be a string; ignored", "warning")
            )
    return ids


def parse_entry(
    raw: Any, where: str, config_path: str | None, diags: list[Diagnostic]
) -> ScriptEntry:
    """Validate one configured entry; raise `_Invalid` when it cannot run at all."""
    if not isinstance(raw, dict):
        raise _Invalid("must be an object with at least `id` and `uri`")
    for key in ("id", "uri"):
        value = raw.get(key)
        if value is None:
            raise _Invalid(f'missing required field "{key}"')
        if not isinstance(value, str) or not value.strip():
            raise _Invalid(f'"{key}" must be a non-empty string')
    uri = raw["uri"].strip()
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if scheme and scheme not in ("http", "https"):
        raise _Invalid(f'unsupported URI scheme "{scheme}://" (use a file path or http(s) URL)')
    for key, choices in _CHOICES.items():
        if key in raw and raw[key] not in choices:
            allowed = " or ".join(f'"{c}"' for c in choices)
            raise _Invalid(f'"{key}" must be {allowed}, not {describe(raw[key])}')
    log = raw.get("log", False)
    if not (log is False or log is True or log == "verbose"):
        raise _Invalid(f'"log" must be false, true or "verbose", not {describe(log)}')
    priority = raw.get("priority", 0)
    if not _finite(priority):
        raise _Invalid(f'"priority" must be a number (a finite one), not {describe(priority)}')
    timeout_ms = raw.get("timeoutMs", 10_000)
    if not _finite(timeout_ms) or not 0 < timeout_ms <= MAX_TIMEOUT_MS:
        raise _Invalid(
            f'"timeoutMs" must be a positive number of milliseconds, at most '
            f"{MAX_TIMEOUT_MS} (one day), not {describe(timeout_ms)}"
        )
    method = raw.get("method", "GET")
    if not isinstance(method, str) or not method.strip().isalpha():
        raise _Invalid(f'"method" must be an HTTP method name, not {describe(method)}')
    keys = {}
    for key in ("returnKey", "errorKey", "agentIdOverrideKey"):
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise _Invalid(f'"{key}" must be a string')
        keys[key] = value or None
    arg_map = _arg_map(raw.get("argMap"), where, config_path, diags)
    for key in sorted(set(raw) - KNOWN_KEYS):
        diags.append(_diag(config_path, f'{where}: unknown field "{key}" ignored', "warning"))
    if method.strip().upper() != "GET" and not uri.lower().startswith(("http://", "https://")):
        diags.append(
            _diag(config_path, f'{where}: "method" only applies to URL scripts; ignored', "info")
        )
    return ScriptEntry(
        id=raw["id"],
        uri=uri,
        format=raw.get("format", "arguments"),
        method=method.strip().upper(),
        priority=priority,
        position=raw.get("position", "append"),
        log=log,
        error_handling=raw.get("errorHandling", "continue"),
        return_key=keys["returnKey"],
        error_key=keys["errorKey"],
        agent_id_override_key=keys["agentIdOverrideKey"],
        arg_map=arg_map,
        timeout_ms=timeout_ms,
        source=where,
        raw=canonical_json(raw),
    )


def _arg_map(
    value: Any, where: str, config_path: str | None, diags: list[Diagnostic]
) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise _Invalid('"argMap" must be an object of {argument name: variable name}')
    pairs = []
    for arg, var in value.items():
        if not isinstance(var, str) or var not in VARIABLE_NAMES:
            known = ", ".join(VARIABLE_NAMES)
            diags.append(
                _diag(
                    config_path,
                    f"{where}.argMap.{arg}: unknown spawn variable "
                    f"{describe(var, str(arg))} (known: {known}); the "
                    "argument is passed undefined",
                    "warning",
                )
            )
            pairs.append((str(arg), ""))
            continue
        pairs.append((str(arg), var))
    return tuple(pairs)


def _diag(config_path: str | None, message: str, severity: Severity = "error") -> Diagnostic:
    return Diagnostic(severity, message, config_path, code="context-script-config")
