"""Two builds of the same sessions, compared session by session (`compare`): the whole
request's tokens, the files whose status or injected size changed and why, sections added,
removed or resized, tools gained or lost, the spawn's policy checks that changed, and for a
Rye thread its chain, hooks and tool palette. Where one side is a run OpenClaw recorded and
the other the workspace now, the causes of their differences too (`diff.causes`): the one
comparison `ctxscope diff`, `runs`, `check --against` and the app's pinned side and Runs
panel all make."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ctxscope.core.figures import (
    NOT_RECORDED,
    FileFigures,
    NotRecorded,
    SectionFigures,
    SessionFigures,
)
from ctxscope.core.model import Session
from ctxscope.core.tokens import estimate_tokens
from ctxscope.diff.build import SideBuild
from ctxscope.diff.causes import Evidence, explain
from ctxscope.diff.changes import (
    DELIVERED,
    Comparison,
    FileChange,
    PolicyChange,
    SectionChange,
    SessionDiff,
    ToolChange,
)
from ctxscope.diff.threads import compare_threads
from ctxscope.diff.verdict import Verdict, changed_files
from ctxscope.runs.figures import run_figures

if TYPE_CHECKING:
    from ctxscope.spawn import Policy

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
    said: list[str] = []
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
            said += _causes(diff, (before, after), (old_key or key, key), (old, new))
        if role == "child":
            diff.policy = compare_policy(before.policy, after.policy)
            diff.allowed = (
                before.policy.allowed if before.policy else None,
                after.policy.allowed if after.policy else None,
            )
        out.append(diff)
    if before.thread is not None or after.thread is not None:
        out.append(compare_threads(before.thread, after.thread))
    notes = [*before.notes, *after.notes, *said]
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


def _causes(
    diff: SessionDiff,
    sides: tuple[SideBuild, SideBuild],
    keys: tuple[str, str],
    figures: tuple[SessionFigures, SessionFigures],
) -> list[str]:
    """Beside a recorded run (either side) and the workspace now (the other), why they part:
    `diff.verdict`, each file changed since the run saying so in its row, and a note for each
    other difference (the prompt's, the config's, the runtime's, the tools', ...), in the
    words `ctxscope runs` uses."""
    for at in (0, 1):
        run_side, now_side = sides[at], sides[1 - at]
        ev = run_side.evidence.get(keys[at])
        session = now_side.sessions.get(keys[1 - at]) if now_side.live else None
        if ev is None or session is None:
            continue
        verdict = diff.verdict = explain(ev, figures[at], figures[1 - at], session)
        changed = changed_files(verdict.differences)
        for change in diff.files:
            since = changed.get(change.name)
            if since is not None:
                change.why = "; ".join(w for w in (change.why, since.why) if w)
        label = f"{run_side.label} beside the workspace now"
        return [
            f"{label}: {d.why}"
            for d in verdict.differences
            # a file's change is in its row; the run's workspace in the side's notes
            if not d.item.startswith("file:") and d.item != "workspace"
        ]
    return []


def run_verdict(ev: Evidence, session: Session) -> Verdict:
    """The run of `ev` beside `session`, ctxscope's prediction of its key in the workspace
    now, compared as every comparison is (`compare`): its verdict. What the record lacks
    (the context window, the key's kind) is the session's."""
    key = ev.run.session_key
    figures = run_figures(ev.run, session.kind, session.prompt_mode, session.context_window)
    run = SideBuild("run", {}, figures={key: figures}, evidence={key: ev}, requester_key=key)
    now = SideBuild("now", {session.session_key: session}, live=True)
    now.requester_key = session.session_key
    verdict = compare(run, now).sessions[0].verdict
    assert verdict is not None
    return verdict


def compare_sessions(old: Session, new: Session) -> SessionDiff:
    """Two builds of one session compared (a rebuild beside the one before it)."""
    before = SideBuild("before", {old.session_key: old}, requester_key=old.session_key)
    after = SideBuild("after", {new.session_key: new}, requester_key=new.session_key)
    return compare(before, after).sessions[0]


__all__ = [
    "CHARS4_COUNTING",
    "DELIVERED",
    "Comparison",
    "FileChange",
    "PolicyChange",
    "SectionChange",
    "SessionDiff",
    "ToolChange",
    "compare",
    "compare_sessions",
    "run_verdict",
]
