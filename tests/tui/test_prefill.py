"""Once rebuilds pause, the hidden panels are filled from the last build, so that a key
showing one only lays it out and draws it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.map_panel import MapPanel
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


def legend_tokens(table: KeyedTable, label: str) -> str:
    return next(str(table.row(k)[2]) for k in table.keys if str(table.row(k)[1]) == label)


async def test_hidden_panels_are_filled_from_each_build_once_rebuilds_pause(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fills: list[str] = []
    real_show = MapPanel.show

    def show(self: MapPanel, *args: object, **kwargs: object) -> None:
        fills.append("map")
        real_show(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(MapPanel, "show", show)
    app = make_app(workspace, watch=True, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None and app.watched, what="first build")
        assert app.active_panel == "map"  # the first panel
        await pilot.press("1")  # Files on show: the Map is hidden from now on
        await wait_for(pilot, lambda: not app._stale_panels, what="the hidden panels filled")
        assert fills == ["map"]
        legend = app.query_one("#map-main-legend", KeyedTable)
        before = legend_tokens(legend, "SOUL.md")

        # A new build leaves them out of date until rebuilds pause again; then each is
        # filled from it, still hidden.
        soul = workspace / "SOUL.md"
        soul.write_text(soul.read_text() + "\nA rule the map must count.\n" * 40)
        await wait_for(pilot, lambda: app.builds_applied >= 2, what="the rebuild")
        assert app._stale_panels  # not filled in the frame that shows the rebuild
        await wait_for(pilot, lambda: not app._stale_panels, what="the hidden panels filled")
        assert fills == ["map", "map"]
        after = legend_tokens(legend, "SOUL.md")
        assert int(after.replace(",", "")) > int(before.replace(",", ""))

        await pilot.press("8")  # shown: nothing left to fill
        await pilot.pause()
        assert app.active_panel == "map" and fills == ["map", "map"]
        assert legend_tokens(legend, "SOUL.md") == after


async def test_hidden_panels_wait_while_keys_are_pressed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Keys 0.2 s apart must count as "being pressed" even on a loaded machine, where one
    # step of this loop can take longer than the app's 0.7 s quiet time.
    monkeypatch.setattr("ctxscope.tui.view_refresh.PREFILL_AFTER_S", 3.0)
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="first build")
        await pilot.press("d")  # the diff view: every panel is out of date again
        for _ in range(8):  # keys keep coming, 0.2 s apart, past the quiet time
            await pilot.pause(0.2)
            assert app._stale_panels, "filled while keys were being pressed"
            await pilot.press("pagedown")
        await wait_for(pilot, lambda: not app._stale_panels, what="the hidden panels filled")
