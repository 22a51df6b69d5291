"""Watch folders with watchfiles and post `FilesChanged` messages (nothing else).

Folders, not single files, are watched: editors save by writing a temporary file and renaming
it. watchfiles groups a burst of events (`step` ms of quiet, at most `debounce` ms) into one
batch; the app coalesces batches further by running one exclusive rebuild worker. A watched
folder that disappears (or a missing one that appears) restarts the watcher, so deleting and
recreating the workspace is survived.

Watching runs on daemon threads, never on the event loop: setting up the operating system's
watches walks every subfolder (seconds on a large tree), and a thread stuck there must not keep
the screen from drawing or `q` from quitting. It is bounded: the folders given as `tops` (the
root or home folder an agent's workspace may name) are watched without their subfolders, and
past `MAX_FOLDERS` folders in all a folder is watched without its subfolders too. What a bound
left out is said by a `WatchBounded` message.

When the operating system's watcher fails (inotify's watch or instance limits, a folder too
big to watch), a `WatchTrouble` message says so and watching goes on by polling the folders
every `POLL_FALLBACK_MS`; if polling fails too, watching stops and the message says that.
`WatchReady` says when a watcher of whole folders is surely running (its first batch, or its
first quiet `POLL_S`), so the engine may trust the folders' unreported files from then on.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from textual.message import Message
from textual.message_pump import MessagePump
from watchfiles import watch

DEBOUNCE_MS = 400
STEP_MS = 5
POLL_S = 0.5
POLL_FALLBACK_MS = 1000
MAX_FOLDERS = 20_000
"""Folders watched in all, each subfolder of a watched folder counted (one OS watch each)."""


class FilesChanged(Message):
    """Files under the watched folders changed (`paths` absolute; `{"*"}` = unknown)."""

    def __init__(self, paths: set[str]) -> None:
        super().__init__()
        self.paths = paths


class WatchReady(Message):
    """The watcher runs over `folders`: from now on every change there is reported."""

    def __init__(self, folders: tuple[Path, ...]) -> None:
        super().__init__()
        self.folders = folders


class WatchTrouble(Message):
    """The watcher failed: `reason`; `polling` tells whether watching goes on by polling."""

    def __init__(self, reason: str, polling: bool) -> None:
        super().__init__()
        self.reason = reason
        self.polling = polling


class WatchBounded(Message):
    """What the bounds left unwatched: (folder, why) for each folder watched without its
    subfolders (none: every folder is watched whole)."""

    def __init__(self, notes: tuple[tuple[Path, str], ...]) -> None:
        super().__init__()
        self.notes = notes


def _existing(paths: Sequence[Path]) -> tuple[Path, ...]:
    return tuple(p for p in paths if p.is_dir())


def run_watcher(
    target: MessagePump,
    folders: Sequence[Path],
    *,
    tops: Sequence[Path] = (),
    stop: threading.Event,
    changed: Callable[[set[str]], Message] = FilesChanged,
    reports: bool = True,
) -> None:
    """Watch `folders` whole and `tops` without their subfolders, posting to `target`, until
    `stop` is set. Blocks: run it on a daemon thread. `changed` makes the message a batch of
    changes is posted as; `reports`: whether `WatchReady`, `WatchBounded` and `WatchTrouble`
    are posted too (a watcher of something other than the workspace keeps its troubles to
    itself: it falls back to polling all the same)."""
    post = _Post(target, changed, reports)
    whole: list[Path] = []
    shallow = [Path(f) for f in tops]
    notes = [(f, _unwatched("the root or the home folder is too broad to watch")) for f in shallow]
    budget = MAX_FOLDERS
    for folder in (Path(f) for f in folders):
        count = count_folders(folder, budget, stop)
        if count is None:
            shallow.append(folder)
            notes.append((folder, _unwatched(f"more than {MAX_FOLDERS:,} folders to watch")))
        else:
            whole.append(folder)
            budget -= count
    if stop.is_set():
        return
    post(WatchBounded(tuple(notes)))
    if shallow:
        threading.Thread(
            target=_watch_loop,
            args=(post, shallow, False, stop),
            name="watch-tops",
            daemon=True,
        ).start()
    if whole:
        _watch_loop(post, whole, True, stop)


class _Post:
    """How a watcher posts: its batches as `changed` makes them, its other news only when
    `reports`."""

    def __init__(
        self, target: MessagePump, changed: Callable[[set[str]], Message], reports: bool
    ) -> None:
        self.target, self.changed, self.reports = target, changed, reports

    def __call__(self, message: Message) -> None:
        if isinstance(message, FilesChanged):
            message = self.changed(message.paths)
        elif not self.reports:
            return
        with contextlib.suppress(RuntimeError):  # the app has gone: its event loop is closed
            self.target.post_message(message)


def _unwatched(reason: str) -> str:
    return f"watched without its subfolders: {reason}; r shows an edit below it"


def count_folders(folder: Path, limit: int, stop: threading.Event) -> int | None:
    """How many folders watching `folder` whole sets a watch on (itself and every subfolder,
    through links as the OS watcher follows them, each once); None past `limit` (or when
    `stop` is set meanwhile)."""
    seen: set[tuple[int, int]] = set()
    todo = [str(folder)]
    count = 0
    while todo:
        if stop.is_set():
            return None
        path = todo.pop()
        try:
            st = os.stat(path)
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            continue
        seen.add(key)
        count += 1
        if count > limit:
            return None
        try:
            with os.scandir(path) as entries:
                todo += [e.path for e in entries if _is_dir(e)]
        except OSError:
            continue
    return count


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows a link, as the OS watcher does
    except OSError:
        return False


def _watch_loop(
    post: Callable[[Message], None],
    folders: Sequence[Path],
    recursive: bool,
    stop: threading.Event,
) -> None:
    folders = list(folders)
    polling = False
    while not stop.is_set():
        watched = _existing(folders)
        if not watched:
            while not stop.is_set() and not _existing(folders):
                stop.wait(POLL_S)
            if not stop.is_set():
                post(FilesChanged({"*"}))
            continue
        ready = False
        try:
            for changes in watch(
                *watched,
                stop_event=stop,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=int(POLL_S * 1000),
                yield_on_timeout=True,
                force_polling=polling or None,
                poll_delay_ms=POLL_FALLBACK_MS,
                recursive=recursive,
                raise_interrupt=False,
            ):
                if not ready:  # the first yield: the watcher is surely set up
                    ready = True
                    if recursive:  # only whole folders report every change below them
                        post(WatchReady(watched))
                if changes:
                    post(FilesChanged({path for _, path in changes}))
                if _existing(folders) != watched:
                    post(FilesChanged({"*"}))
                    break
        except Exception as exc:  # the OS watcher (or polling) gave up
            if stop.is_set():
                return
            if polling:
                post(
                    WatchTrouble(f"watching stopped: {_why(exc)}; press r to rebuild", False),
                )
                return
            polling = True
            every = f"{POLL_FALLBACK_MS / 1000:g} s"
            post(
                WatchTrouble(f"file watcher failed: {_why(exc)}; polling every {every}", True),
            )
            post(FilesChanged({"*"}))  # changes may have been missed


def _why(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__
