"""`agentIdOverride` candidates: collection, validation, and the winner.

Candidates come in execution order, which is priority order. Each is checked against the
configured agents; the first valid one (the highest priority) wins. With none valid, the
requested target stays.
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxscope.core.ids import is_valid_agent_id, normalize_agent_id
from ctxscope.scripts.entries import OverrideCandidate, ScriptResult


def validate_agent_id(agent_id: str, configured_agents: Iterable[str]) -> tuple[bool, str]:
    """(valid, reason) for a proposed agent id."""
    norm = normalize_agent_id(agent_id)
    if not is_valid_agent_id(norm):
        return False, "not a valid agent id (must match [a-z0-9][a-z0-9_-]{0,63})"
    known = sorted({normalize_agent_id(a) for a in configured_agents})
    if norm in known:
        return True, "configured agent"
    return False, f"not a configured agent (configured: {', '.join(known) or 'none'})"


def collect_candidates(
    results: Iterable[ScriptResult], configured_agents: Iterable[str]
) -> tuple[list[OverrideCandidate], OverrideCandidate | None]:
    """The candidates of all scripts that proposed an override, and the winner."""
    configured = list(configured_agents)
    candidates = []
    for result in results:
        if result.override is None:
            continue
        valid, reason = validate_agent_id(result.override, configured)
        candidates.append(
            OverrideCandidate(
                script_id=result.id,
                agent_id=normalize_agent_id(result.override),
                priority=result.priority,
                valid=valid,
                reason=reason,
            )
        )
    winner = next((c for c in candidates if c.valid), None)
    return candidates, winner
