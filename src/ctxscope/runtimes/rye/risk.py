"""ryeos 0.1's capability risk check (`thread_directive._assess_capability_risk`): each
granted capability takes the risk of its most specific matching pattern in
capability_risk.yaml (the pattern with most dots, first on a tie); a risk whose policy is
`block` refuses the thread unless the leaf directive acknowledges it."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.configmerge import load_config
from ctxscope.runtimes.rye.tiers import Space


def blocked(
    snapshot: Snapshot, spaces: list[Space], caps: list[str], acknowledged: list[str]
) -> tuple[str | None, list[Diagnostic]]:
    """ryeos's refusal for the first blocked capability, else None."""
    config, diags = load_config(snapshot, spaces, "capability_risk.yaml")
    levels = config.get("risk_levels") if isinstance(config.get("risk_levels"), dict) else {}
    classes = config.get("classifications")
    classes = [c for c in classes if isinstance(c, dict)] if isinstance(classes, list) else []
    for cap in caps:
        best: dict[str, Any] | None = None
        best_dots = -1
        for entry in classes:
            patterns = entry.get("patterns")
            for pattern in patterns if isinstance(patterns, list) else []:
                dots = pattern.count(".") if isinstance(pattern, str) else -1
                if dots > best_dots and fnmatchcase(cap, pattern):
                    best, best_dots = entry, dots
        if best is None:
            continue
        risk = str(best.get("risk", "safe"))
        level = levels.get(risk) if isinstance(levels, dict) else None
        policy = level.get("policy", "allow") if isinstance(level, dict) else "allow"
        if policy == "block" and risk not in acknowledged:
            return (
                f"Capability '{cap}' classified as '{risk}' ({best.get('description', '')}). "
                f'Add <acknowledge risk="{risk}"> to the directive\'s <permissions> to '
                "explicitly allow this."
            ), diags
    return None, diags
