"""Runs: what each agent and subagent was actually told, from OpenClaw's own session records
(`store`), as records (`recorded`) and figures (`figures`). `diff.runlist` lists them as a
tree, each beside ctxscope's prediction of the same session now.

`recorded_run(key)` gives one session's recorded run, `find_run(key)` what searching the
stores for it found.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ctxscope.runs.listing import SCREENFUL, read_newest
from ctxscope.runs.recorded import RecordedFile, RecordedRun, StoreRead
from ctxscope.runs.store import (
    read_state,
    read_store,
    state_dir,
    state_folder,
    store_files,
)

__all__ = [
    "SCREENFUL",
    "RecordedFile",
    "RecordedRun",
    "find_run",
    "parse_duration",
    "read_newest",
    "read_state",
    "recorded_run",
    "state_dir",
    "state_folder",
    "tree",
]


def recorded_run(
    session_key: str,
    *,
    state: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> RecordedRun | None:
    """The run OpenClaw recorded for `session_key` in the state folder (`state`, else
    `$OPENCLAW_STATE_DIR`, else `~/.openclaw`; `config`: the gateway config's data, for
    `session.store`), or None when no store holds it. Read-only: nothing in the state folder
    changes. Store problems are on `find_run(...).problems`."""
    found = find_run(session_key, state=state, config=config)
    return found.runs[0] if found.runs else None


def find_run(
    session_key: str,
    *,
    state: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> StoreRead:
    """The stores of the state folder searched for `session_key` (each reads only that key):
    `runs` holds the run found (the first store's, databases first; an exact key before one
    that matches lower-cased, as 2026.9 keys sessions) or nothing; `stores` every store
    searched and `problems` what stood in the way, each naming its file."""
    wanted = session_key.strip()
    agent = wanted.split(":")[1] if wanted.count(":") >= 2 else None
    folder = state_dir(state)
    read = StoreRead(str(folder))
    if not folder.is_dir():
        return read_state(folder)  # the problem that names the missing folder
    keys = list(dict.fromkeys([wanted, wanted.lower()]))
    found: list[RecordedRun] = []
    for path in store_files(folder, config, [agent] if agent else ()):
        runs, problems = read_store(path, keys=keys)
        read.stores.append(str(path))
        read.problems += problems
        found += runs
    exact = [r for r in found if r.session_key == wanted]
    read.runs = (exact or found)[:1]
    return read


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """Seconds in `30s`, `15m`, `2h`, `7d`, `1w` (or a bare number of seconds); ValueError
    for anything else."""
    value = text.strip().lower()
    unit = value[-1:] if value[-1:] in _UNITS else "s"
    number = value[:-1] if value[-1:] in _UNITS else value
    seconds = float(number) * _UNITS[unit]
    if not seconds >= 0 or seconds == float("inf"):
        raise ValueError(text)
    return seconds


def tree(runs: Iterable[RecordedRun]) -> list[tuple[RecordedRun, int]]:
    """The runs in tree order: each root (spawned by no session of the list) by time,
    newest first, each followed by the sessions it spawned, oldest first, indented."""
    runs = list(runs)
    keys = {r.session_key for r in runs}
    children: dict[str, list[RecordedRun]] = {}
    roots = []
    for run in runs:
        parent = run.spawned_by
        if parent and parent in keys and parent != run.session_key:
            children.setdefault(parent, []).append(run)
        else:
            roots.append(run)
    roots.sort(key=lambda r: (-(r.when or 0), r.session_key))
    for spawned in children.values():
        spawned.sort(key=lambda r: (r.when or 0, r.session_key), reverse=True)
    out: list[tuple[RecordedRun, int]] = []
    seen: set[str] = set()

    def walk(top: RecordedRun) -> None:
        stack = [(top, 0)]  # each list of children reversed: popped oldest first
        while stack:
            run, level = stack.pop()
            if run.session_key in seen:
                continue
            seen.add(run.session_key)
            out.append((run, level))
            below = children.get(run.session_key)
            if below:
                stack += [(child, level + 1) for child in below]

    for root in roots:
        walk(root)
    for run in runs:  # a cycle of spawnedBy links: shown at the top level
        if run.session_key not in seen:
            walk(run)
    return out
