"""The plain dataclasses every layer shares.

The engine returns these; the CLI, the TUI and the Python API only read them. Each value a
user sees carries its provenance (`source`, `reason`, `rule`), so "why" questions are answered
from the data rather than recomputed.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from ctxscope.core.record import record
from ctxscope.core.safetext import line_safe
from ctxscope.core.tokens import estimate_tokens, text_chars

Severity = Literal["error", "warning", "info"]

FileStatus = Literal[
    "injected",
    "truncated",
    "missing",
    "unreadable",
    "empty",
    "excluded",
    "not-injected",
    "first-run",
]
"""`first-run`: absent on disk; the runtime writes its template there before its first run."""
SessionKind = Literal["main", "subagent", "cron", "other"]
PromptMode = Literal["full", "minimal", "none"]
MarkerKind = Literal["truncation", "missing", "placeholder", "label"]


@record(frozen=True)
class Marker:
    """A stretch of text the engine itself wrote into a prompt, so faces can show it without
    searching for it: a truncation marker, a `[MISSING]` body, a runtime placeholder, or a
    label of the first user message. Offsets are Python string indices, end exclusive."""

    start: int
    end: int
    kind: MarkerKind

    def shifted(self, by: int) -> Marker:
        return Marker(self.start + by, self.end + by, self.kind)


@record(frozen=True)
class SkillEntry:
    """A workspace skill and whether the session's skills section lists it."""

    name: str
    path: str
    listed: bool
    reason: str


@record(frozen=True)
class Diagnostic:
    """One problem found in user content: what, where, how bad."""

    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    code: str = ""
    """A short machine-readable kind, e.g. `config-parse`, `file-binary`, `extends-cycle`."""

    @property
    def location(self) -> str:
        """`path:line:col`, as much of it as is known ("" when nothing is)."""
        if not self.path:
            return ""
        loc = self.path
        if self.line is not None:
            loc += f":{self.line}"
            if self.column is not None:
                loc += f":{self.column}"
        return loc

    def __str__(self) -> str:
        """The diagnostic on one line (`line_safe`: a name in it cannot start another)."""
        where = self.location
        return line_safe(
            f"{where}: {self.severity}: {self.message}"
            if where
            else f"{self.severity}: {self.message}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
        }


@record
class Section:
    """One section of an assembled system prompt, in prompt order."""

    id: str
    """Stable id: `tooling`, `safety`, `skills`, `project_context`, `file:AGENTS.md`, ..."""
    heading: str
    """The heading line exactly as it appears in the prompt (`""` for the identity line)."""
    text: str
    """The section's full text, heading included."""
    source: str
    """Where the text comes from: `runtime`, `profile:<name>`, `config:<key>`, `scenario:<field>`,
    `workspace:<abs path>`, `skills:<dir>`."""
    rule: str = ""
    """Why the section is present (or how it was gated), in words."""
    placeholder: bool = False
    """True for runtime boilerplate that ctxscope does not reproduce (a marked stand-in)."""
    typical_chars: int = 0
    """For placeholders: the typical size of the real runtime text."""
    tokens: int = 0
    markers: list[Marker] = field(default_factory=list)
    """Where in `text` the engine's own markers sit (truncation, missing, placeholder)."""
    real_chars: int | None = field(default=None, compare=False)
    """In a display copy whose `text` has values masked (`secrets.EnvMask`): the size of the
    real text, which `chars` keeps reporting."""

    @property
    def chars(self) -> int:
        """The size the runtime sends: for a placeholder, the real text's measured size (its
        heading line included), not the stand-in's."""
        if self.real_chars is not None:
            return self.real_chars
        if self.placeholder:
            return (len(self.heading) + 1 if self.heading else 0) + self.typical_chars
        return text_chars(self.text)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "heading": self.heading,
            "chars": self.chars,
            "tokens": self.tokens,
            "source": self.source,
        }
        if self.placeholder:
            out["placeholder"] = True
        return out


@record
class FileEntry:
    """One bootstrap-file candidate of a session, in load order."""

    name: str
    path: str
    status: FileStatus
    raw_chars: int
    """Right-trimmed length on disk (0 when missing)."""
    injected_chars: int
    """What reached the prompt: the marker's length for a missing file; 0 when excluded, empty,
    not injected or dropped by the budget."""
    reason: str
    body: str = ""
    """The text injected under the file's heading ("" when nothing was)."""
    markers: list[Marker] = field(default_factory=list)
    """Where in `body` a truncation marker or a `[MISSING]` marker sits."""
    stand_in: bool = False
    """`body` is a one-line stand-in for a text ctxscope cannot read (a first-run template
    without an install); `injected_chars` is the real text's measured size."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "path": self.path,
            "status": self.status,
            "raw_chars": self.raw_chars,
            "injected_chars": self.injected_chars,
            "reason": self.reason,
        }
        if self.stand_in:
            out["stand_in"] = True
        return out


@record
class SessionTokens:
    """≈tokens of a session's request: its system prompt, the tools sent beside it, its
    messages (the first user message, `task`, among them) and all of it (`total`)."""

    system: int
    task: int
    total: int
    tools: int = 0
    messages: int = 0
    """Every message of the request (0 before the request is known: then `task` is what
    `total` adds to the prompt)."""

    def to_dict(self) -> dict[str, int]:
        return {
            "system": self.system,
            "tools": self.tools,
            "messages": self.messages,
            "task": self.task,
            "total": self.total,
        }


@record
class Session:
    """Everything one session is told before it runs."""

    session_key: str
    agent_id: str
    kind: SessionKind
    prompt_mode: PromptMode
    profile: str
    workspace: str
    system_prompt: str
    sections: list[Section]
    files: list[FileEntry]
    tokens: SessionTokens
    context_window: int
    task_message: str | None = None
    model: str | None = None
    tokenizer: str = "≈estimate"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    kind_rule: str = ""
    """Why the session key was classified as `kind` (and so which prompt mode applies)."""
    absent_sections: dict[str, str] = field(default_factory=dict)
    """Section id -> why its generator added nothing (its input does not exist)."""
    skills: list[SkillEntry] = field(default_factory=list)
    """Every workspace skill, listed in the skills section or not, with the rule."""
    task_markers: list[Marker] = field(default_factory=list)
    """The runtime's labels in `task_message`."""
    removed_tools: dict[str, str] = field(default_factory=dict)
    """Scenario tools the config's tool policy takes from this session (tool -> rule)."""
    runtime_version: str = ""
    """The runtime release the profile models (or the detected one it stands in for)."""
    profile_choice: str = ""
    """How the profile was chosen (`meta.lastTouchedVersion in openclaw.json`, ...)."""
    exact: str = ""
    """Exact mode: the installed runtime whose own text the sections hold (else empty: the
    text is ctxscope's model of it)."""
    exact_sha256: str | None = None
    """Exact mode, where the runtime's runner prepared the session: the sha256 of its prompt
    before the transports' edits (boundary markers kept), as OpenClaw records it in a run's
    `systemPrompt.hash`."""
    exact_figures: dict[str, Any] | None = None
    """Exact mode, runner only: the figures a run records of that prompt, by the runtime's
    own report builder (`systemPrompt`: chars, hash, projectContextChars,
    nonProjectContextChars; `skills`: promptChars, hash; `tools`: schemaChars)."""
    request: Any = field(default=None, repr=False, compare=False)
    """What the engine built the session from (the OpenClaw builder's `SessionRequest`)."""
    runtime_skill_chars: int = 0
    """What the skills section counts for the runtime's own skills (bundled with it and its
    default plugins): their entries and the newlines joining them."""
    wire: Any = field(default=None, repr=False, compare=False)
    """The whole request the model gets (`openclaw.request.ModelRequest`: system prompt,
    tools, messages), when the runtime's additions are known."""

    def file(self, name: str) -> FileEntry | None:
        for entry in self.files:
            if entry.name == name:
                return entry
        return None

    def file_tokens(self, entry: FileEntry) -> int:
        """The tokens a file adds: its section's count (by the session's tokenizer), else the
        chars/4 rule on what was injected."""
        section = self.section(f"file:{entry.name}")
        return section.tokens if section is not None else estimate_tokens(entry.injected_chars)

    def section(self, section_id: str) -> Section | None:
        for sec in self.sections:
            if sec.id == section_id:
                return sec
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_key": self.session_key,
            "agent_id": self.agent_id,
            "kind": self.kind,
            "prompt_mode": self.prompt_mode,
            "profile": self.profile,
            "runtime_version": self.runtime_version or None,
            "profile_choice": self.profile_choice or None,
            "exact": self.exact or None,
            "system_prompt": self.system_prompt,
            "sections": [s.to_dict() for s in self.sections],
            "files": [f.to_dict() for f in self.files],
            "task_message": self.task_message,
            "removed_tools": self.removed_tools,
            "request": self.wire.to_dict() if self.wire is not None else None,
            "tokens": self.tokens.to_dict(),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@record
class Explanation:
    """One answer to "is ITEM there, and why?" for one scope (a session or a directive)."""

    item: str
    scope: str
    """What the answer is about: a session key (`agent:main:main`) or `directive <id>`."""
    present: bool
    status: str
    """A short word: `injected`, `excluded`, `truncated`, `suppressed`, `shadowed`, ..."""
    rule: str
    """The rule that decided, in words a user can act on."""
    source: str = ""
    """The file, config key or hook behind the rule."""
    remedies: list[str] = field(default_factory=list)
    """What would give the scope the item (or all of it), in the runtime version in use."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "scope": self.scope,
            "present": self.present,
            "status": self.status,
            "rule": self.rule,
            "source": self.source,
            "remedies": self.remedies,
        }
