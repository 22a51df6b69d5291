"""A pinned "before" side for the app: any side `ctxscope diff` takes (a git revision, a
profile, a config or scenario file, the workspace now), built once when pinned; the delta
strip, `d` and the map then show the change against it instead of against the last build.
No Textual here."""

from __future__ import annotations

import dataclasses
from typing import Any

from ctxscope.model import Session
from ctxscope.record import record
from ctxscope.tui.render import Block, delta_line, with_diff


@record
class PinnedSide:
    """The before side's requester session and the child its spawn makes."""

    spec: str
    label: str
    main: Session
    child: Session | None = None


def pin_side(inspector: Any, overrides: dict[str, Any], spec: str) -> PinnedSide:
    """Build the side `spec` names as the app's inspector would build the workspace (its
    config, scenario edits and tokenizer). Raises `SideError` for a spec that names no side
    and the engine's errors for unusable input."""
    from ctxscope.diff import Base, SideError, build_side, parse_side
    from ctxscope.diff.sides import opened

    config = str(inspector.explicit_config) if inspector.explicit_config else None
    base = Base(inspector.workspace, config, dict(overrides))
    side = parse_side(spec.strip(), base)
    if side.kind == "run":
        # Its record has no section texts to mark the panes against.
        raise SideError(
            f"{spec.strip()}: a recorded run holds figures, not section texts, so the panes "
            "cannot be compared with it; the Runs panel (9) puts it beside the prediction, "
            f"and `ctxscope diff --from {spec.strip()}` compares it"
        )
    with opened(side) as ready:
        built = build_side(ready, tokenizer=inspector.tokenizer, user_space=inspector.user_space)
    main = built.sessions[built.requester_key or next(iter(built.sessions))]
    child = built.sessions.get(built.child_key) if built.child_key else None
    return PinnedSide(spec.strip(), side.label, main, child)


def pinned_delta(pinned: PinnedSide, main: Session, child: Session | None) -> str:
    """The delta strip against the pinned side: what each session gained or lost since."""
    now = delta_line(pinned.main, main, "main")
    kid = delta_line(pinned.child, child, "child")
    if now == "main unchanged" and kid in ("child unchanged", ""):
        return f"Δ against {pinned.label}: no change in either prompt"
    return f"Δ against {pinned.label}: {now}  │  {kid}"


def against_pinned(before: Session | None, after: Session, blocks: list[Block]) -> list[Block]:
    """`blocks` of `after` marked against the same session of the pinned side: sections it
    gained (`+`), changed (`~`), and one-line stand-ins for those it lost (`−`)."""
    if before is None:
        return blocks
    marked = with_diff(before, after, blocks, main_side=False)
    if before.task_message == after.task_message:
        marked = [dataclasses.replace(b, mark="") if b.key == "task" else b for b in marked]
    return marked
