"""Work off the event loop that never keeps the app from quitting.

Textual's thread workers run in asyncio's default executor, whose threads the interpreter
joins at exit: one build stuck on a slow file system would keep `q` from ending the process.
These run on daemon threads instead, which the process abandons when the app exits.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from textual.app import App

T = TypeVar("T")


def to_app(app: App[Any], callback: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    """From a worker thread: run `callback` on the app's thread and wait for it. Nothing
    happens when the app has gone, or goes meanwhile (the call is then cancelled)."""
    if not app.is_running:  # its loop may be closed: nothing would run the call
        return
    with contextlib.suppress(RuntimeError, CancelledError):
        app.call_from_thread(callback, *args, **kwargs)


class Latest(Generic[T]):
    """Runs `work(request)` on one daemon thread, newest request first: requests that arrive
    while one runs replace each other, so only the latest waiting one runs next. `close`
    ends the thread once the work under way is done (it holds `work`, and with it the app)."""

    def __init__(self, name: str, work: Callable[[T], None]) -> None:
        self._name = name
        self._work = work
        self._cv = threading.Condition()
        self._pending: list[T] = []
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, request: T) -> None:
        with self._cv:
            if self._closed:
                return
            self._pending[:] = [request]
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._cv.notify()

    def close(self) -> None:
        """No more work: the waiting request is dropped and the thread ends."""
        with self._cv:
            self._closed = True
            self._pending.clear()
            self._cv.notify()

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                request = self._pending.pop()
            self._work(request)  # the work reports its own errors


def in_background(name: str, work: Callable[[], None]) -> None:
    """Run `work` once on its own daemon thread."""
    threading.Thread(target=work, name=name, daemon=True).start()
