"""Two builds of the same sessions, compared session by session: the whole request's tokens,
the files whose status or injected size changed and why, sections added, removed or resized,
tools gained or lost, the spawn's policy checks that changed, and for a Rye thread its
chain, hooks and tool palette."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ctxscope.diff.build import SideBuild
from ctxscope.figures import (
    NOT_RECORDED,
    FileFigures,
    NotRecorded,
    SectionFigures,
    SessionFigures,
)
from ctxscope.model import Session
from ctxscope.record import record
from ctxscope.secrets import EnvMask
from ctxscope.tokens import estimate_tokens

if TYPE_CHECKING:
    from ctxscope.configread import EnvString
    from ctxscope.rye import ThreadReport
    from ctxscope.spawn import Policy

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


CHARS4_COUNTING = "chars/4 on both sides (a record holds chars, not text)"
"""How tokens are counted beside a recorded run: one way for both sides, so that tokens and
chars move together."""


def _tokens(fig: SessionFigures | None, chars4: bool = False) -> dict[str, int] | None:
    """The session's whole request in tokens. `chars4`: counted chars/4 from each part's
    size, as a record's side is (the side beside a record is counted the same way)."""
    if fig is None:
        return None
    system = fig.prompt.counted(chars4)
    tools = fig.tools.counted(chars4)
    messages = fig.messages.counted(chars4)
    total = fig.total if isinstance(fig.total, int) and not chars4 else system + tools + messages
    return {
        "prompt_chars": fig.prompt.chars,
        "system": system,
        "tools": tools,
        "messages": messages,
        "total": total,
        "context_window": fig.context_window,
    }


def _file(entry: FileFigures, chars4: bool = False) -> dict[str, Any]:
    tokens = 0
    if entry.status in DELIVERED:
        # Beside a record (sizes only) both sides count a file by its injected chars.
        tokens = estimate_tokens(entry.injected_chars) if chars4 else entry.tokens
    return {
        "status": entry.status,
        "injected_chars": entry.injected_chars,
        # a record that gives no size on disk counts 0 here
        "raw_chars": entry.raw_chars if isinstance(entry.raw_chars, int) else 0,
        "tokens": tokens,
        "reason": entry.reason,
    }


def compare_files(
    old: SessionFigures, new: SessionFigures, after: SideBuild, chars4: bool = False
) -> list[FileChange]:
    olds = {f.name: f for f in old.files}
    news = {f.name: f for f in new.files}
    out = []
    for name in [*news, *(n for n in olds if n not in news)]:
        a, b = olds.get(name), news.get(name)
        # the same status and size, and (where both sides have it: no record) the same text
        edited = (
            a is not None
            and b is not None
            and NOT_RECORDED not in (a.digest, b.digest)
            and a.digest != b.digest
        )
        if (
            a is not None
            and b is not None
            and (a.status, a.injected_chars) == (b.status, b.injected_chars)
            and not edited
        ):
            continue
        # A record lists only the files the run injected (or marked missing): a file it
        # does not list and the other side does not deliver either is no change.
        if (a is None and old.recorded and not _delivers(b)) or (
            b is None and new.recorded and not _delivers(a)
        ):
            continue
        why = b.reason if b is not None else _unlisted(name, new, after)
        if edited and a is not None and b is not None and a.injected_chars == b.injected_chars:
            why = f"{why}; its text changed, its size did not"
        out.append(
            FileChange(
                name,
                _file(a, chars4) if a is not None else None,
                _file(b, chars4) if b is not None else None,
                why,
            )
        )
    return out


def _delivers(entry: FileFigures | None) -> bool:
    """The file reaches the prompt, a `[MISSING]` marker included."""
    return entry is not None and (entry.status in DELIVERED or entry.injected_chars > 0)


def _unlisted(name: str, fig: SessionFigures, side: SideBuild) -> str:
    """Why a session of `side` does not list file `name` at all."""
    if fig.recorded:
        return "not among the files the run recorded (it lists what it injected)"
    order = side.profile.load_order() if side.profile is not None else [name]
    if name not in order:
        return (
            f"not loaded by {side.runtime}: it reads only {', '.join(order)} (absent here, so "
            "not listed)"
        )
    return "no longer a candidate of this session (absent, and no marker in this release)"


def _label(sec: SectionFigures) -> str:
    return sec.heading or f"({sec.id})"


def compare_sections(
    old: SessionFigures, new: SessionFigures, after: SideBuild
) -> list[SectionChange]:
    if isinstance(old.sections, NotRecorded) or isinstance(new.sections, NotRecorded):
        return []
    olds = {s.id: s for s in old.sections}
    news = {s.id: s for s in new.sections}
    out = []
    for sid, sec in news.items():
        prev = olds.get(sid)
        if prev is None:
            out.append(
                SectionChange(sid, _label(sec), "added", 0, sec.chars, 0, sec.tokens, sec.rule)
            )
        elif prev.chars != sec.chars or prev.tokens != sec.tokens:
            out.append(
                SectionChange(
                    sid, _label(sec), "resized", prev.chars, sec.chars, prev.tokens, sec.tokens
                )
            )
    for sid, prev in olds.items():
        if sid not in news:
            why = _absent(sid, new, after)
            out.append(
                SectionChange(sid, _label(prev), "removed", prev.chars, 0, prev.tokens, 0, why)
            )
    return out


def _absent(sid: str, fig: SessionFigures, side: SideBuild) -> str:
    """Why `fig`'s session has no section `sid`: its generator's reason, else the profile's."""
    why = fig.absent_sections.get(sid)
    if why:
        return why
    if sid.startswith("file:"):
        return "the file is not injected (see files)"
    sections = side.profile.sections if side.profile is not None else ()
    spec = next((s for s in sections if s.id == sid), None)
    if spec is None:
        return f"not part of {side.runtime}'s prompt" if side.profile is not None else ""
    if fig.prompt_mode not in spec.modes:
        return f"not shown in {fig.prompt_mode} prompt mode by {side.runtime}"
    return ""


def compare_tools(old: SessionFigures, new: SessionFigures) -> list[ToolChange]:
    """The tools sent beside the prompt, gained or lost, and the prompt's tool lines but
    where a side does not record them (a record names only the tools sent)."""
    out: list[ToolChange] = []
    old_sent, new_sent = _sent(old), _sent(new)
    for name in new_sent:
        if name not in old_sent:
            why = "deferred before (Tool Search)" if name in old.deferred else ""
            if old.recorded:
                why = "the run did not send it"
            out.append(ToolChange(name, "gained", why))
    for name in old_sent:
        if name not in new_sent:
            if name in new.deferred:
                why = "deferred: found through Tool Search"
            else:
                unsent = "not sent by this runtime or tool policy"
                if new.recorded:
                    unsent = "the run did not send it"
                why = new.removed_tools.get(name, unsent)
            out.append(ToolChange(name, "lost", why))
    if isinstance(old.listed, NotRecorded) or isinstance(new.listed, NotRecorded):
        return out
    for name in old.listed:
        if name not in new.listed:
            out.append(ToolChange(name, "unlisted", new.removed_tools.get(name, "")))
    for name in new.listed:
        if name not in old.listed:
            out.append(ToolChange(name, "listed"))
    return out


def _sent(fig: SessionFigures) -> tuple[str, ...]:
    """The tools the side sent (a record that lists none: none)."""
    return () if isinstance(fig.sent, NotRecorded) else fig.sent


def _verdict(ok: bool, error: str | None) -> str:
    return "ok" if ok else f"fails: {error or 'refused'}"


def compare_policy(old: Policy | None, new: Policy | None) -> list[PolicyChange]:
    olds = {c.name: _verdict(c.ok, c.error) for c in old.checks} if old else {}
    news = {c.name: _verdict(c.ok, c.error) for c in new.checks} if new else {}
    out = []
    for name in [*news, *(n for n in olds if n not in news)]:
        a, b = olds.get(name, "—"), news.get(name, "—")
        if a != b:
            out.append(PolicyChange(name, a, b))
    return out


def _thread_tokens(thread: ThreadReport | None) -> dict[str, int] | None:
    if thread is None:
        return None
    data = thread.to_dict()
    system = int(data.get("system", {}).get("tokens", 0))
    messages = int(data.get("first_message", {}).get("tokens", 0))
    tools = int(data.get("tools", {}).get("used_tokens", 0))
    return {
        "system": system,
        "tools": tools,
        "messages": messages,
        "total": system + tools + messages,
        "context_window": 0,
    }


def _thread_items(thread: ThreadReport) -> dict[str, tuple[str, int, int]]:
    """Each part of the thread's messages by item (or kind): (label, chars, tokens)."""
    out: dict[str, tuple[str, int, int]] = {}
    for part in [*thread.system_hook_parts, *thread.parts]:
        key = part.item_id or f"{part.kind}:{part.source}"
        label, chars, tokens = out.get(key, (key, 0, 0))
        out[key] = (label, chars + len(part.text), tokens + part.tokens)
    for position, items in thread.composed.items():
        if position != "system":
            continue
        for item in items:
            if item.status != "included":
                continue
            chars = len(item.knowledge.body) if item.knowledge is not None else 0
            out[f"system:{item.item_id}"] = (f"system {item.item_id}", chars, item.tokens)
    return out


def _hooks(thread: ThreadReport) -> list[str]:
    hooks = [*thread.resolve_hooks, *thread.context_hooks, *thread.system_hooks]
    return [h.id for h in hooks if h.applied]


def compare_threads(old: ThreadReport | None, new: ThreadReport | None) -> SessionDiff:
    directive = (new or old).directive if (new or old) is not None else ""  # type: ignore[union-attr]
    diff = SessionDiff(f"rye:{directive}", "rye", _thread_tokens(old), _thread_tokens(new))
    olds = _thread_items(old) if old is not None else {}
    news = _thread_items(new) if new is not None else {}
    for key, (label, chars, tokens) in news.items():
        if key not in olds:
            diff.sections.append(SectionChange(key, label, "added", 0, chars, 0, tokens))
        elif olds[key][1:] != (chars, tokens):
            _, c0, t0 = olds[key]
            diff.sections.append(SectionChange(key, label, "resized", c0, chars, t0, tokens))
    for key, (label, chars, tokens) in olds.items():
        if key not in news:
            diff.sections.append(SectionChange(key, label, "removed", chars, 0, tokens, 0))
    pal_old = {t.id: t for t in old.palette.registered} if old is not None else {}
    pal_new = {t.id: t for t in new.palette.registered} if new is not None else {}
    skipped = {t.id: t.reason for t in new.palette.skipped} if new is not None else {}
    diff.tools += [ToolChange(t, "gained") for t in pal_new if t not in pal_old]
    diff.tools += [ToolChange(t, "lost", skipped.get(t, "")) for t in pal_old if t not in pal_new]
    hooks_old = _hooks(old) if old is not None else []
    hooks_new = _hooks(new) if new is not None else []
    diff.thread = ThreadChange(
        directive,
        old.chain_ids() if old is not None else [],
        new.chain_ids() if new is not None else [],
        [h for h in hooks_new if h not in hooks_old],
        [h for h in hooks_old if h not in hooks_new],
    )
    return diff


Pair = tuple[str, str, SessionFigures | None, SessionFigures | None, str | None]
"""A session of either side: key, role, before, after, and the before key where it differs."""


def _pairs(before: SideBuild, after: SideBuild) -> list[Pair]:
    """Every session of either side, in the after side's order (then those only before has);
    the requester and the spawned child are paired by their part, whatever their keys."""
    olds, news = before.session_figures(), after.session_figures()
    pairs: list[Pair] = []
    paired = {
        k: v
        for k, v in (
            (after.child_key, before.child_key),
            (after.requester_key, before.requester_key),
        )
        if k is not None and v is not None
    }
    taken = set(paired.values())
    for key, fig in news.items():
        role = "child" if key == after.child_key else "main"
        old_key = paired.get(key, key if key not in taken else None)
        old = olds.get(old_key) if old_key else None
        pairs.append((key, role, old, fig, old_key if old_key != key else None))
    seen = {p[4] or p[0] for p in pairs if p[2] is not None}
    for key, fig in olds.items():
        if key not in seen:
            role = "child" if key == before.child_key else "main"
            pairs.append((key, role, fig, None, None))
    return pairs


def compare(before: SideBuild, after: SideBuild) -> Comparison:
    """Every session of either side compared, figure by figure (see `_pairs`)."""
    pairs = _pairs(before, after)
    # One token counting for the comparison: chars/4 on both sides where one holds no counts.
    recorded = any(f is not None and f.recorded for p in pairs for f in p[2:4])
    out = []
    for key, role, old, new, old_key in pairs:
        diff = SessionDiff(
            key, role, _tokens(old, recorded), _tokens(new, recorded), before_key=old_key
        )
        diff.estimated = (recorded and old is not None, recorded and new is not None)
        if recorded:
            diff.not_recorded = ("sections",)
            diff.counting = CHARS4_COUNTING
        if old is not None and new is not None:
            diff.files = compare_files(old, new, after, recorded)
            diff.sections = compare_sections(old, new, after)
            diff.tools = compare_tools(old, new)
        if role == "child":
            diff.policy = compare_policy(before.policy, after.policy)
            diff.allowed = (
                before.policy.allowed if before.policy else None,
                after.policy.allowed if after.policy else None,
            )
        out.append(diff)
    if before.thread is not None or after.thread is not None:
        out.append(compare_threads(before.thread, after.thread))
    notes = [*before.notes, *after.notes]
    for side in (before, after):
        notes += [
            f"{side.label}: {side.shown(str(d))}"
            for d in dict.fromkeys(side.diagnostics)
            if d.severity == "error"
        ]
    return Comparison(
        before.label,
        after.label,
        before.runtime,
        after.runtime,
        out,
        notes,
        (*before.env_strings, *after.env_strings),
    )


def compare_sessions(old: Session, new: Session) -> SessionDiff:
    """Two builds of one session compared (a rebuild beside the one before it)."""
    before = SideBuild("before", {old.session_key: old}, requester_key=old.session_key)
    after = SideBuild("after", {new.session_key: new}, requester_key=new.session_key)
    return compare(before, after).sessions[0]
