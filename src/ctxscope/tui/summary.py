"""The one-line summary under each pane's header: where the session's tokens go, by
category, and for the subagent what it lacks. No Textual here.

`pane_totals` is the one place the line reads its figures from, so that counting more of
the request (the tool schemas) changes one function."""

from __future__ import annotations

from ctxscope.core.contextmap import context_map
from ctxscope.core.model import Explanation, Session
from ctxscope.remedies import lost_tokens

SHORT = {
    "file": "files",
    "tools": "tools",
    "skills": "skills",
    "subagent": "subagent",
    "schemas": "tool schemas",
    "task": "task",
    "runtime": "runtime",
}
"""The summary's word for each context-map kind."""


def pane_totals(session: Session) -> list[tuple[str, int]]:
    """(category, ≈tokens) of the session's whole request, largest first: workspace files
    together, the tool list, skills, subagent context, the tool schemas sent beside the
    prompt, the messages (or the first user message), other runtime text."""
    totals: dict[str, int] = {}
    for c in context_map(session):
        if c.kind != "free" and c.tokens:
            word = "msgs" if c.kind == "task" and session.wire is not None else SHORT[c.kind]
            totals[word] = totals.get(word, 0) + c.tokens
    return sorted(totals.items(), key=lambda kv: -kv[1])


def summary_line(
    session: Session, lost: list[Explanation] | None = None, main: Session | None = None
) -> str:
    """`files 6,787 · runtime 1,437 · tools 214` (≈tokens; the bar above has the total); for
    a subagent (`lost` and the requester `main` given) what it lacks comes first: `lacks 6
    files ≈5,865, 7 sections ≈980 tok │ files 1,598 · …`."""
    line = " · ".join(f"{word} {tokens:,}" for word, tokens in pane_totals(session))
    if lost and main is not None:
        tokens = lost_tokens(main, lost)
        files = [e.item for e in lost if e.status != "gated"]
        sections = [e.item for e in lost if e.item not in files]
        lacks = []
        if files:
            total = sum(tokens.get(f, 0) for f in files)
            lacks.append(f"{len(files)} file{'s' if len(files) > 1 else ''} ≈{total:,}")
        if sections:
            total = sum(tokens.get(s, 0) for s in sections)
            lacks.append(f"{len(sections)} section{'s' if len(sections) > 1 else ''} ≈{total:,}")
        line = f"lacks {', '.join(lacks)} tok │ {line}"
    return line
