"""A Rye space check that ends after the hidden panels were filled: Problems, hidden, is
filled again with its findings once keys pause (it is not left out of date until shown)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.check import Finding
from ctxscope.tui.app import make_app
from ctxscope.tui.build import Build, Builder
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from tests.tui.conftest import wait_for


async def test_a_late_check_fills_the_hidden_problems_panel(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real_check = Builder.check

    def late_check(
        self: Builder, build: Build, *, cancelled: Callable[[], bool] = lambda: False
    ) -> list[Finding] | None:
        release.wait(30)
        return real_check(self, build, cancelled=cancelled)

    shown: list[int] = []
    real_show = ProblemsPanel.show

    def show(self: ProblemsPanel, build: Build, *args: object) -> None:
        shown.append(len(build.findings))
        real_show(self, build, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Builder, "check", late_check)
    monkeypatch.setattr(ProblemsPanel, "show", show)
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="first build")
        assert app.active_panel == "map"
        await wait_for(
            pilot,
            lambda: not app._stale_panels and app._prefill_timer is None,
            what="the hidden panels filled",
        )
        assert app.build is not None and app.build.check_pending
        filled = len(shown)
        release.set()
        await wait_for(
            pilot, lambda: app.build is not None and not app.build.check_pending, what="check"
        )
        await wait_for(pilot, lambda: not app._stale_panels, what="Problems filled again")
        assert app.active_panel == "map"
        assert len(shown) == filled + 1
        assert shown[-1] == len(app.build.findings)
