"""Exact mode in the app: the installed OpenClaw writes the text. By default (`auto`) the first
frame is ctxscope's model and the runtime loads on a thread of its own once that frame is
drawn; its text is swapped in by the build that follows, and the top bar says which is shown
and how far the model drifts from it. `ctrl+e` turns it on or off."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from ctxscope.tui.background import in_background, to_app

if TYPE_CHECKING:
    from ctxscope.tui.controller import Controller


class ExactActions(App[None]):
    """The exact-mode actions of the inspector (mixed into `CtxscopeApp`)."""

    ctl: Controller

    def action_toggle_exact(self) -> None:
        """Exact mode on/off: the installed OpenClaw writes the text (loading it takes a few
        seconds, on the build thread)."""
        on = self.ctl.toggle_exact()
        self.notify(
            markup=False,
            message="exact mode: finding and loading OpenClaw…" if on else "exact mode off",
            timeout=3,
        )
        self.rebuild()

    def _say_exact(self) -> None:
        """After a toggle: whether exact mode runs, and why not."""
        notice = self.ctl.exact_outcome()
        if notice is not None:
            self._tell(*notice)

    def _tell(self, message: str, warning: bool) -> None:
        self.notify(
            markup=False,
            message=message,
            severity="warning" if warning else "information",
            timeout=8 if warning else 4,
        )

    def _load_exact(self) -> None:
        """The first frame is drawn: load the runtime on a thread of its own, then build
        again with its text (the model stays on screen meanwhile)."""
        builder = self.ctl.builder

        def found_one() -> None:
            to_app(self, self._exact_found)

        def work() -> None:
            found, failure = builder.load_exact(found_one)
            to_app(self, self._exact_loaded, found, failure)

        in_background("exact-load", work)

    def _exact_found(self) -> None:
        """An install was found: the top bar says it loads (none found: nothing is said)."""
        self.ctl.exact_found()
        self._refresh_bars()

    def _exact_loaded(self, found: bool, failure: str | None) -> None:
        notice = self.ctl.exact_loaded(found, failure)
        if notice is not None:
            self._tell(*notice)
        if failure is None:
            self.rebuild()
        elif found:
            self._refresh_bars()

    if TYPE_CHECKING:  # the app's

        def rebuild(self) -> None: ...

        def _refresh_bars(self) -> None: ...
