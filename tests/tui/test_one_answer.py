"""One question, one answer: the real store OpenClaw 2026.9.6 left, beside a workspace laid
out as a fresh copy (every file touched long after the run) with one file really edited. The
`runs` command, `diff --from run:`, the Runs panel and `B run:` name that file, and only it,
as changed since the run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.diff import compare_specs
from ctxscope.diff.runlist import list_runs
from ctxscope.diff.verdict import Difference, changed_files
from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.tables import KeyedTable
from tests.runs.stores import MAIN, real_state
from tests.runs.stores import workspace as runs_workspace
from tests.tui.conftest import wait_for
from tests.tui.test_pin_before import pin, strip

FILES = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md")


def changed(differences: list[Difference]) -> set[str]:
    return set(changed_files(differences))


def _fresh_copy(tmp_path: Path) -> tuple[Path, Path]:
    state, ws = real_state(tmp_path), runs_workspace(tmp_path)
    for path in ws.rglob("*"):
        os.utime(path)
    soul = ws / "SOUL.md"
    soul.write_text(soul.read_text() + "\nAlways cite the ticket.\n")
    return state, ws


async def test_runs_diff_the_runs_panel_and_the_pin_name_the_same_changed_file(
    tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    state, ws = _fresh_copy(tmp_path)

    listed = list_runs(Inspector(ws), state=state, session=MAIN).rows[0].comparison
    assert listed is not None
    assert changed(listed.differences) == {"SOUL.md"}
    assert {f["name"]: f["status"] for f in listed.files} == {
        name: "changed" if name == "SOUL.md" else "same" for name in FILES
    }

    diffed = compare_specs(ws, f"run:{MAIN}", state=state)
    (session,) = diffed.sessions
    assert [f.name for f in session.files] == ["SOUL.md"]
    assert "changed since the run" in session.files[0].why
    assert not any("changed since the run" in n and "SOUL.md" not in n for n in diffed.notes)

    app = make_app(ws, watch=False, frozen=True, state=str(state))
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("9")
        table = app.query_one("#runs-table", KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="run rows")
        table.focus()
        table.move_cursor(table.index(MAIN))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.recorded is not None, what="the recorded run")
        assert app.recorded is not None
        beside = app.recorded.comparison
        assert changed(beside.differences) == {"SOUL.md"}
        main = app.query_one("#main", PromptPane).view
        await wait_for(pilot, lambda: main.blocks[0].key == "recorded", what="the block")
        noted = [
            b.key
            for b in main.blocks
            if b.key.startswith("file:") and "changed since the run" in b.metrics
        ]
        assert noted == ["file:SOUL.md"]
        await pilot.press("enter")  # taken away again
        await wait_for(pilot, lambda: app.recorded is None, what="the run taken away")

        await pin(pilot, app, f"run:{MAIN}")
        await wait_for(pilot, lambda: app.pinned is not None, what="the pinned run")
        await pilot.pause()
        text = strip(app)
        assert "SOUL.md" in text and "changed since the run" in text
        assert not any(name in text for name in FILES if name != "SOUL.md")
        await pilot.press("d")
        await wait_for(pilot, lambda: any(b.mark for b in main.blocks), what="the marks")
        assert {b.key: b.mark for b in main.blocks if b.mark} == {"file:SOUL.md": "changed"}
