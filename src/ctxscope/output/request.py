"""A session's whole request (system prompt, tools, messages) as table rows and text."""

from __future__ import annotations

from ctxscope.core.model import Session
from ctxscope.core.tokens import is_estimate
from ctxscope.runtimes.openclaw.request import NODE_CHARS, SESSION_ID_CHARS, ModelRequest


def request_of(session: Session) -> ModelRequest | None:
    wire = session.wire
    return wire if isinstance(wire, ModelRequest) else None


def tools_label(request: ModelRequest) -> str:
    """`12 sent, 46 deferred (Tool Search on)`, `55 sent (Tool Search off)`, `21 sent`."""
    if request.plan.tools is None:
        return "not known"
    sent = f"{len(request.tools)} sent"
    if request.tool_search is None:
        return sent
    if request.tool_search:
        return f"{sent}, {len(request.deferred)} deferred (Tool Search on)"
    return f"{sent} (Tool Search off)"


def part_headers(session: Session) -> tuple[str, ...]:
    return ("part", "chars", "≈tokens" if is_estimate(session.tokenizer) else "tokens", "what")


def _mark(session: Session, tokens: int, estimate: bool = True) -> int | str:
    """A count sized by chars/4 (tools, a message known by its size, a total holding them),
    marked `≈` where the column's others are exact."""
    return f"≈{tokens:,}" if estimate and not is_estimate(session.tokenizer) else tokens


def part_rows(session: Session) -> list[tuple[object, ...]]:
    """The request's parts: prompt, tools, each message, and the total."""
    request = request_of(session)
    if request is None:
        return []
    rows: list[tuple[object, ...]] = [
        (
            "system prompt",
            request.system_prompt_chars,
            _mark(session, request.system_tokens, any(s.placeholder for s in session.sections)),
            "the sections above"
            + (
                "; its Runtime line moves to the first message" if request.plan.runtime_line else ""
            ),
        ),
        (
            "tools",
            request.tool_chars,
            _mark(session, request.tool_tokens, bool(request.tools)),
            f"{tools_label(request)}; {request.tool_schema_chars:,} schema chars; "
            f"{request.plan.catalog_source}",
        ),
    ]
    line = f" and Runtime line{_machine_note(request)}" if request.plan.runtime_line else ""
    for m in request.messages:
        what = {
            "task": f"the subagent's first message, time prefix{line}",
            "user": f"the user's turn: time prefix{line} (the user's own words not counted)",
            "internal-context": "active exec sessions and subagents (measured size)",
        }.get(m.kind, "")
        rows.append(
            (f"{m.role} message · {m.kind}", m.chars, _mark(session, m.tokens, m.estimate), what)
        )
    rows.append(("total", request.total_chars, _mark(session, request.tokens), ""))
    return rows


def _machine_note(request: ModelRequest) -> str:
    """What the moved `Runtime:` line's machine fields are counted as."""
    if not request.plan.machine:
        return ""
    fields = [f for f, _ in request.plan.machine if f != "node"]
    return (
        f" (counted with this machine's {', '.join(fields)}; the session id at a UUID's "
        f"{SESSION_ID_CHARS} chars, Node's version at {NODE_CHARS})"
    )


TOOL_HEADERS = ("tool", "description chars", "schema chars")


def tool_rows(session: Session) -> list[tuple[object, ...]]:
    request = request_of(session)
    if request is None:
        return []
    return [(t.name, t.description_chars, t.schema_chars) for t in request.tools]


def deferred_line(session: Session) -> str:
    request = request_of(session)
    if request is None or not request.deferred:
        return ""
    return "deferred (listed in the prompt, fetched through tool_search): " + ", ".join(
        request.deferred
    )


def stand_in_note(session: Session) -> str:
    request = request_of(session)
    if request is None or not request.stand_in:
        return ""
    return (
        "stand-in: tool sizes are facts measured on the release's requests, not read from "
        "an install"
    )
