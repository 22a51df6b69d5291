"""`o` opens the file behind the selection: the child's own file on a child row, at the line
a search hit, `J` or the cut view (`v`) points at."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.remedies import cut_text
from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.pane_actions import editor_command
from ctxscope.tui.screens.cut import CutScreen
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for

SIZE = (200, 50)


def _record(app: CtxscopeApp, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, int]]:
    opened: list[tuple[Path, int]] = []
    monkeypatch.setattr(app, "open_in_editor", lambda path, line=1: opened.append((path, line)))
    return opened


async def test_o_on_a_child_row_opens_the_childs_file(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    opened = _record(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("1")
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        await pilot.pause()
        keys = list(table._keys)
        table.move_cursor(row=keys.index("child:AGENTS.md"))
        await pilot.pause()
        assert table.current_key == "child:AGENTS.md"
        await pilot.press("o")
        await pilot.pause()
        assert opened == [(workspace / "agents" / "coder" / "workspace" / "AGENTS.md", 1)]
        table.move_cursor(row=keys.index("main:AGENTS.md"))
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert opened[-1] == (workspace / "AGENTS.md", 1)


async def test_o_after_j_and_in_the_cut_view_opens_at_the_first_line_cut(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    opened = _record(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        assert app.build is not None
        entry = app.build.source.requester.file("MEMORY.md")
        assert entry is not None
        cut = cut_text(entry, app.builder.inspector.snapshot)
        assert cut is not None and cut[0] > 1
        app.query_one("#main", PromptPane).view.focus()
        await pilot.press("J", "o")
        await pilot.pause()
        assert opened == [(workspace / "MEMORY.md", cut[0])]
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, CutScreen), what="cut view")
        await pilot.press("o")
        await pilot.pause()
        assert opened[-1] == (workspace / "MEMORY.md", cut[0])


async def test_o_after_a_search_hit_in_the_kept_tail_opens_at_its_line(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    opened = _record(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        assert app.build is not None
        entry = app.build.source.requester.file("MEMORY.md")
        assert entry is not None
        tail = entry.body[-400:].strip().splitlines()[-1]  # after the cut: lines move
        view = app.query_one("#main", PromptPane).view
        view.focus()
        assert view.search(tail) >= 1
        await pilot.press("o")
        await pilot.pause()
        text = (workspace / "MEMORY.md").read_text()
        assert opened == [(workspace / "MEMORY.md", 1 + text.split(tail)[0].count("\n"))]


def test_the_editor_gets_plus_line_before_the_file() -> None:
    assert editor_command(["vim"], Path("/w/M.md"), 40) == ["vim", "+40", "/w/M.md"]
    assert editor_command(["code", "-w"], Path("/w/M.md"), 1) == ["code", "-w", "/w/M.md"]
