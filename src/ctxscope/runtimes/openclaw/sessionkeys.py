"""Session keys: what kind of session a key names, and so which prompt mode it gets.

OpenClaw's rules: `agent:<id>:<rest>` where the literal `agent` is case-sensitive
and needs at least three non-empty parts; the rest is matched case-insensitively for
`subagent:` / `cron:`. A legacy key `subagent:<x>` (any case) is a subagent. Anything else is
a full session of the default agent.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from ctxscope.core.model import PromptMode, SessionKind
from ctxscope.core.record import record
from ctxscope.runtimes.profiles import Profile


@record(frozen=True)
class SessionInfo:
    """What a session key means to the runtime: agent, kind and prompt mode."""

    key: str
    agent_id: str
    kind: SessionKind
    mode: PromptMode
    rule: str
    """Why the key got this kind (and mode), in words."""
    chat_type: str = "unknown"
    """`direct`, `group`, `channel` or `unknown`, as the key's shape says."""
    forced: bool = False
    """The scenario forced the prompt mode (a what-if) rather than the key deciding it."""


def parse_agent_key(key: str) -> tuple[str, str] | None:
    """(`agent id`, `rest`) for an `agent:<id>:<rest>` key, else None."""
    parts = [p for p in key.split(":") if p]
    if len(parts) < 3 or parts[0] != "agent":
        return None
    return parts[1].lower(), ":".join(parts[2:])


def classify(
    key: str, profile: Profile, default_agent: str = "main", forced_mode: str | None = None
) -> SessionInfo:
    key = key.strip()
    if profile.case_fold_keys:
        key = key.lower()
    parsed = parse_agent_key(key)
    agent_id = parsed[0] if parsed else default_agent
    rest = parsed[1] if parsed else None
    kind: SessionKind
    lowered = key.lower()
    marker = next((m for m in profile.subagent_markers if m.lower() in lowered), None)
    legacy = next(
        (p for p in profile.legacy_subagent_prefixes if lowered.startswith(p.lower())), None
    )
    if marker:
        kind, rule = "subagent", f"the key contains {marker!r} ({profile.name} subagent key)"
    elif legacy:
        kind, rule = "subagent", f"legacy subagent key (starts with {legacy!r})"
    elif rest is not None and any(
        rest.lower().startswith(p.lower()) for p in profile.subagent_prefixes
    ):
        kind, rule = "subagent", f"`agent:{agent_id}:` is followed by `subagent:`"
    elif rest is not None and any(
        rest.lower().startswith(p.lower()) for p in profile.cron_prefixes
    ):
        kind, rule = "cron", f"`agent:{agent_id}:` is followed by `cron:`"
    elif (rest is not None and rest == "main") or key == "main":
        kind, rule = "main", "the agent's main session"
    elif rest is not None:
        kind, rule = "other", f"a {rest.split(':')[0]} session of agent {agent_id}"
    else:
        kind, rule = (
            "other",
            (
                "not an `agent:<id>:<rest>` key (the `agent` prefix is case-sensitive), so a "
                f"full session of the default agent {default_agent}"
            ),
        )
    if forced_mode:
        mode: PromptMode = forced_mode  # type: ignore[assignment]
        rule += f"; prompt mode forced to {forced_mode} by the scenario"
    elif kind in profile.minimal_kinds:
        mode = "minimal"
        rule += f"; {kind} sessions get prompt mode minimal"
    else:
        mode = "full"
        rule += "; prompt mode full"
    return SessionInfo(key, agent_id, kind, mode, rule, chat_type(key), bool(forced_mode))


_PEER_KINDS = ("direct", "dm", "group", "channel")
_LEGACY_CHATS = (
    (re.compile(r"^group:[^:]+(?::.*)?$"), "group"),
    (re.compile(r"^channel:[^:]+(?::.*)?$"), "channel"),
    (re.compile(r"^(?:whatsapp:)?[^:]+@g\.us$"), "group"),
    (re.compile(r"^discord:(?:[^:]+:)?guild-[^:]+:channel-[^:]+$"), "channel"),
)


def chat_type(key: str) -> str:
    """The chat a key names, read from its shape after `agent:<id>:` (OpenClaw's rule):
    `direct|dm:<peer>`, `<channel>:<kind>:<peer>` or `<channel>:<account>:<kind>:<peer>`
    (a key more than one shape fits is not read that way), else a legacy form (`group:<id>`,
    `<id>@g.us`, a Discord guild channel)."""
    raw = key.strip().lower()
    if not raw:
        return "unknown"
    parsed = parse_agent_key(raw)
    rest = parsed[1] if parsed else raw
    legacy = next((t for rx, t in _LEGACY_CHATS if rx.match(rest)), None)
    p = [*rest.split(":"), "", "", "", ""]
    shapes = [
        bool(p[0] in ("direct", "dm") and p[1]),
        bool(p[0] and p[1] in _PEER_KINDS and p[2]),
        bool(p[0] and p[1] and p[2] in _PEER_KINDS and p[3]),
        legacy is not None,
    ]
    if p[0] != "agent" and sum(shapes) <= 1:
        kind, peer = (
            (p[0], p[1])
            if p[0] in ("direct", "dm")
            else (p[1], p[2])
            if p[0] and p[1] in _PEER_KINDS
            else (p[2], p[3])
            if p[0] and p[1] and p[2] in _PEER_KINDS
            else ("", "")
        )
        if kind and peer:
            return "direct" if kind in ("direct", "dm") else kind
    return legacy or "unknown"


def child_session_key(profile: Profile, agent_id: str, child_id: str | None = None) -> str:
    """The key a spawned child gets: `agent:<target>:subagent:<uuid4>` for OpenClaw."""
    if not child_id:
        child_id = str(uuid.uuid4())
    return profile.child_key.format(agent=agent_id, id=child_id)


def delegation_mode(config: dict[str, Any], agent: dict[str, Any], agent_id: str, key: str) -> str:
    """`prefer` or `suggest`: how strongly the runtime steers the session to subagents. A
    configured `subagents.delegationMode` (the agent's, else the defaults') decides; else
    only the agent's main session (`agent:<id>:<session.mainKey>`, `global` for a global
    session scope) prefers."""
    agents = config.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    for owner in (agent, defaults):
        sub = owner.get("subagents") if isinstance(owner, dict) else None
        mode = sub.get("delegationMode") if isinstance(sub, dict) else None
        if isinstance(mode, str) and mode:
            return "prefer" if mode == "prefer" else "suggest"
    raw = config.get("session")
    session: dict[str, Any] = raw if isinstance(raw, dict) else {}
    main_key = session.get("mainKey")
    main = main_key.strip().lower() if isinstance(main_key, str) else ""
    canonical = (
        "global" if session.get("scope") == "global" else f"agent:{agent_id}:{main or 'main'}"
    )
    return "prefer" if key.strip() == canonical else "suggest"
