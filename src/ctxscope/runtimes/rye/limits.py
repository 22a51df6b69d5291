"""Thread limits as ryeos 0.1 resolves them (`thread_directive._resolve_limits`): the
`limits.defaults` of resilience.yaml (system bundles, then user, then project, merged key by
key), overridden by the leaf directive's `<limits>`. A `<limits>` key the defaults do not
have makes ryeos raise: the thread does not start."""

from __future__ import annotations

from functools import partial
from typing import Any

from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.threaddata import Directive
from ctxscope.runtimes.rye.tiers import Space, outside_space, parse_cached
from ctxscope.runtimes.rye.tools import parse_resilience


def limit_defaults(snapshot: Snapshot, spaces: list[Space]) -> dict[str, Any]:
    """The merged `limits.defaults` of every space's resilience.yaml (lowest tier first)."""
    merged: dict[str, Any] = {}
    for space in reversed(spaces):
        path = str(space.root / "config" / "agent" / "resilience.yaml")
        if outside_space(space, path) is not None:
            continue  # named by the palette's reading of the same file
        res = parse_cached(snapshot, "resilience", path, partial(parse_resilience, path=path))
        parsed = res[0] if res is not None else None
        data = parsed[0] if parsed is not None else None
        limits = data.get("limits") if isinstance(data, dict) else None
        defaults = limits.get("defaults") if isinstance(limits, dict) else None
        if isinstance(defaults, dict):
            merged.update(defaults)
    return merged


def resolve_limits(
    snapshot: Snapshot, spaces: list[Space], leaf: Directive
) -> tuple[dict[str, Any], str | None]:
    """(the thread's limits, ryeos's refusal when `<limits>` names an unknown key)."""
    defaults = limit_defaults(snapshot, spaces)
    for key in leaf.limits:
        if key not in defaults:
            return {**defaults, **leaf.limits}, (
                f"Unknown limit '{key}' in directive <limits>. "
                f"Valid limits: {', '.join(sorted(defaults))}"
            )
    return {**defaults, **leaf.limits}, None
