"""Watch folders with watchfiles and post `FilesChanged` messages (nothing else).

Folders, not single files, are watched: editors save by writing a temporary file and renaming
it. watchfiles groups a burst of events (`step` ms of quiet, at most `debounce` ms) into one
batch; the app coalesces batches further by running one exclusive rebuild worker. A watched
folder that disappears (or a missing one that appears) restarts the watcher, so deleting and
recreating the workspace is survived.

When the operating system's watcher fails (inotify's watch or instance limits, a folder too
big to watch), a `WatchTrouble` message says so and watching goes on by polling the folders
every `POLL_FALLBACK_MS`; if polling fails too, watching stops and the message says that.
`WatchReady` says when a watcher is surely running (its first batch, or its first quiet
`POLL_S`), so the engine may trust the folders' unreported files from then on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from textual.message import Message
from textual.message_pump import MessagePump
from watchfiles import awatch

DEBOUNCE_MS = 400
STEP_MS = 5
POLL_S = 0.5
POLL_FALLBACK_MS = 1000


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


def _existing(paths: Sequence[Path]) -> tuple[Path, ...]:
    return tuple(p for p in paths if p.is_dir())


async def watch_folders(
    target: MessagePump, folders: Sequence[Path], *, stop: asyncio.Event | None = None
) -> None:
    """Post `FilesChanged` to `target` until `stop` is set (or the task is cancelled)."""
    stop = stop or asyncio.Event()
    folders = [Path(f) for f in folders]
    polling = False
    while not stop.is_set():
        watched = _existing(folders)
        if not watched:
            while not stop.is_set() and not _existing(folders):
                await asyncio.sleep(POLL_S)
            target.post_message(FilesChanged({"*"}))
            continue
        ready = False
        try:
            async for changes in awatch(
                *watched,
                stop_event=stop,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=int(POLL_S * 1000),
                yield_on_timeout=True,
                force_polling=polling or None,
                poll_delay_ms=POLL_FALLBACK_MS,
            ):
                if not ready:  # the first yield: the watcher is surely set up
                    ready = True
                    target.post_message(WatchReady(watched))
                if changes:
                    target.post_message(FilesChanged({path for _, path in changes}))
                if _existing(folders) != watched:
                    target.post_message(FilesChanged({"*"}))
                    break
        except Exception as exc:  # the OS watcher (or polling) gave up
            if polling:
                target.post_message(
                    WatchTrouble(f"watching stopped: {_why(exc)}; press r to rebuild", False)
                )
                return
            polling = True
            every = f"{POLL_FALLBACK_MS / 1000:g} s"
            target.post_message(
                WatchTrouble(f"file watcher failed: {_why(exc)}; polling every {every}", True)
            )
            target.post_message(FilesChanged({"*"}))  # changes may have been missed


def _why(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__
