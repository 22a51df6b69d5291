"""A pinned "before" side for the app: any side `ctxscope diff` takes (a git revision, a
profile, a config or scenario file, the workspace now, a recorded run), built once when
pinned; the delta strip, `d` and the map then show the change against it instead of against
the last build, as `ctxscope diff` compares them (`diff.compare`). A recorded run holds one
session's figures, no section texts: it is the before side of the pane showing that session
only (the main pane for a run nobody spawned, the subagent pane for a spawned one); the strip
compares its files and its ≈tokens (chars/4 on both sides), `d` marks file sections only, and
a file changed since the run says so (the comparison's causes, `diff.causes`, decide that by
its recorded size against the file now). No Textual here."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ctxscope.core.model import Session
from ctxscope.core.record import record
from ctxscope.diff.build import SideBuild
from ctxscope.diff.compare import DELIVERED, FileChange, SessionDiff, compare
from ctxscope.diff.runside import RunSide
from ctxscope.diff.sides import SideError
from ctxscope.diff.verdict import changed_files
from ctxscope.runs.recorded import RecordedRun
from ctxscope.tui.recorded import side_of
from ctxscope.tui.render import Block, Mark, delta_line

if TYPE_CHECKING:
    from ctxscope.diff.source import SideSource

NO_TEXTS = "a record holds no section texts: only its files are compared"
"""Said once in the strip: why `d` marks no other section against a run."""

PANE = {"main": "main", "child": "subagent"}


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
    """The side as built: compared with now as `ctxscope diff` compares, so a revision's
    scratch copy is not taken for another workspace."""

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
        return _pin_run(spec.strip(), side, requester)
    with opened(side) as ready:
        built = build_side(ready, tokenizer=inspector.tokenizer, user_space=inspector.user_space)
    main = built.sessions[built.requester_key or next(iter(built.sessions))]
    child = built.sessions.get(built.child_key) if built.child_key else None
    return PinnedSide(spec.strip(), side.label, main, child, built=built)


def _pin_run(spec: str, side: SideSource, requester: str | None) -> PinnedSide:
    """The run `side` names (`run:KEY`) as the before side of one pane: the subagent pane
    for a spawned session, else the main pane when its key is the main pane's `requester`.
    SideError for a run of another session (neither pane shows it)."""
    found = side.build
    assert isinstance(found, RunSide)
    run, session = found.run, found.session()
    pane = side_of(run)
    if pane == "main" and requester is not None and run.session_key.lower() != requester.lower():
        raise SideError(
            f"{side.spec}: the main pane shows {requester} and the subagent pane a spawned "
            f"child; the run of {run.session_key} is the before side of neither (`ctxscope "
            f"diff --from {side.spec}` compares it with the workspace now)"
        )
    key = run.session_key
    built = SideBuild(
        side.label,
        {key: session},
        found.runtime,
        requester_key=key if pane == "main" else None,
        child_key=key if pane == "child" else None,
        figures={key: found.figures()},
        evidence={key: found.evidence},
    )
    if pane == "main":
        return PinnedSide(spec, side.label, session, run=run, built=built)
    return PinnedSide(spec, side.label, None, session, run=run, built=built)


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
        live=True,
    )
    return {d.role: d for d in compare(then, now).sessions}


def _delivered(entry: dict[str, Any] | None) -> bool:
    return entry is not None and entry["status"] in DELIVERED


def _file_phrase(change: FileChange, sizes: bool = False) -> str:
    """One file's change in the strip (`sizes`: both injected sizes, as beside a record)."""
    b, a = change.before, change.after
    name = change.name
    if a is None:
        return f"{name} no longer in the prompt"
    if b is None and sizes:
        return f"{name} now {a['status']} (not in the run)"
    if b is None or b["status"] != a["status"]:
        return f"{name} now {a['status']}" + (f" (was {b['status']})" if b else "")
    moved = int(a["injected_chars"]) - int(b["injected_chars"])
    tok = int(a["tokens"]) - int(b["tokens"])
    if sizes:
        return f"{name} {b['injected_chars']:,} → {a['injected_chars']:,} ch ≈{tok:+,} tok"
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
    diffs = session_diffs(pinned, main, child)
    if pinned.run is not None:
        pane = pinned.pane
        return _run_delta(pinned, pane, diffs.get(pane), main if pane == "main" else child)
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
    if before.agent_id != after.agent_id:  # another agent's session: nothing to mark
        return blocks
    main = after if pane == "main" else None
    diff = session_diffs(pinned, main or _requester(pinned), after if pane == "child" else None)
    found = diff.get(pane)
    if found is None:
        return blocks
    return diff_marks_of(found, before, blocks)


def _requester(pinned: PinnedSide) -> Session:
    """A stand-in for the main pane's session where only the child pane is marked (the
    child's own before side stands in when the pinned side has no main: a subagent's run)."""
    stand_in = pinned.main or pinned.child
    assert stand_in is not None
    return stand_in


def _run_delta(pinned: PinnedSide, pane: str, diff: SessionDiff | None, now: Session | None) -> str:
    """The strip against a pinned run: the files whose status or injected size differ from
    the record (and whether each changed since the run), the pane's ≈tokens then and now,
    and that the other pane has no before side."""
    before = pinned.before(pane)
    assert before is not None and pinned.run is not None
    other = "child" if pane == "main" else "main"
    parts: list[str] = []
    if now is None or diff is None:
        parts.append(f"no {pane} session now")
    elif now.agent_id != before.agent_id:
        role = "requester" if pane == "main" else "target"
        parts.append(
            f"the {PANE[pane]} pane is {now.agent_id}'s session, the run {before.agent_id}'s: "
            f"not compared ({before.agent_id} as the scenario's {role}, e, compares them)"
        )
    else:
        since = {
            name: d.why.partition(":")[0].partition(" (")[0]
            for name, d in changed_files(diff.verdict.differences if diff.verdict else []).items()
        }
        for change in diff.files:
            said = _file_phrase(change, sizes=True)
            parts.append(f"{said}, {since[change.name]}" if change.name in since else said)
        listed = {c.name for c in diff.files}
        parts += [
            f"{name} {why}: same injected size" for name, why in since.items() if name not in listed
        ]
        if not parts:
            parts.append("no file changed since the run")
        if diff.before is not None and diff.after is not None:
            parts.append(
                f"{pane} ≈{diff.before['total']:,} tok recorded → ≈{diff.after['total']:,} "
                "predicted"
            )
    return (
        f"Δ against {pinned.label}: {' · '.join(parts)}  │  {other}: no before side (the run "
        f"is the {PANE[pane]} pane's session)  │  {NO_TEXTS}"
    )


def diff_marks_of(diff: SessionDiff, before: Session, blocks: list[Block]) -> list[Block]:
    """`blocks` marked as `diff` (one session's, from `diff.compare`) finds them: a file
    or section gained `+`, changed `~`, and a one-line `−` stand-in for a section lost,
    after the section that preceded it before. Nothing else is marked."""
    marks: dict[str, Mark] = {}
    for s in diff.sections:
        if s.change in ("added", "resized"):
            marks[s.id] = "gained" if s.change == "added" else "changed"
    for f in diff.files:
        marks[f"file:{f.name}"] = "changed" if _delivered(f.before) else "gained"
    out = [dataclasses.replace(b, mark=marks.get(b.key, "")) for b in blocks]
    lost = {s.id for s in diff.sections if s.change == "removed"}
    lost |= {
        f"file:{f.name}" for f in diff.files if _delivered(f.before) and not _delivered(f.after)
    }
    keys = {b.key for b in out}
    after_key = ""
    # what the side had, in its order: its sections, else (a record's) its files
    order = [(s.id, s.heading or "(identity line)", s.chars) for s in before.sections] or [
        (f"file:{f.name}", f.name, f.injected_chars) for f in before.files
    ]
    for sid, heading, chars in order:
        if sid in keys:
            after_key = sid
            continue
        if sid not in lost:
            continue
        stand_in = Block(
            f"lost:{sid}",
            heading,
            f"lost · {chars:,} ch {'in the run' if diff.not_recorded else 'before'}",
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
