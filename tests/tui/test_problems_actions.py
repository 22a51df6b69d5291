"""Problems can be acted on: a row per problem, its severity marked and coloured, Enter shows
the file's section and why, `o` opens the file at its line; a row never repeats the file's
name ("AGENTS.md: AGENTS.md: file not found")."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.screens.why import WhyScreen
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


def _row(table: KeyedTable, words: str) -> str:
    return next(k for k in table.keys if words in " ".join(str(c) for c in table.row(k)))


async def _problems(pilot, app: CtxscopeApp) -> KeyedTable:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.build is not None and not app.build.check_pending)
    await pilot.press("7")
    await pilot.pause()
    table = app.query_one("#problems-table", KeyedTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="problem rows")
    return table


async def test_enter_on_a_problem_shows_the_file_and_why(workspace: Path) -> None:
    (workspace / "agents" / "coder" / "workspace" / "AGENTS.md").unlink()
    config = workspace / "openclaw.json"  # skipBootstrap: the deleted file stays absent
    config.write_text(
        config.read_text().replace("defaults: {", "defaults: { skipBootstrap: true,", 1)
    )
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _problems(pilot, app)
        missing = _row(table, "file not found")
        cells = [str(c) for c in table.row(missing)]
        assert "AGENTS.md: AGENTS.md" not in " ".join(cells)
        assert cells[2] == "agents/coder/workspace/AGENTS.md"
        assert not cells[3].startswith("AGENTS.md:")
        table.focus()
        table.move_cursor(table.index(missing))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why")
        assert "AGENTS.md" in app.screen.text  # type: ignore[attr-defined]
        child = app.query_one("#child", PromptPane).view
        assert child.selected == "file:AGENTS.md"


async def test_problem_severities_have_their_own_marks_and_colours(workspace: Path) -> None:
    config = workspace / "openclaw.json"
    config.write_text(config.read_text().replace('id: "coder"', 'id: "Bad Id!"'))
    app = make_app(workspace, watch=False, frozen=True, overrides={"target": "coder"})
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _problems(pilot, app)
        marks = {str(table.row(k)[0]): str(table.row(k)[0].style) for k in table.keys}  # type: ignore[union-attr]
        assert "▲" in marks  # a finding that fails a CI run (the cut MEMORY.md)
        assert "⚠" in marks  # a warning (an unknown agent, a forbidden spawn)
        assert color(app, "warning") in marks["⚠"]
        assert marks["▲"] != marks["⚠"]


async def test_o_on_a_problem_opens_its_file_at_the_line(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    opened: list[tuple[Path, int]] = []
    monkeypatch.setattr(app, "open_in_editor", lambda path, line=1: opened.append((path, line)))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _problems(pilot, app)
        table.focus()
        table.move_cursor(table.index(_row(table, "MEMORY.md")))
        await pilot.press("o")
        await pilot.pause()
        assert opened == [(workspace / "MEMORY.md", 1)]
        assert "Enter" in app.query_one(ProblemsPanel).plain
