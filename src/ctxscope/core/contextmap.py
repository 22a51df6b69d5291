"""Where a session's tokens go: its context window split into categories, and a cell grid.

Categories: each workspace file by name, the tool list, skills, subagent context, the tool
schemas sent beside the prompt, the first user message (all the request's messages once the
request is known), everything else the runtime writes (boilerplate, time, runtime line...),
and the free part of the context window. Together they count the whole request. `cells`
spreads them over a fixed number of cells by the largest-remainder rule, so the grid adds up
exactly and every category that holds tokens shows at least one cell.
"""

from __future__ import annotations

from ctxscope.core.model import Session
from ctxscope.core.record import record
from ctxscope.core.tokens import estimate_tokens

KINDS = ("file", "tools", "skills", "subagent", "schemas", "task", "runtime", "free")
"""Category kinds, in legend order."""

_SECTION_KIND = {"tooling": "tools", "skills": "skills", "subagent_context": "subagent"}
_LABEL = {
    "tools": "tool list",
    "skills": "skills",
    "subagent": "subagent context",
    "schemas": "tool schemas",
    "task": "first user message",
    "runtime": "runtime text",
    "free": "free space",
}


FILE_COLOURS = tuple(f"ctx-map-file-{i}" for i in range(1, 11))
"""Theme variables the workspace files take in turn (ten: more than the runtime's bootstrap
set, so no two files of a session share one until a session shows more than ten)."""
KIND_COLOUR = {
    "tools": "ctx-map-tools",
    "skills": "ctx-map-skills",
    "subagent": "ctx-map-subagent",
    "schemas": "ctx-map-schemas",
    "task": "ctx-map-task",
    "runtime": "ctx-map-runtime",
    "free": "ctx-section-rule",
}
EMPTY_COLOUR = "ctx-section-rule"
"""The theme variable of an empty cell (a part of the scale this session does not use)."""


@record(frozen=True)
class MapCategory:
    """One colour of the context map: a workspace file or a kind of runtime text, with its
    ≈tokens and the sections it covers."""

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
    if session.wire is not None:
        if session.tokens.tools:
            other["schemas"] = (session.tokens.tools, ["schemas"])
        other["task"] = (session.tokens.messages, ["task"])
    elif session.task_message is not None:
        other["task"] = (session.tokens.task, ["task"])
    out = [
        MapCategory(key, key.removeprefix("file:"), "file", tokens, tuple(ids))
        for key, (tokens, ids) in files.items()
    ]
    for kind in KINDS[1:-1]:
        if kind in other:
            tokens, ids = other[kind]
            label = "messages" if kind == "task" and session.wire is not None else _LABEL[kind]
            out.append(MapCategory(kind, label, kind, tokens, tuple(ids)))
    used = sum(c.tokens for c in out)
    out.append(MapCategory("free", _LABEL["free"], "free", max(0, session.context_window - used)))
    return out


RECORDED_REST = "rest of the prompt (recorded)"
"""The label of a recorded run's prompt beyond its files (not split: a record has no
section texts)."""


def recorded_map(session: Session) -> list[MapCategory]:
    """The categories a recorded run's session holds (figures, no section texts): each file
    it injected by its recorded injected chars, the rest of the recorded prompt (its chars
    less the files'), the tool schemas and the messages as recorded, then free space. Tokens
    are the session's, estimated from those chars (chars/4), so the categories add up to its
    total."""
    files = [
        MapCategory(
            f"file:{f.name}", f.name, "file", estimate_tokens(f.injected_chars), (f"file:{f.name}",)
        )
        for f in session.files
        if f.injected_chars > 0
    ]
    tokens = session.tokens
    rest = max(0, tokens.system - sum(c.tokens for c in files))
    out = [*files, MapCategory("runtime", RECORDED_REST, "runtime", rest)]
    if tokens.tools:
        out.append(
            MapCategory("schemas", "tool schemas (recorded)", "schemas", tokens.tools, ("schemas",))
        )
    if tokens.messages:
        out.append(MapCategory("task", "messages (recorded)", "task", tokens.messages, ("task",)))
    used = sum(c.tokens for c in out)
    out.append(MapCategory("free", _LABEL["free"], "free", max(0, session.context_window - used)))
    return out


def colour_vars(*maps: list[MapCategory]) -> dict[str, str]:
    """The theme variable of each category key of one or more maps (main, then subagent):
    files take the file colours in turn (in legend order, a file keeping its colour in every
    map given), the rest their kind's."""
    out: dict[str, str] = {}
    files = 0
    for categories in maps:
        for c in categories:
            if c.key in out:
                continue
            if c.kind == "file":
                out[c.key] = FILE_COLOURS[files % len(FILE_COLOURS)]
                files += 1
            else:
                out[c.key] = KIND_COLOUR[c.kind]
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


def grid(used: list[MapCategory], scale: int, count: int) -> list[MapCategory | None]:
    """`count` cells for the categories in `used` (free space left out), each cell standing
    for `scale / count` tokens, so a session smaller than `scale` leaves cells empty (None)
    at the end. Two sessions drawn with one `scale` share a cell size."""
    total = sum(c.tokens for c in used)
    if total <= 0 or count <= 0:
        return [None] * max(count, 0)
    empty = MapCategory("empty", "", "free", max(scale, total) - total)
    out: list[MapCategory | None] = []
    for c, n in zip([*used, empty], cells([*used, empty], count), strict=True):
        out += [None if c is empty else c] * n
    return out


def lost_labels(main: list[MapCategory], child: list[MapCategory]) -> list[str]:
    """Files and skills of the main session's map that the subagent's map lacks."""
    keys = {c.key for c in child}
    return [c.label for c in main if c.kind in ("file", "skills") and c.key not in keys]
