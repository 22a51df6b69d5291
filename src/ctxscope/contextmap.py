"""Where a session's tokens go: its context window split into categories, and a cell grid.

Categories: each workspace file by name, the tool list, skills, subagent context, the first
user message, everything else the runtime writes (boilerplate, time, runtime line...), and the
free part of the context window. `cells` spreads them over a fixed number of cells by the
largest-remainder rule, so the grid adds up exactly and every category that holds tokens shows
at least one cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxscope.model import Session

KINDS = ("file", "tools", "skills", "subagent", "task", "runtime", "free")
"""Category kinds, in legend order."""

_SECTION_KIND = {"tooling": "tools", "skills": "skills", "subagent_context": "subagent"}
_LABEL = {
    "tools": "tool list",
    "skills": "skills",
    "subagent": "subagent context",
    "task": "first user message",
    "runtime": "runtime text",
    "free": "free space",
}


@dataclass(frozen=True)
class MapCategory:
    key: str
    """`file:<name>` for a workspace file, else the kind."""
    label: str
    kind: str
    tokens: int
    sections: tuple[str, ...] = ()
    """Section ids it covers (`task` for the first user message); empty for free space."""


def context_map(session: Session) -> list[MapCategory]:
    """The session's categories in legend order (files in prompt order), free space last."""
    files: dict[str, tuple[int, list[str]]] = {}
    other: dict[str, tuple[int, list[str]]] = {}
    for s in session.sections:
        if s.id.startswith("file:"):
            tokens, ids = files.setdefault(s.id, (0, []))
            files[s.id] = (tokens + s.tokens, [*ids, s.id])
            continue
        kind = _SECTION_KIND.get(s.id, "runtime")
        tokens, ids = other.get(kind, (0, []))
        other[kind] = (tokens + s.tokens, [*ids, s.id])
    if session.task_message is not None:
        other["task"] = (session.tokens.task, ["task"])
    out = [
        MapCategory(key, key.removeprefix("file:"), "file", tokens, tuple(ids))
        for key, (tokens, ids) in files.items()
    ]
    for kind in KINDS[1:-1]:
        if kind in other:
            tokens, ids = other[kind]
            out.append(MapCategory(kind, _LABEL[kind], kind, tokens, tuple(ids)))
    used = sum(c.tokens for c in out)
    out.append(MapCategory("free", _LABEL["free"], "free", max(0, session.context_window - used)))
    return out


def cells(categories: list[MapCategory], count: int) -> list[int]:
    """How many of `count` cells each category gets: proportional to tokens (largest
    remainder), at least one for any category with tokens while cells last (taken from the
    largest share)."""
    total = sum(c.tokens for c in categories)
    if total <= 0 or count <= 0:
        return [0] * len(categories)
    exact = [c.tokens * count / total for c in categories]
    shares = [int(x) for x in exact]
    left = count - sum(shares)
    order = sorted(range(len(exact)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in order[:left]:
        shares[i] += 1
    for i, c in enumerate(categories):
        if c.tokens > 0 and shares[i] == 0:
            donor = max(range(len(shares)), key=lambda j: shares[j])
            if shares[donor] > 1:
                shares[donor] -= 1
                shares[i] = 1
    return shares
