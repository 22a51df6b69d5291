"""What each prompt pane shows, as a pure function of the build and the view's choices: the
main pane's blocks (the requester's session, or the Rye thread) and the subagent pane's,
marked against the pinned side (`d` with a pin), against each other (`d`), or by what the
last rebuild changed, with a recorded run's block first in the pane of its session. No
Textual here: the app hands the blocks to its panes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxscope.tui.build import Build
from ctxscope.tui.pinned import PinnedSide, against_pinned
from ctxscope.tui.recorded import Beside, with_recorded
from ctxscope.tui.render import Block, mark_changed, session_blocks, thread_blocks, with_diff


@dataclass(frozen=True)
class PaneChoices:
    """What the user chose to see, beside the build."""

    rye_pane: bool = False
    """The main pane shows the Rye thread."""
    diff_mode: bool = False
    pinned: PinnedSide | None = None
    changed: dict[str, set[str]] = field(default_factory=dict)
    """Per pane (`main`, `child`), the sections the last rebuild changed."""
    recorded: Beside | None = None
    """A recorded run put beside the pane of its session."""


def pane_blocks(build: Build, choices: PaneChoices) -> tuple[list[Block], list[Block]]:
    """The main pane's blocks and the subagent pane's."""
    main, child = build.report.requester, build.child
    thread = build.report.thread if choices.rye_pane else None
    main_blocks = session_blocks(main) if thread is None else thread_blocks(thread)
    child_blocks = session_blocks(child) if child is not None else []
    pinned = choices.pinned
    if choices.diff_mode and pinned is not None and thread is None:
        main_blocks = against_pinned(pinned, "main", main, main_blocks)
        if child is not None:
            child_blocks = against_pinned(pinned, "child", child, child_blocks)
    elif choices.diff_mode and child is not None and thread is None:
        main_blocks = with_diff(main, child, main_blocks, main_side=True)
        child_blocks = with_diff(main, child, child_blocks, main_side=False)
    else:
        main_blocks = mark_changed(main_blocks, choices.changed.get("main", set()))
        child_blocks = mark_changed(child_blocks, choices.changed.get("child", set()))
    recorded = choices.recorded
    if recorded is not None and thread is None:  # a recorded run beside its session's pane
        if recorded.side == "main":
            main_blocks = with_recorded(main_blocks, recorded)
        else:
            child_blocks = with_recorded(child_blocks, recorded)
    return main_blocks, child_blocks
