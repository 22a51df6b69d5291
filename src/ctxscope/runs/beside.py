"""A recorded run beside the live prediction, as the inspector shows it: which pane it goes
beside, a note per section the record sizes (each workspace file, the skills list), the
comparison's reasons, and the figures the map sets side by side. And what tells a watcher
that the stores hold a new run: their files' stamps and each session's run marks.

No Textual here: the faces turn these into blocks, rows and lines.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.record import record
from ctxscope.runs.compare import Comparison
from ctxscope.runs.recorded import RecordedRun, StoreRead, int_figure, utc_time
from ctxscope.runs.store import read_whole, state_dir, store_files

if TYPE_CHECKING:
    from collections.abc import Collection

    from ctxscope.api import Inspector
    from ctxscope.model import Session
    from ctxscope.runs import RunRow


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
    comparison: Comparison
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
    from ctxscope.runs import Predictions
    from ctxscope.runs.compare import prompt_chars

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


Stamps = dict[str, tuple[int, int]]


def store_stamps(
    state: str | os.PathLike[str] | None, config: dict[str, Any] | None = None
) -> Stamps:
    """Each store file of the state folder, and its `-wal`, by (modification time, size):
    a gateway's write changes one of them. Read by `stat` only."""
    folder = state_dir(state)
    out: Stamps = {}
    if not folder.is_dir():
        return out
    for path in store_files(folder, config):
        for one in (path, Path(f"{path}-wal")):
            try:
                st = one.stat()
            except OSError:
                continue
            out[str(one)] = (st.st_mtime_ns, st.st_size)
    return out


Marks = dict[str, tuple[int | None, int | None]]


def run_marks(read: StoreRead) -> Marks:
    """Each session's (entry written, report made) times: a new run changes them."""
    return {r.session_key: (r.updated_at, r.generated_at) for r in read.runs}


def newest_rows(rows: list[RunRow], most: int, keep: str | None = None) -> list[RunRow]:
    """The `most` newest runs of `rows` (and the session `keep`), in their tree order."""
    if len(rows) <= most:
        return rows
    newest = sorted(rows, key=lambda r: -(r.run.when or 0))[:most]
    picked = {id(r) for r in newest}
    return [r for r in rows if id(r) in picked or r.run.session_key == keep]


def new_runs(before: Marks, after: Marks) -> list[str]:
    """The sessions with a run `after` that `before` did not have, newest first."""
    fresh = [key for key, mark in after.items() if before.get(key) != mark]
    return sorted(fresh, key=lambda k: (-(after[k][1] or after[k][0] or 0), k))


__all__ = [
    "Beside",
    "Figure",
    "Marks",
    "Placement",
    "Stamps",
    "beside",
    "new_runs",
    "newest_rows",
    "placement",
    "run_marks",
    "side_of",
    "store_stamps",
    "when",
]
