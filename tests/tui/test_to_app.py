"""A worker thread hands its result to the app with `to_app`: run on the app's thread while
the app runs; nothing, and no exception that would end the worker's thread, once the app has
gone (its loop closed) or goes while the call waits (the call is cancelled)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

from textual.app import App

from ctxscope.tui.background import to_app


async def test_a_result_reaches_a_running_app() -> None:
    app: App[None] = App()
    ran: list[str] = []
    async with app.run_test():
        worker = threading.Thread(target=to_app, args=(app, ran.append, "done"))
        worker.start()
        await asyncio.to_thread(worker.join, 10)
    assert ran == ["done"]


class GoneApp:
    """What `call_from_thread` does once the app has gone (`error`), or when the call is
    cancelled as the app's loop shuts down while the call waits (`error` None)."""

    is_running = True  # it stops while the call is made

    def __init__(self, error: Exception | None) -> None:
        self.error = error

    def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> None:
        if self.error is not None:
            raise self.error
        waiting: Future[None] = Future()
        waiting.cancel()
        waiting.result()


def test_a_result_for_an_app_that_has_gone_is_dropped() -> None:
    for app in (GoneApp(RuntimeError("App is not running")), GoneApp(None)):
        to_app(app, print, "never")  # type: ignore[arg-type]


async def test_a_result_after_the_app_ended_is_not_sent() -> None:
    app: App[None] = App()
    async with app.run_test():
        pass
    sent: list[str] = []
    app.call_from_thread = lambda *args, **kwargs: sent.append("sent")  # type: ignore[method-assign]
    to_app(app, print, "never")
    assert sent == []
