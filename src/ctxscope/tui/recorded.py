"""A recorded run in a prompt pane: a first block saying what OpenClaw recorded and how the
prediction compares (figure by figure, then why they differ), and each section the record
sizes noted in its metrics line. Pure Python (no Textual): blocks, as `render` makes them."""

from __future__ import annotations

import dataclasses

from ctxscope.runs.beside import Beside, Figure, when
from ctxscope.tui.render import Block
from ctxscope.tui.shorten import short_key, short_path

KEY = "recorded"
"""The block key of the recorded run's block."""


STORE_WIDTH = 44
"""The store's path at most (`~`, then cut in the middle): a path has no space to wrap at."""


def _figure_line(f: Figure) -> str:
    rec = f"{f.recorded:,}" if f.recorded is not None else "—"
    pred = f"{f.predicted:,}" if f.predicted is not None else "—"
    delta = f" {f.delta:+,}" if f.delta else ""
    note = f"  {f.note}" if f.note and f.note != "same" else ""
    return f"  {f.item:<14} {rec:>9} {pred:>9}{delta}{note}"


def recorded_block(b: Beside) -> Block:
    """The block's lines fit a pane of 56 columns (a half of 120): ids cut to 8 hex digits,
    the store's path cut in the middle; what is longer wraps between words."""
    run = b.run
    lines = [
        f"session  {short_key(run.session_key)}" + (f" · label {run.label}" if run.label else ""),
        f"agent    {run.agent_id}"
        + (f" · spawned by {short_key(run.spawned_by)}" if run.spawned_by else ""),
        f"run at   {when(run.when)}"
        + (f" · OpenClaw {run.app_version}" if run.app_version else ""),
        f"store    {short_path(run.store, STORE_WIDTH)}",
        "",
        f"  {'chars':<14} {'recorded':>9} {'predicted':>9}",
        *(_figure_line(f) for f in b.figures),
        "",
        b.comparison.summary,
    ]
    reasons = b.reasons
    if reasons:
        lines += ["", "Why they differ:", *(f"  · {r}" for r in reasons)]
    body = "\n".join(lines)
    heading = "Recorded run"
    return Block(KEY, heading, b.headline, body, heading_role="heading-task")


def with_recorded(blocks: list[Block], b: Beside) -> list[Block]:
    """`blocks` (a pane's) with the recorded run's block first and the record's size of
    each section it sizes added to that section's metrics."""
    out = [recorded_block(b)]
    for block in blocks:
        note = b.notes.get(block.key)
        out.append(
            dataclasses.replace(block, metrics=f"{block.metrics} · {note}") if note else block
        )
    return out
