"""What tells a watcher that the stores hold a new run: the folders to watch, their files'
stamps (read by `stat` only) and each session's run marks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ctxscope.runs.recorded import StoreRead
from ctxscope.runs.store import custom_store, state_dir, store_candidates, store_files

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


def store_folders(
    state: str | os.PathLike[str] | None, config: dict[str, Any] | None = None
) -> tuple[list[Path], list[Path]]:
    """The folders to watch for the stores' writes: (watched with their subfolders, watched
    without). The state folder's `agents` folder whole, where every agent's store lies, and
    the state folder itself, where `agents` appears; with a `session.store` template, the
    folders its stores lie in. A folder that does not exist yet is stood in for by the
    nearest one that does, watched without its subfolders (it shows the folder appear)."""
    folder = state_dir(state)
    custom = custom_store(config) is not None
    if custom:
        wanted = list(dict.fromkeys(p.parent for p in store_candidates(folder, config)))
    else:
        wanted = [folder / "agents"]
    whole = [f for f in wanted if f.is_dir()]
    tops = [_nearest(f) for f in [folder, *wanted] if not f.is_dir()]
    if folder.is_dir() and not custom:
        tops.append(folder)
    return whole, list(dict.fromkeys(tops))


def _nearest(folder: Path) -> Path:
    """`folder`, or the nearest folder above it that exists."""
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    return folder


Marks = dict[str, tuple[int | None, int | None]]


def run_marks(read: StoreRead) -> Marks:
    """Each session's (entry written, report made) times: a new run changes them."""
    return {r.session_key: (r.updated_at, r.generated_at) for r in read.runs}


def new_runs(before: Marks, after: Marks) -> list[str]:
    """The sessions with a run `after` that `before` did not have, newest first."""
    fresh = [key for key, mark in after.items() if before.get(key) != mark]
    return sorted(fresh, key=lambda k: (-(after[k][1] or after[k][0] or 0), k))
