"""Agent ids as OpenClaw compares them: trimmed and lower-cased (JavaScript's
`toLowerCase`, which Python's `str.lower` matches), valid when they match
`[a-z0-9][a-z0-9_-]{0,63}`."""

from __future__ import annotations

import re

AGENT_ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
DEFAULT_AGENT_ID = "main"


def normalize_agent_id(agent_id: str) -> str:
    return agent_id.strip().lower()


def is_valid_agent_id(agent_id: str) -> bool:
    return AGENT_ID_RE.fullmatch(normalize_agent_id(agent_id)) is not None
