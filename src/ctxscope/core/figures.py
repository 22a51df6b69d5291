"""What one session is told, in figures: the one shape a build, a recorded run and a
revision's build are all put in before they are compared.

Per session: the prompt's, the tools' and the messages' chars and tokens, the sections, the
files (raw and injected chars, status, a digest of the injected text where the side has it),
the tools sent, what the tool policy removed, the runtime release. What a side does not hold
(a record holds figures, not texts: no sections, no digests, no token counts) is the value
`NOT_RECORDED`, not a flag beside the figures: a comparison sees it where it looks.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable
from dataclasses import field

from ctxscope.core.model import FileEntry, Session
from ctxscope.core.record import record
from ctxscope.core.tokens import estimate_tokens


class NotRecorded(enum.Enum):
    """A figure the side does not hold (a record's section texts, token counts, digests)."""

    NOT_RECORDED = "not recorded"

    def __str__(self) -> str:
        return self.value


NOT_RECORDED = NotRecorded.NOT_RECORDED


@record
class Part:
    """One part of the request the model gets: its chars and its tokens."""

    chars: int
    tokens: int | NotRecorded
    items: tuple[int, ...] | None = None
    """Each item's chars (a tool's, a message's), where the part is made of several: counted
    chars/4, each item is counted on its own, as the runtime's report does."""
    measured: bool = True
    """False: the side knows the part's tokens only (a build without its request's wire)."""

    def chars4(self) -> int:
        """The part's tokens counted chars/4 (item by item where it has items)."""
        if not self.measured and isinstance(self.tokens, int):
            return self.tokens
        if self.items is not None:
            return sum(estimate_tokens(c) for c in self.items)
        return estimate_tokens(self.chars)

    def counted(self, chars4: bool) -> int:
        """The part's tokens: its own count, else (`chars4`, or none recorded) chars/4."""
        if chars4 or not isinstance(self.tokens, int):
            return self.chars4()
        return self.tokens


@record
class FileFigures:
    name: str
    path: str
    status: str
    raw_chars: int | NotRecorded
    """The file's size on disk; `NOT_RECORDED` where a record gives none."""
    injected_chars: int
    tokens: int
    """What the file adds to the prompt (its section's count, else chars/4)."""
    reason: str
    digest: str | NotRecorded
    """The sha256 of the file's text as the side read it (a revision's scratch path shown
    as its repository's); `NOT_RECORDED` for a record."""


@record
class SectionFigures:
    id: str
    heading: str
    chars: int
    tokens: int
    rule: str = ""


@record
class SessionFigures:
    """One session of one side (a build, a recorded run, a revision), in figures."""

    session_key: str
    agent_id: str
    kind: str
    prompt_mode: str
    prompt: Part
    tools: Part
    messages: Part
    total: int | NotRecorded
    context_window: int
    files: tuple[FileFigures, ...]
    sections: tuple[SectionFigures, ...] | NotRecorded
    sent: tuple[str, ...] | NotRecorded
    """The tools sent beside the prompt, in order; `NOT_RECORDED` for a record that lists
    none (an empty list is a record of none sent)."""
    deferred: tuple[str, ...] = ()
    listed: tuple[str, ...] | NotRecorded = ()
    """The tools the prompt's tool lines name; a record lists none."""
    removed_tools: dict[str, str] = field(default_factory=dict)
    absent_sections: dict[str, str] = field(default_factory=dict)
    runtime_release: str | NotRecorded = ""
    model: str | None = None
    workspace: str = ""
    prompt_hash: str | NotRecorded = NOT_RECORDED
    """The prompt's sha256: a record's `systemPrompt.hash`; a build's of its text (exact
    mode's as the runtime hashes it, boundary markers kept)."""
    skills: tuple[str, ...] | NotRecorded = NOT_RECORDED
    """The skills the prompt lists, by name."""
    tool_schema_chars: int | NotRecorded = NOT_RECORDED
    """The chars of the tools' schemas sent beside the prompt."""
    limits: tuple[int | NotRecorded, int | NotRecorded] = (NOT_RECORDED, NOT_RECORDED)
    """The bootstrap limits (`bootstrapMaxChars`, `bootstrapTotalMaxChars`) the side ran
    with; a build holds none (they come from its config)."""
    generated_at: int | NotRecorded = NOT_RECORDED
    """When the run was recorded (ms since the epoch); a build's is not recorded."""
    release_from: str = ""
    """How the runtime release is known, in words (a record's store says so, or its store's
    format: `a sessions.json store, which the 2026.2 line writes`)."""

    @property
    def recorded(self) -> bool:
        """A record's figures: chars without texts."""
        return self.sections is NOT_RECORDED


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def prompt_chars(session: Session) -> int:
    """The prompt's size as the runtime counts it: each section at its real size (a
    placeholder's measured one), joined by newlines."""
    return sum(s.chars for s in session.sections) + max(0, len(session.sections) - 1)


def _file(session: Session, entry: FileEntry, shown: Callable[[str], str]) -> FileFigures:
    delivered = entry.status in ("injected", "truncated")
    return FileFigures(
        entry.name,
        entry.path,
        entry.status,
        entry.raw_chars,
        entry.injected_chars,
        session.file_tokens(entry) if delivered else 0,
        shown(entry.reason),
        digest(shown(entry.body)),
    )


def _listed(session: Session) -> tuple[str, ...]:
    tools = getattr(session.request, "tools", None)
    return tuple(tools) if isinstance(tools, list | tuple) else ()


def _same(text: str) -> str:
    return text


def of_session(session: Session, shown: Callable[[str], str] = _same) -> SessionFigures:
    """A built session's figures (`shown`: how the side names its paths)."""
    t, wire = session.tokens, session.wire
    tools: tuple[int, ...] | None = tuple(x.chars for x in wire.tools) if wire else None
    messages: tuple[int, ...] | None = tuple(m.chars for m in wire.messages) if wire else None
    # The prompt's size as OpenClaw's report counts it (`systemPrompt.chars`); a session
    # without sections carries its size on its request.
    chars = wire.system_prompt_chars if wire and not session.sections else prompt_chars(session)
    return SessionFigures(
        session.session_key,
        session.agent_id,
        session.kind,
        session.prompt_mode,
        Part(chars, t.system),
        Part(sum(tools or ()), t.tools, tools, wire is not None),
        Part(sum(messages or ()), t.messages, messages, wire is not None),
        t.total,
        session.context_window,
        tuple(_file(session, f, shown) for f in session.files),
        tuple(
            SectionFigures(s.id, shown(s.heading) if s.heading else "", s.chars, s.tokens, s.rule)
            for s in session.sections
        ),
        tuple(x.name for x in wire.tools) if wire else (),
        tuple(wire.deferred) if wire else (),
        _listed(session),
        dict(session.removed_tools),
        {k: shown(v) for k, v in session.absent_sections.items()},
        session.runtime_version,
        session.model,
        session.workspace,
        _prompt_hash(session),
        tuple(s.name for s in session.skills if s.listed),
        wire.tool_schema_chars if wire else NOT_RECORDED,
    )


def _prompt_hash(session: Session) -> str:
    """The prompt's sha256 as a record's `systemPrompt.hash` is: exact mode's as the
    runtime hashes it (its boundary markers kept), else the prompt as shown."""
    exact = session.exact_sha256 if session.exact else None
    return exact or digest(session.system_prompt)
