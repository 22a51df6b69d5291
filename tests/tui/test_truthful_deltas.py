"""The delta strip tells the truth about a rebuild: an edit the cut drops is an edit, a file
grown past the limit says its size on disk and what the prompt gained, and another agent's
prompt (the target switched) is not an edit of this one."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ctxscope.tui.app import CtxscopeApp, make_app
from tests.tui.conftest import wait_for

SIZE = (200, 50)


async def _rebuilt(pilot, app: CtxscopeApp, number: int) -> str:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.build is not None and app.build.number == number)
    await pilot.pause()
    return str(app.query_one("#deltabar", Static).render())


def _memory_cut(app: CtxscopeApp) -> tuple[int, int]:
    """Where in MEMORY.md (right-trimmed) the runtime's cut lies: (start, end)."""
    assert app.build is not None
    entry = next(f for f in app.build.report.requester.files if f.name == "MEMORY.md")
    assert entry.status == "truncated"
    cut = next(m for m in entry.markers if m.kind == "truncation")
    raw = Path(entry.path).read_text().rstrip()
    return cut.start, len(raw) - (len(entry.body) - cut.end)


async def test_an_edit_in_the_cut_part_is_reported_as_an_edit(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        start, end = _memory_cut(app)
        memory = workspace / "MEMORY.md"
        text = memory.read_text()
        middle = (start + end) // 2
        # Same size, in the dropped middle: the prompt cannot change.
        flipped = "X" if text[middle] != "X" else "Y"
        memory.write_text(text[:middle] + flipped + text[middle + 1 :])
        app.rebuild()
        strip = await _rebuilt(pilot, app, 2)
        assert "no change in either prompt" not in strip
        assert "MEMORY.md edited in the part the cut drops: prompt unchanged" in strip


async def test_growing_a_cut_file_shows_its_size_on_disk(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        memory = workspace / "MEMORY.md"
        text = memory.read_text().rstrip()
        assert len(text) == 29_220
        grown = text + "\n" + "y" * (200_082 - len(text) - 1)
        memory.write_text(grown)
        app.rebuild()
        strip = await _rebuilt(pilot, app, 2)
        assert "MEMORY.md 29,220 → 200,082 ch on disk, cut: prompt +" in strip, strip


async def test_switching_the_target_is_not_an_edit(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        assert app.build is not None and app.build.child is not None
        assert app.build.child.agent_id == "coder"
        app.set_scenario_field("target", "main")
        strip = await _rebuilt(pilot, app, 2)
        assert "child is now main" in strip and "was coder" in strip
        assert "AGENTS.md +" not in strip  # the other agent's files are not edits
        assert app.changed_sections.get("child", set()) == set()


def test_a_file_that_injects_nothing_draws_a_flat_line_at_the_floor() -> None:
    from ctxscope.tui.widgets.files_panel import SPARKS, sparkline

    assert sparkline([0, 0, 0]) == SPARKS[0] * 3
    assert set(sparkline([5, 5])) == {SPARKS[3]}
