"""A recorded run in a prompt pane: the run beside the app's prediction of its session
(`Beside`, its comparison made as every comparison is, `diff.runlist.Predictions`), which pane
it goes beside (`placement`), a first block saying what OpenClaw recorded and how the
prediction compares (figure by figure, then why they differ), and each section the record
sizes noted in its metrics line. Pure Python (no Textual): blocks, as `render` makes them."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ctxscope.core.figures import prompt_chars
from ctxscope.core.record import record
from ctxscope.diff.runlist import Predictions
from ctxscope.diff.verdict import Verdict
from ctxscope.runs.recorded import RecordedRun, int_figure, utc_time
from ctxscope.runs.store import read_whole, state_dir
from ctxscope.tui.render import Block
from ctxscope.tui.shorten import fitted_path, short_key

if TYPE_CHECKING:
    from collections.abc import Collection

    from ctxscope.api import Inspector
    from ctxscope.core.model import Session


@record
class Figure:
    """One figure of the record beside the prediction's (chars; None where a side has
    none)."""

    item: str
    recorded: int | None
    predicted: int | None
    note: str = ""

    @property
    def delta(self) -> int | None:
        if self.recorded is None or self.predicted is None:
            return None
        return self.predicted - self.recorded


@record
class Beside:
    """A recorded run (read whole), its comparison with today's prediction of the same key,
    and what the panes and the map show of it."""

    run: RecordedRun
    comparison: Verdict
    side: str
    """`main` (a session nobody spawned) or `child` (a spawned one): the pane it goes in."""
    kind: str = ""
    """The session's kind as the workspace's rules classify its key (`main`, `subagent`,
    `cron`, `other`): which pane's session it matches (`placement`)."""
    notes: dict[str, str] = field(default_factory=dict)
    """Block key (`file:AGENTS.md`, `skills`) -> what the record says of it."""
    figures: list[Figure] = field(default_factory=list)
    """The prompt, each file, the skills and the tool schemas: recorded and predicted."""

    @property
    def reasons(self) -> list[str]:
        """Where the record and the prediction part, and why, one line each."""
        return [f"{d.item}: {d.why}" for d in self.comparison.differences]

    @property
    def headline(self) -> str:
        prompt = self.figures[0] if self.figures else None
        size = ""
        if prompt is not None and prompt.recorded is not None:
            size = f" · prompt {prompt.recorded:,} ch recorded"
            if prompt.predicted is not None:
                size += f", {prompt.predicted:,} predicted"
        return f"recorded run {when(self.run.when)}{size} · {self.comparison.summary}"


def when(ms: int | None) -> str:
    """A run's time (UTC), `-` for none."""
    return utc_time(ms / 1000, " UTC") if ms else "-"


def side_of(run: RecordedRun) -> str:
    return "child" if run.spawned_by or run.depth > 0 else "main"


def beside(inspector: Inspector, run: RecordedRun, state: str | None = None) -> Beside:
    """`run` beside `inspector`'s prediction of its key (the record read whole first);
    `state`: the state folder it was read from (default: `$OPENCLAW_STATE_DIR`, else
    `~/.openclaw`)."""
    whole = run if run.whole else read_whole([run])[0]
    # the prediction of the run's own release (`Predictions.for_run`), compared and shown
    predictions = Predictions(inspector, state_dir(state)).for_run(whole)
    comparison = predictions.compare(whole)
    session, delta = predictions.session(whole.session_key, whole)
    kind = inspector.inputs.classify(whole.session_key).kind
    out = Beside(whole, comparison, side_of(whole), kind)
    recorded_prompt = int_figure(whole.figure("systemPrompt", "chars"))
    out.figures.append(Figure("prompt", recorded_prompt, prompt_chars(session) + (delta or 0)))
    for row in comparison.files:
        name = row["name"]
        rec, pred = row["recorded_injected_chars"], row["predicted_injected_chars"]
        out.figures.append(Figure(name, rec, pred, row["status"]))
        out.notes[f"file:{name}"] = _file_note(row)
    skills = int_figure(whole.figure("skills", "promptChars"))
    section = next((s for s in session.sections if s.id == "skills"), None)
    if skills is not None:
        predicted = section.chars if section is not None else None
        out.figures.append(Figure("skills", skills, predicted))
        out.notes["skills"] = f"recorded {skills:,} ch"
    schemas = int_figure(whole.figure("tools", "schemaChars"))
    if schemas is not None:
        wire = session.wire
        out.figures.append(
            Figure("tool schemas", schemas, wire.tool_schema_chars if wire else None)
        )
    return out


@record
class Placement:
    """Where a recorded run goes beside the panes: the pane showing the session of its agent
    and kind, after the scenario `fields` that make a pane show it (`requester`, `target`);
    or `why_not`, when no pane shows a session of its kind."""

    side: str | None
    fields: dict[str, str] = field(default_factory=dict)
    why_not: str = ""


def placement(
    b: Beside, requester: Session, child: Session | None, known: Collection[str] = ()
) -> Placement:
    """Which pane `b` goes beside: the requester's for an agent's main session, the spawned
    child's for a subagent, each of the run's agent (the scenario switched to it where the
    pane shows another agent's session; a subagent's requester is its parent's agent).
    `known`: the config's agents (a run of another is put beside neither pane)."""
    run = b.run
    agent = run.agent_id
    if known and agent not in known and b.kind in ("main", "subagent"):
        return Placement(
            None,
            why_not=(
                f"{run.session_key} is a session of agent {agent}, which the config does not "
                f"list: ctxscope predicts no session of it, so its record is put beside neither "
                f"pane (`ctxscope runs --session {run.session_key}` shows it)"
            ),
        )
    if b.kind == "main":
        fields = {"requester": agent} if requester.agent_id != agent else {}
        return Placement("main", fields)
    if b.kind == "subagent":
        fields = {}
        parent = run.spawned_by or ""
        parent_agent = parent.split(":")[1].lower() if parent.count(":") >= 2 else ""
        if parent_agent and parent_agent != requester.agent_id:
            fields["requester"] = parent_agent
        if child is None or child.agent_id != agent:
            fields["target"] = agent
        return Placement("child", fields)
    return Placement(
        None,
        why_not=(
            f"{run.session_key} is a {b.kind} session: the panes show an agent's main session "
            "and the subagent it spawns, so its record is put beside neither (`ctxscope runs "
            f"--session {run.session_key}` compares it with ctxscope's prediction)"
        ),
    )


def _file_note(row: dict[str, Any]) -> str:
    if row["recorded_missing"]:
        said = "recorded missing"
    elif row["recorded_injected_chars"] is None:
        said = "not in the record"
    else:
        said = f"recorded {row['recorded_injected_chars']:,} ch"
        if row["recorded_truncated"]:
            said += f" (cut from {row['recorded_raw_chars']:,})"
    status = row["status"]
    if status == "changed":
        said += " · changed since the run"
    elif status == "differs":
        said += " · differs"
    return said


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
        f"store    {fitted_path(run.store, STORE_WIDTH)}",
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
