"""A pinned "before" side for the app: any side `ctxscope diff` takes (a git revision, a
profile, a config or scenario file, the workspace now, a recorded run), built once when
pinned; the delta strip, `d` and the map then show the change against it instead of against
the last build. A recorded run holds one session's figures, no section texts: it is the
before side of the pane showing that session only (`tui/pinned_run.py`). No Textual here."""

from __future__ import annotations

import dataclasses
from typing import Any

from ctxscope.model import Session
from ctxscope.record import record
from ctxscope.runs.recorded import RecordedRun
from ctxscope.tui.pinned_run import pin_run, run_delta, run_marks
from ctxscope.tui.render import Block, delta_line, with_diff


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
    return PinnedSide(spec.strip(), side.label, main, child)


def pinned_delta(pinned: PinnedSide, main: Session, child: Session | None) -> str:
    """The delta strip against the pinned side: what each session gained or lost since."""
    if pinned.run is not None:
        pane = pinned.pane
        before = pinned.before(pane)
        assert before is not None
        return run_delta(pinned.label, pinned.run, pane, before, main if pane == "main" else child)
    now = delta_line(pinned.main, main, "main")
    kid = delta_line(pinned.child, child, "child")
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
    marked = with_diff(before, after, blocks, main_side=False)
    if before.task_message == after.task_message:
        marked = [dataclasses.replace(b, mark="") if b.key == "task" else b for b in marked]
    return marked
