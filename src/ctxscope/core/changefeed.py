"""What a file watcher has reported, so a rebuild can trust what it computed before.

A `ChangeFeed` belongs to a Snapshot. Without a watcher (the CLI, the Python API) it knows
nothing and `quiet()` is always False: every file is checked again. The app tells it when
its watcher is running over which folders and passes on each batch of changed paths; then a
result computed from files under a watched folder stays valid until a change is reported
under that folder (or above it: a folder renamed or removed), or an unknown change ("*").
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterable

KEPT = 512
"""Batches remembered; a result older than the oldest kept batch is checked again."""


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class ChangeFeed:
    """Epochs of reported changes; thread-safe (the watcher reports on the app's thread
    while builds run on another)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._epoch = 0
        self._watched: tuple[str, ...] = ()
        self._log: deque[tuple[int, tuple[str, ...] | None]] = deque(maxlen=KEPT)

    def now(self) -> int:
        """The current epoch: take it before reading the files a result is computed from."""
        with self._lock:
            return self._epoch

    def watching(self, folders: Iterable[str | os.PathLike[str]]) -> None:
        """A watcher is running over `folders` (anything before is unknown)."""
        with self._lock:
            self._watched = tuple(os.path.abspath(f) for f in folders)
            self._note(None)

    def stopped(self) -> None:
        """No watcher any more: nothing can be trusted without checking."""
        with self._lock:
            self._watched = ()
            self._note(None)

    def changed(self, paths: Iterable[str] | None) -> None:
        """A batch of changed paths; None when what changed is unknown."""
        with self._lock:
            self._note(None if paths is None else tuple(os.path.abspath(p) for p in paths))

    def _note(self, paths: tuple[str, ...] | None) -> None:
        self._epoch += 1
        self._log.append((self._epoch, paths))

    def quiet(self, folder: str | os.PathLike[str], since: int) -> bool:
        """True when `folder` is watched and nothing under or above it changed after epoch
        `since`."""
        root = os.path.abspath(folder)
        with self._lock:
            if not any(_within(root, w) for w in self._watched):
                return False
            if self._log and self._log[0][0] > since + 1 and len(self._log) == KEPT:
                return False  # batches after `since` were forgotten
            for epoch, paths in self._log:
                if epoch <= since:
                    continue
                if paths is None:
                    return False
                if any(_within(p, root) or _within(root, p) for p in paths):
                    return False
            return True
