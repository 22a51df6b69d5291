"""A pinned "before" side for the app: any side `ctxscope diff` takes (a git revision, a
profile, a config or scenario file, the workspace now, a recorded run), built once when
pinned; the delta strip, `d` and the map then show the change against it instead of against
the last build. A recorded run holds one session's figures, no section texts: it is the
before side of the pane showing that session only (`tui/pinned_run.py`). No Textual here."""

from __future__ import annotations

import dataclasses
from typing import Any

from ctxscope.diff.build import SideBuild
from ctxscope.diff.compare import DELIVERED, FileChange, SessionDiff, compare
from ctxscope.model import Session
from ctxscope.record import record
from ctxscope.runs.recorded import RecordedRun
from ctxscope.tui.pinned_run import pin_run, run_delta, run_marks
from ctxscope.tui.render import Block, Mark, delta_line


@record
class PinnedSide:
    """The before side's requester session and the child its spawn makes (a recorded run:
    the one of the two its session stands for, the other None)."""

    spec: str
    label: str
    main: Session | None
    child: Session | None = None
    run: RecordedRun | None = None
    """A recorded run's record (its figures; its session is `main` or `child`)."""
    built: SideBuild | None = None
    """The side as built (not a run's): compared with now as `ctxscope diff` compares, so a
    revision's scratch copy is not taken for another workspace."""

    @property
    def pane(self) -> str:
        """The pane the map's BEFORE and NOW columns show: `main`, or `child` for a
        subagent's recorded run."""
        return "child" if self.main is None and self.child is not None else "main"

    def before(self, pane: str) -> Session | None:
        return self.main if pane == "main" else self.child


def pin_side(
    inspector: Any,
    overrides: dict[str, Any],
    spec: str,
    *,
    state: str | None = None,
    requester: str | None = None,
) -> PinnedSide:
    """Build the side `spec` names as the app's inspector would build the workspace (its
    config, scenario edits and tokenizer). `state`: OpenClaw's state folder for a recorded
    run (None: as `ctxscope runs` finds it); `requester`: the main pane's session key, the
    one session a run not spawned may stand for. Raises `SideError` for a spec that names no
    side or a run of another session, and the engine's errors for unusable input."""
    from ctxscope.diff import Base, build_side, parse_side
    from ctxscope.diff.sides import opened

    config = str(inspector.explicit_config) if inspector.explicit_config else None
    base = Base(inspector.workspace, config, dict(overrides), state)
    side = parse_side(spec.strip(), base)
    if side.kind == "run":
        run, session, pane = pin_run(side, requester)
        if pane == "main":
            return PinnedSide(spec.strip(), side.label, session, run=run)
        return PinnedSide(spec.strip(), side.label, None, session, run=run)
    with opened(side) as ready:
        built = build_side(ready, tokenizer=inspector.tokenizer, user_space=inspector.user_space)
    main = built.sessions[built.requester_key or next(iter(built.sessions))]
    child = built.sessions.get(built.child_key) if built.child_key else None
    return PinnedSide(spec.strip(), side.label, main, child, built=built)


def session_diffs(
    pinned: PinnedSide, main: Session, child: Session | None
) -> dict[str, SessionDiff]:
    """The panes' sessions compared with the pinned side's by `ctxscope diff`'s engine
    (`diff.compare`), by pane: the requester's (`main`) and the spawned child's (`child`)."""
    before = pinned.built
    if before is None:
        return {}
    keys = [k for k in (before.requester_key, before.child_key) if k in before.sessions]
    then = dataclasses.replace(
        before, sessions={k: before.sessions[k] for k in keys}, thread=None, policy=None
    )
    sessions = {main.session_key: main}
    if child is not None:
        sessions[child.session_key] = child
    now = SideBuild(
        "now",
        sessions,
        requester_key=main.session_key,
        child_key=child.session_key if child is not None else None,
    )
    return {d.role: d for d in compare(then, now).sessions}


def _file_phrase(change: FileChange) -> str:
    b, a = change.before, change.after
    name = change.name
    if a is None:
        return f"{name} no longer listed"
    if b is None or b["status"] != a["status"]:
        return f"{name} now {a['status']}" + (f" (was {b['status']})" if b else "")
    moved = int(a["injected_chars"]) - int(b["injected_chars"])
    tok = int(a["tokens"]) - int(b["tokens"])
    return f"{name} {moved:+,} ch ≈{tok:+,} tok"


def _pane_phrase(
    diff: SessionDiff | None, before: Session | None, after: Session | None, side: str
) -> str:
    """One pane's change against the pinned side, file by file as `ctxscope diff` finds it
    (`main unchanged` when none)."""
    if after is None:
        return f"no {side}" if before is not None else ""
    if before is None or diff is None:
        return f"{side} {after.tokens.total:,} tok"
    if before.agent_id != after.agent_id:
        return delta_line(before, after, side)  # another agent's session: said as such
    parts = [_file_phrase(f) for f in diff.files]
    others = [s for s in diff.sections if not s.id.startswith("file:")]
    if others:
        named = ", ".join(f"{_SIGN[s.change]}{s.heading}" for s in others[:3])
        more = f", … {len(others) - 3} more" if len(others) > 3 else ""
        parts.append(f"sections {named}{more}")
    if diff.delta and diff.before is not None and diff.after is not None:
        parts.append(f"{side} {diff.before['total']:,} → {diff.after['total']:,} tok")
    return " · ".join(parts) if parts else f"{side} unchanged"


_SIGN = {"added": "+", "removed": "−", "resized": "~"}


def pinned_delta(pinned: PinnedSide, main: Session, child: Session | None) -> str:
    """The delta strip against the pinned side: what each session gained or lost since."""
    if pinned.run is not None:
        pane = pinned.pane
        before = pinned.before(pane)
        assert before is not None
        return run_delta(pinned.label, pinned.run, pane, before, main if pane == "main" else child)
    diffs = session_diffs(pinned, main, child)
    now = _pane_phrase(diffs.get("main"), pinned.main, main, "main")
    kid = _pane_phrase(diffs.get("child"), pinned.child, child, "child")
    if now == "main unchanged" and kid in ("child unchanged", ""):
        return f"Δ against {pinned.label}: no change in either prompt"
    return f"Δ against {pinned.label}: {now}  │  {kid}"


def against_pinned(
    pinned: PinnedSide, pane: str, after: Session, blocks: list[Block]
) -> list[Block]:
    """`blocks` of `after` (the `pane` pane's session) marked against the same session of
    the pinned side: sections it gained (`+`), changed (`~`), and one-line stand-ins for
    those it lost (`−`). Against a recorded run, its file sections only."""
    before = pinned.before(pane)
    if before is None:
        return blocks
    if pinned.run is not None:
        return run_marks(before, after, blocks)
    if before.agent_id != after.agent_id:  # another agent's session: nothing to mark
        return blocks
    main = after if pane == "main" else None
    diff = session_diffs(pinned, main or _requester(pinned), after if pane == "child" else None)
    found = diff.get(pane)
    if found is None:
        return blocks
    return diff_marks_of(found, before, blocks)


def _requester(pinned: PinnedSide) -> Session:
    """A stand-in for the main pane's session where only the child pane is marked."""
    assert pinned.main is not None
    return pinned.main


def diff_marks_of(diff: SessionDiff, before: Session, blocks: list[Block]) -> list[Block]:
    """`blocks` marked as `diff` (one session's, from `diff.compare`) finds them: a file
    or section gained `+`, changed `~`, and a one-line `−` stand-in for a section lost,
    after the section that preceded it before. Nothing else is marked."""
    marks: dict[str, Mark] = {}
    for s in diff.sections:
        if s.change in ("added", "resized"):
            marks[s.id] = "gained" if s.change == "added" else "changed"
    for f in diff.files:
        had = f.before is not None and f.before["status"] in DELIVERED
        marks[f"file:{f.name}"] = "changed" if had else "gained"
    out = [dataclasses.replace(b, mark=marks.get(b.key, "")) for b in blocks]
    lost = {s.id for s in diff.sections if s.change == "removed"}
    keys = {b.key for b in out}
    after_key = ""
    for sec in before.sections:
        if sec.id in keys:
            after_key = sec.id
            continue
        if sec.id not in lost:
            continue
        stand_in = Block(
            f"lost:{sec.id}",
            sec.heading or "(identity line)",
            f"lost · {sec.chars:,} ch before",
            "",
            [],
            "heading-lost",
            mark="lost",
        )
        at = next((i + 1 for i, b in enumerate(out) if b.key == after_key), None)
        if at is None:
            at = next((i for i, b in enumerate(out) if b.key == "task"), len(out))
        out.insert(at, stand_in)
        after_key = stand_in.key
    return out
