"""What a comparison finds, session by session: the files whose status or injected size
changed, sections added, removed or resized, tools gained or lost, the spawn's policy checks
that changed, a Rye thread's chain and hooks, and beside a recorded run the cause of each
difference (`diff.verdict`). Made by `diff.compare.compare`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ctxscope.core.record import record
from ctxscope.core.secrets import EnvMask
from ctxscope.diff.verdict import Verdict

if TYPE_CHECKING:
    from ctxscope.runtimes.openclaw.configread import EnvString

DELIVERED = ("injected", "truncated")
"""File statuses that put (some of) the file in the prompt."""


@record
class FileChange:
    """A file whose status or injected size differs between the sides."""

    name: str
    before: dict[str, Any] | None
    """`{status, injected_chars, raw_chars, tokens, reason}`; None: not a candidate there."""
    after: dict[str, Any] | None

    @property
    def lost(self) -> bool:
        """The file reached the prompt before and no longer does."""
        return _delivered(self.before) and not _delivered(self.after)

    @property
    def gained(self) -> bool:
        return _delivered(self.after) and not _delivered(self.before)

    @property
    def cut(self) -> bool:
        """The file is cut (truncated or dropped by the budget) after and was whole before."""
        after = self.after or {}
        return (
            after.get("status") == "truncated" and (self.before or {}).get("status") != "truncated"
        )

    @property
    def cut_more(self) -> int:
        """Chars more that a cut leaves out of a file cut on both sides (0: none more)."""
        before, after = self.before or {}, self.after or {}
        if before.get("status") != "truncated" or after.get("status") != "truncated":
            return 0
        return max(0, _left_out(after) - _left_out(before))

    why: str = ""
    """The rule behind the new state: the after side's reason, else why it lists the file no
    more."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "before": self.before, "after": self.after, "why": self.why}


def _left_out(side: dict[str, Any]) -> int:
    """The chars of a file its cut leaves out of the prompt."""
    return max(0, int(side.get("raw_chars") or 0) - int(side.get("injected_chars") or 0))


def _delivered(entry: dict[str, Any] | None) -> bool:
    return entry is not None and entry["status"] in DELIVERED


@record
class SectionChange:
    """A section added, removed or resized."""

    id: str
    heading: str
    change: str
    """`added`, `removed` or `resized`."""
    chars_before: int
    chars_after: int
    tokens_before: int
    tokens_after: int
    why: str = ""
    """For a removed section, why the other side's generator added nothing (when known); for
    an added one, the rule that put it there."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "heading": self.heading,
            "change": self.change,
            "chars": [self.chars_before, self.chars_after],
            "tokens": [self.tokens_before, self.tokens_after],
            "why": self.why,
        }


@record
class ToolChange:
    name: str
    change: str
    """`gained` or `lost` (sent beside the prompt), `deferred` or `undeferred` (Tool Search),
    `listed` or `unlisted` (in the prompt's tool lines)."""
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "change": self.change, "why": self.why}


@record
class PolicyChange:
    check: str
    before: str
    """`ok`, `fails: <error>` or `—` (not checked)."""
    after: str

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "before": self.before, "after": self.after}


@record
class ThreadChange:
    """A Rye thread's chain, hooks and palette, compared."""

    directive: str
    chain_before: list[str]
    chain_after: list[str]
    hooks_gained: list[str] = field(default_factory=list)
    hooks_lost: list[str] = field(default_factory=list)

    @property
    def chain_changed(self) -> bool:
        return self.chain_before != self.chain_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "chain": {"before": self.chain_before, "after": self.chain_after},
            "hooks": {"gained": self.hooks_gained, "lost": self.hooks_lost},
        }


@record
class SessionDiff:
    """One session on both sides (None: the side has no such session)."""

    session_key: str
    role: str
    """`main` (an agent's main session), `child` (the spawn's) or `rye` (a thread)."""
    before: dict[str, int] | None
    """Tokens: `{system, tools, messages, total, context_window}`."""
    after: dict[str, int] | None
    files: list[FileChange] = field(default_factory=list)
    sections: list[SectionChange] = field(default_factory=list)
    tools: list[ToolChange] = field(default_factory=list)
    policy: list[PolicyChange] = field(default_factory=list)
    allowed: tuple[bool | None, bool | None] = (None, None)
    """Whether the spawn is allowed, before and after (child only)."""
    thread: ThreadChange | None = None
    before_key: str | None = None
    """The other side's key when it differs (the spawn's target changed)."""
    estimated: tuple[bool, bool] = (False, False)
    """Whether the before and after tokens are an estimate from chars (chars/4)."""
    counting: str = ""
    """How both sides' tokens are counted, where it is not each side's own tokenizer
    (`CHARS4_COUNTING` beside a recorded run)."""
    not_recorded: tuple[str, ...] = ()
    """What a recorded run's side lacks, so it is compared on neither side (`sections`)."""
    verdict: Verdict | None = None
    """Beside a recorded run and the workspace now: why they part, cause by cause."""

    @property
    def delta(self) -> int:
        return (self.after or {}).get("total", 0) - (self.before or {}).get("total", 0)

    @property
    def changed(self) -> bool:
        return bool(
            self.delta
            or self.files
            or self.sections
            or self.tools
            or self.policy
            or (self.before is None) != (self.after is None)
            or (
                self.thread is not None
                and (
                    self.thread.chain_changed or self.thread.hooks_gained or self.thread.hooks_lost
                )
            )
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "session_key": self.session_key,
            "role": self.role,
            "before": self.before,
            "after": self.after,
            "files": [f.to_dict() for f in self.files],
            "sections": [s.to_dict() for s in self.sections],
            "tools": [t.to_dict() for t in self.tools],
            "policy": {
                "allowed": {"before": self.allowed[0], "after": self.allowed[1]},
                "checks": [p.to_dict() for p in self.policy],
            }
            if self.role == "child"
            else None,
        }
        if self.before_key is not None:
            out["before_key"] = self.before_key
        if any(self.estimated):
            out["estimate"] = {"before": self.estimated[0], "after": self.estimated[1]}
        if self.counting:
            out["token_counting"] = self.counting
        if self.not_recorded:
            out["not_recorded"] = list(self.not_recorded)
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        if self.thread is not None:
            out.update(self.thread.to_dict())
        return out


@record
class Comparison:
    """Every session compared."""

    before: str
    """The sides in words."""
    after: str
    runtime_before: str
    runtime_after: str
    sessions: list[SessionDiff]
    notes: list[str] = field(default_factory=list)
    """What the reader should know about the figures (a copy at a path of another length)."""
    env_strings: tuple[EnvString, ...] = field(default=(), repr=False, compare=False)
    """The strings both sides' configs made from the environment (masked by `shown`)."""

    def shown(self, show: Iterable[str] = ()) -> Comparison:
        """A display copy: every value either side's config took from the environment reads
        `⟨$NAME⟩` but for the names in `show`."""
        mask: Comparison = EnvMask(self.env_strings, show).value(self)
        return mask

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": {"side": self.before, "runtime": self.runtime_before},
            "to": {"side": self.after, "runtime": self.runtime_after},
            "changed": any(s.changed for s in self.sessions),
            "sessions": [s.to_dict() for s in self.sessions],
            "notes": self.notes,
        }
