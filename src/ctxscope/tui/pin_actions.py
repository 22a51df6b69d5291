"""`B`: pin a side as "before" (a git revision, a profile, a config or scenario file, the
workspace now, a recorded run). It is built off the event loop; once it is there the delta
strip, `d` and the map compare against it until it is unpinned (`B`, then `unpin`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.tui.background import in_background, to_app
from ctxscope.tui.pane_actions import PaneActions
from ctxscope.tui.pinned import PinnedSide, pin_side
from ctxscope.tui.screens.pin import UNPIN, PinScreen

if TYPE_CHECKING:
    from ctxscope.tui.build import Build


class PinActions(PaneActions):
    """The pin actions of the inspector (mixed into `CtxscopeApp`)."""

    # The controller's (`Controller`: what is compared with the prediction).
    pinned: PinnedSide | None
    runs_state: str | None
    build: Build | None

    def action_pin_before(self) -> None:
        current = self.pinned.spec if self.pinned is not None else ""
        self.push_screen(PinScreen(current), self._pin_answer)

    def _pin_answer(self, spec: str | None) -> None:
        if spec is None:
            return
        if spec == UNPIN:
            if not self.ctl.unpin():
                self.notify(markup=False, message="nothing is pinned", timeout=3)
                return
            self.notify(markup=False, message="unpinned: changes are against the last build")
            self._pinned_changed()
            return
        self.notify(markup=False, message=f"building {spec} to pin…", timeout=3)
        inspector, overrides = self.ctl.builder.inspector, self.ctl.builder.overrides()
        state = self.runs_state
        requester = self.build.report.requester.session_key if self.build is not None else None

        def work() -> None:
            pinned, error = None, ""
            try:
                pinned = pin_side(inspector, overrides, spec, state=state, requester=requester)
            except Exception as exc:  # a side that cannot be built: say why, keep going
                diagnostic = getattr(exc, "diagnostic", None)
                error = str(diagnostic or exc)
            to_app(self, self._pinned_ready, pinned, error)

        in_background("pin", work)

    def _pinned_ready(self, pinned: PinnedSide | None, error: str) -> None:
        if pinned is None:
            self.notify(markup=False, message=f"cannot pin: {error}", severity="error", timeout=8)
            return
        self.pinned = pinned
        message = (
            f"pinned {pinned.label} as before: the Δ strip, d and the map compare against it "
            "(B, then unpin, unpins)"
        )
        if pinned.run is not None:
            pane = "main" if pinned.pane == "main" else "subagent"
            message = (
                f"pinned {pinned.label} as before of the {pane} pane: a record holds figures, "
                "not section texts, so d marks its file sections only, and tokens are "
                "counted chars/4 on both sides; the Runs panel (9) says where the record "
                "and ctxscope's model part (B, then unpin, unpins)"
            )
        self.notify(markup=False, message=message, timeout=8 if pinned.run else 5)
        self._pinned_changed()

    def _pinned_changed(self) -> None:
        if self.build is not None:
            self._show_delta(None, self.build)
        self.refresh_view()

    if TYPE_CHECKING:  # the app's own

        def _show_delta(self, before: Build | None, after: Build) -> None: ...

        def refresh_view(self, *, panes_only: bool = False) -> None: ...
