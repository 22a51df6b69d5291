"""Configs the modelled OpenClaw release itself refuses to load, with the runtime's reason.

OpenClaw validates its config with a strict schema before it runs anything: a key the schema
does not know (at any object it checks) and, in 2026.9, a roster of several agents without
`agents.ownership` make it refuse the whole config; 2026.9 also will not run an agent on a
`session.store` that is another agent's own. ctxscope reports each as an error quoting
the runtime's own reason, and still builds what it can. The key lists are the profile's
(`config.schema_keys`, read from each release's schema); keys ctxscope itself previews
(`config.preview_keys`, e.g. `contextScripts`) are left to their own notes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ctxscope.core.ids import normalize_agent_id
from ctxscope.core.model import Diagnostic
from ctxscope.runtimes.openclaw.config import GatewayConfig, as_dict
from ctxscope.runtimes.profiles import Profile

DATABASE = "openclaw-agent.sqlite"
OWNERSHIP_REASON = (
    'multi-agent rosters require agents.ownership="explicit" or one legacy default=true '
    'marker; add agents.ownership="explicit" or run openclaw doctor'
)
"""OpenClaw 2026.9.6's reason for a roster of several agents without ownership."""
EXPLICIT_DEFAULT_REASON = (
    "agents.ownership=explicit cannot be combined with a legacy default=true marker, "
    'got: "explicit"'
)
"""OpenClaw 2026.9.6's reason for `agents.ownership: "explicit"` beside an agent marked
`default: true`."""


def refusals(cfg: GatewayConfig, profile: Profile, workspace: Path) -> list[Diagnostic]:
    """Why `profile`'s release would refuse `cfg` or the workspaces it runs, one error per
    reason (none: it loads)."""
    rules = profile.config_rules
    who = f"{profile.runtime_name} {profile.version or profile.name}"
    out = legacy_state(cfg, profile, workspace, who)
    schema = rules.get("schema_keys")
    if not isinstance(schema, dict) or cfg.path is None:
        return out
    preview = set(rules.get("preview_keys") or ())

    def refuse(where: str, dotted: str, reason: str) -> None:
        out.append(
            Diagnostic(
                "error",
                f"{who} refuses this config: {where + ': ' if where else ''}{reason}",
                cfg.path,
                cfg.line_of(dotted) if dotted else None,
                code="config-refused",
            )
        )

    for where, obj, dotted in _objects(cfg.data, schema):
        known = set(schema[_schema_name(where)])
        extra = [k for k in obj if k not in known and k not in preview and not k.startswith("$")]
        if extra:
            keys = ", ".join(f'"{k}"' for k in extra)
            plural = "s" if len(extra) > 1 else ""
            line_key = f"{dotted}.{extra[0]}" if dotted else extra[0]
            refuse(where, line_key, f"Unrecognized key{plural}: {keys}")
    if rules.get("ownership_required") and _needs_ownership(cfg.data):
        refuse("agents.ownership", "agents", OWNERSHIP_REASON)
    if rules.get("ownership_required") and _explicit_with_default(cfg.data):
        refuse("agents.ownership", "agents.ownership", EXPLICIT_DEFAULT_REASON)
    if rules.get("store_owner_check"):
        out += store_owners(cfg, who)
    return out


def store_owners(cfg: GatewayConfig, who: str) -> list[Diagnostic]:
    """2026.9 runs an agent only on a session store it owns: a `session.store` that is
    another agent's own place (`…/agents/<id>/sessions/sessions.json` or
    `…/agents/<id>/agent/openclaw-agent.sqlite`) stops every run of the others."""
    session = cfg.data.get("session")
    template = session.get("store") if isinstance(session, dict) else None
    if not isinstance(template, str) or not template.strip():
        return []
    out = []
    for agent in cfg.agent_ids():
        owner = store_owner(template.strip().replace("{agentId}", agent))
        if owner is not None and owner != agent:
            out.append(
                Diagnostic(
                    "error",
                    f"{who} refuses to run agent {agent}: SQLite session store path belongs "
                    f"to agent {owner}; requested agent {agent}.",
                    cfg.path,
                    cfg.line_of("session.store"),
                    code="config-refused",
                )
            )
    return out


def store_owner(store: str) -> str | None:
    """The agent whose own place a store path is, if it is one."""
    parts = store.replace("\\", "/").rstrip("/").split("/")
    if len(parts) >= 4 and parts[-2:] == ["sessions", "sessions.json"] and parts[-4] == "agents":
        return normalize_agent_id(parts[-3])
    if len(parts) >= 4 and parts[-2:] == ["agent", DATABASE] and parts[-4] == "agents":
        return normalize_agent_id(parts[-3])
    return None


def _objects(data: dict[str, Any], schema: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(schema path, object, ctxscope's dotted key for its line) of each checked object
    present in the config."""
    out = []
    for name in schema:
        if name.endswith("[]"):
            items = _at(data, name[:-2])
            if isinstance(items, list):
                out += [
                    (f"{name[:-2]}.{i}", item, f"{name[:-2]}[{i}]")
                    for i, item in enumerate(items)
                    if isinstance(item, dict)
                ]
            continue
        obj = _at(data, name) if name else data
        if isinstance(obj, dict):
            out.append((name, obj, name))
    return out


def _at(data: dict[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _schema_name(where: str) -> str:
    """`agents.list.3` -> `agents.list[]`."""
    head, _, tail = where.rpartition(".")
    return f"{head}[]" if tail.isdigit() else where


def _explicit_with_default(data: dict[str, Any]) -> bool:
    """`agents.ownership: "explicit"` and an agent marked `default: true`."""
    agents = as_dict(data.get("agents"))
    return agents.get("ownership") == "explicit" and any(
        a.get("default") is True for a in _roster(agents)
    )


def _needs_ownership(data: dict[str, Any]) -> bool:
    """Several agents, no `agents.ownership`, and not exactly one `default: true`."""
    agents = as_dict(data.get("agents"))
    if "ownership" in agents:
        return False
    roster = _roster(agents)
    marked = [a for a in roster if a.get("default") is True]
    return len(roster) > 1 and len(marked) != 1


def _roster(agents: dict[str, Any]) -> list[dict[str, Any]]:
    """The configured agents (`agents.entries`' values, else `agents.list`)."""
    entries, listed = agents.get("entries"), agents.get("list")
    found: list[Any] = (
        list(entries.values())
        if isinstance(entries, dict)
        else listed
        if isinstance(listed, list)
        else []
    )
    return [a for a in found if isinstance(a, dict)]


def legacy_state(
    cfg: GatewayConfig, profile: Profile, workspace: Path, who: str
) -> list[Diagnostic]:
    """2026.9 will not run a workspace that still holds an older release's setup state
    (workspace-legacy-state.ts: it asks for `openclaw doctor --fix` first)."""
    names = profile.config_rules.get("legacy_state_files") or ()
    if not names:
        return []
    folders = [workspace] + [cfg.agent_workspace(a, workspace)[0] for a in cfg.agent_ids()]
    out = []
    for folder in dict.fromkeys(folders):
        if not folder.is_dir():  # one look for a workspace not made yet (most agents')
            continue
        found = [
            folder / n
            for name in names
            for n in (name, f"{name}.doctor-importing")
            if os.path.lexists(folder / n)
        ]
        if found:
            out.append(
                Diagnostic(
                    "error",
                    f"{who} refuses to run this workspace: Legacy workspace setup state "
                    f"requires migration for {folder}; run openclaw doctor --fix.",
                    str(found[0]),
                    code="config-refused",
                )
            )
    return out
