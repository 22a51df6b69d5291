"""Find in one pane says where else the word is: "not found" in the subagent pane names the
main pane's sections that hold it, and why the subagent does not get them."""

from __future__ import annotations

from pathlib import Path

from ctxscope.tui.app import make_app
from ctxscope.tui.screens.search import SearchScreen
from ctxscope.tui.widgets.pane import PromptPane
from tests.tui.conftest import wait_for


def _said(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [n.message for n in app._notifications]


async def test_not_found_in_the_subagent_says_it_is_in_the_main_pane_and_why(
    workspace: Path,
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        app.query_one("#child", PromptPane).view.focus()
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), what="find")
        await pilot.press(*"Okafor", "enter")
        await wait_for(pilot, lambda: any("Okafor" in m for m in _said(app)), what="answer")
        said = next(m for m in _said(app) if "Okafor" in m)
        assert "not in the subagent pane" in said
        assert " in the main pane: " in said
        lacks = said.split("the subagent does not get ", 1)[1]
        assert lacks.startswith("IDENTITY.md, USER.md, HEARTBEAT.md, MEMORY.md: ")
        assert "subagent" in lacks.split(": ", 1)[1]  # the reason: its allowlist


async def test_a_hit_in_the_main_pane_counts_the_subagent_too(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        app.query_one("#main", PromptPane).view.focus()
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), what="find")
        await pilot.press(*"sessions_spawn", "enter")
        await wait_for(pilot, lambda: any("sessions_spawn" in m for m in _said(app)))
        said = next(m for m in _said(app) if "sessions_spawn" in m)
        assert "match(es) (" in said and "in the subagent pane" in said
