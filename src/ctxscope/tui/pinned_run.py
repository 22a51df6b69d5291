"""A recorded run pinned as the app's before side (`B`, then `run:KEY`).

A record holds one session's figures, not its texts: each file's recorded injected size and
status, the tools sent, the prompt's chars (`diff/runside.py` makes them a `Session` without
sections). So the run is the before side of the pane showing that session only (the main
pane for a run nobody spawned, the subagent pane for a spawned one); the strip compares its
files and its ≈tokens, `d` marks file sections only, and a file changed since the run says
so (`runs.compare` decides that, by the file's time against the run's). No Textual here."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ctxscope.diff.build import SideBuild
from ctxscope.diff.compare import DELIVERED, FileChange, compare_files
from ctxscope.diff.runside import RunSide
from ctxscope.diff.sides import SideError
from ctxscope.model import Session
from ctxscope.runs.beside import side_of
from ctxscope.runs.compare import changed_files, compare
from ctxscope.tokens import estimate_tokens
from ctxscope.tui.render import Block, Mark

if TYPE_CHECKING:
    from ctxscope.diff.sides import SideSource
    from ctxscope.runs.recorded import RecordedRun

NO_TEXTS = "a record holds no section texts: only its files are compared"
"""Said once in the strip: why `d` marks no other section against a run."""

PANE = {"main": "main", "child": "subagent"}


def pin_run(side: SideSource, requester: str | None) -> tuple[RecordedRun, Session, str]:
    """The run `side` names (`run:KEY`), its session, and the pane it is the before side of:
    `child` for a spawned session, else `main` when its key is the main pane's `requester`.
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
    return run, session, pane


def _changes(before: Session, after: Session) -> list[FileChange]:
    """The files whose status or injected size differs between the record and now, as
    `ctxscope diff` finds them (a file the run did not list and that is not delivered now is
    no change)."""
    return compare_files(
        before, after, SideBuild("the run", {}, recorded=True), SideBuild("now", {})
    )


def _since(why: str) -> str:
    """`changed since the run: modified …` → `changed since the run` (its time left to
    the Runs panel and `ctxscope diff`)."""
    return why.partition(":")[0].partition(" (")[0]


def _phrase(change: FileChange, since: str) -> str:
    b, a = change.before, change.after
    name = change.name
    if a is None:
        said = f"{name} no longer in the prompt"
    elif b is None:
        said = f"{name} now {a['status']} (not in the run)"
    elif b["status"] != a["status"]:
        said = f"{name} now {a['status']} (was {b['status']})"
    else:
        moved = estimate_tokens(a["injected_chars"]) - estimate_tokens(b["injected_chars"])
        said = f"{name} {b['injected_chars']:,} → {a['injected_chars']:,} ch ≈{moved:+,} tok"
    return f"{said}, {since}" if since else said


def run_delta(label: str, run: RecordedRun, pane: str, before: Session, now: Session | None) -> str:
    """The strip against a pinned run: the files changed since it (status or injected size,
    and whether the file was modified after the run), the pane's ≈tokens then and now, and
    that the other pane has no before side."""
    other = "child" if pane == "main" else "main"
    parts: list[str] = []
    if now is None:
        parts.append(f"no {pane} session now")
    elif now.agent_id != before.agent_id:
        role = "requester" if pane == "main" else "target"
        parts.append(
            f"the {PANE[pane]} pane is {now.agent_id}'s session, the run {before.agent_id}'s: "
            f"not compared ({before.agent_id} as the scenario's {role}, e, compares them)"
        )
    else:
        since = {
            name: _since(d.why) for name, d in changed_files(compare(run, now).differences).items()
        }
        changes = _changes(before, now)
        parts += [_phrase(c, since.get(c.name, "")) for c in changes]
        listed = {c.name for c in changes}
        parts += [
            f"{name} {why}: same injected size" for name, why in since.items() if name not in listed
        ]
        if not parts:
            parts.append("no file changed since the run")
        parts.append(
            f"{pane} ≈{before.tokens.total:,} tok recorded → {now.tokens.total:,} predicted"
        )
    return (
        f"Δ against {label}: {' · '.join(parts)}  │  {other}: no before side (the run is "
        f"the {PANE[pane]} pane's session)  │  {NO_TEXTS}"
    )


def run_marks(before: Session, after: Session, blocks: list[Block]) -> list[Block]:
    """`blocks` of `after` marked against the run's session `before`: a file section whose
    injected size or status differs from the record `~`, one the run did not have `+`, and a
    one-line `−` stand-in for a file the run had and the pane lacks, after the file that
    preceded it in the run. Every other section is left unmarked (the record has no texts)."""
    if after.agent_id != before.agent_id:  # another agent's files: nothing to mark
        return blocks
    changes = {c.name: c for c in _changes(before, after)}
    out: list[Block] = []
    for b in blocks:
        mark: Mark = ""
        change = changes.get(b.key.removeprefix("file:")) if b.key.startswith("file:") else None
        if change is not None:
            had = change.before is not None and change.before["status"] in DELIVERED
            mark = "changed" if had else "gained"
        out.append(dataclasses.replace(b, mark=mark))
    keys = {b.key for b in out}
    after_key = ""
    for f in before.files:
        key = f"file:{f.name}"
        if key in keys:
            after_key = key
            continue
        if f.status not in DELIVERED:
            continue
        stand_in = Block(
            f"lost:{key}",
            f.name,
            f"lost · {f.injected_chars:,} ch in the run",
            "",
            [],
            "heading-lost",
            mark="lost",
        )
        out.insert(_place(out, after_key), stand_in)
        after_key = stand_in.key
    return out


def _place(blocks: list[Block], after_key: str) -> int:
    """Where a stand-in goes: after `after_key`'s block, else before the first file section,
    else before the first user message, else last."""
    keys = [b.key for b in blocks]
    if after_key in keys:
        return keys.index(after_key) + 1
    for i, key in enumerate(keys):
        if key.startswith("file:"):
            return i
    return keys.index("task") if "task" in keys else len(keys)
