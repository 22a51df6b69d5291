"""Watch folders with watchfiles and post `FilesChanged` messages (nothing else).

Folders, not single files, are watched: editors save by writing a temporary file and renaming
it. watchfiles groups a burst of events (`step` ms of quiet, at most `debounce` ms) into one
batch; the app coalesces batches further by running one exclusive rebuild worker. A watched
folder that disappears (or a missing one that appears) restarts the watcher, so deleting and
recreating the workspace is survived.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from textual.message import Message
from textual.message_pump import MessagePump
from watchfiles import awatch

DEBOUNCE_MS = 400
STEP_MS = 25
POLL_S = 0.5


class FilesChanged(Message):
    """Files under the watched folders changed (`paths` absolute; `{"*"}` = unknown)."""

    def __init__(self, paths: set[str]) -> None:
        super().__init__()
        self.paths = paths


def _existing(paths: Sequence[Path]) -> tuple[Path, ...]:
    return tuple(p for p in paths if p.is_dir())


async def watch_folders(
    target: MessagePump, folders: Sequence[Path], *, stop: asyncio.Event | None = None
) -> None:
    """Post `FilesChanged` to `target` until `stop` is set (or the task is cancelled)."""
    stop = stop or asyncio.Event()
    folders = [Path(f) for f in folders]
    while not stop.is_set():
        watched = _existing(folders)
        if not watched:
            while not stop.is_set() and not _existing(folders):
                await asyncio.sleep(POLL_S)
            target.post_message(FilesChanged({"*"}))
            continue
        async for changes in awatch(
            *watched,
            stop_event=stop,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            rust_timeout=int(POLL_S * 1000),
            yield_on_timeout=True,
        ):
            if changes:
                target.post_message(FilesChanged({path for _, path in changes}))
            if _existing(folders) != watched:
                target.post_message(FilesChanged({"*"}))
                break
