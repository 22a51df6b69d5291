"""`B` pins a before side: the delta strip, `d` and the map compare against it."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from textual.widgets import Static

from ctxscope.diff import compare_specs
from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.widgets.map_panel import MapColumn
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.tables import KeyedTable
from tests.diff.gitrepo import git
from tests.runs.stores import MAIN, RECORDED_AT, real_state
from tests.runs.stores import workspace as runs_workspace
from tests.tui.conftest import wait_for

SIZE = (200, 50)


def strip(app: CtxscopeApp) -> str:
    return str(app.query_one("#deltabar", Static).render())


async def pin(pilot, app: CtxscopeApp, spec: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("B")
    await wait_for(pilot, lambda: app.screen.id != "_default", what="the pin dialog")
    field = app.screen.query_one("#pin-spec")
    field.value = spec  # type: ignore[attr-defined]
    await pilot.press("enter")


async def test_pinning_a_profile_compares_the_workspace_with_it(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        assert not app.query_one("#deltabar").display  # nothing to compare yet
        await pin(pilot, app, "openclaw-2026.9")
        await wait_for(pilot, lambda: app.pinned is not None, what="the pinned side")
        await pilot.pause()
        assert app.build is not None and app.pinned is not None
        before, now = app.pinned.main, app.build.report.requester
        text = strip(app)
        assert text.startswith("Δ against profile openclaw-2026.9:")
        # The sample runs 2026.2, which injects TOOLS.md; 2026.9 does not.
        assert "TOOLS.md now injected" in text
        assert f"main {before.tokens.total:,} → {now.tokens.total:,} tok" in text
        assert "before: profile openclaw-2026.9" in str(app.query_one("#topbar", Static).render())

        await pilot.press("d")
        await pilot.pause()
        blocks = {b.key: b for b in app.query_one("#main", PromptPane).view.blocks}
        assert blocks["file:TOOLS.md"].mark == "gained"
        assert blocks["lost:delegation"].mark == "lost"  # 2026.9's, not 2026.2's

        await pilot.press("8")
        await wait_for(
            pilot,
            lambda: app.query_one("#map-main", MapColumn)._shown is not None,
            what="the map",
        )
        shown = app.query_one("#map-main", MapColumn)._shown
        assert shown is not None and shown[0] is before
        assert shown[2] == "BEFORE (profile openclaw-2026.9)"
        now_col = app.query_one("#map-child", MapColumn)
        assert now_col._shown is not None and now_col._shown[0] is now
        # Enter on a row of the NOW column shows the section in the main pane.
        legend = app.query_one("#map-child-legend", KeyedTable)
        legend.focus()
        legend.move_cursor([c.label for c in now_col.categories].index("TOOLS.md"))
        await pilot.press("enter")
        main_view = app.query_one("#main", PromptPane).view
        await wait_for(pilot, lambda: main_view.selected == "file:TOOLS.md", what="TOOLS.md")

        # An edit is compared with the pinned side, not with the last build.
        soul = workspace / "SOUL.md"
        soul.write_text(soul.read_text() + "\nAlways cite the ticket.\n")
        app.rebuild()
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 2)
        await pilot.pause()
        assert "TOOLS.md now injected" in strip(app)
        assert "SOUL.md +" in strip(app)

        await pin(pilot, app, "unpin")
        await wait_for(pilot, lambda: app.pinned is None, what="unpinned")
        await pilot.pause()
        assert not app.query_one("#deltabar").display


async def test_a_side_that_names_nothing_is_said_and_nothing_is_pinned(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pin(pilot, app, "no-such-side")

        def said() -> list[str]:
            return [n.message for n in app._notifications if "cannot pin" in n.message]

        await wait_for(pilot, said, what="the error")
        assert "'no-such-side' names no side" in said()[0]
        assert app.pinned is None


async def test_pinning_a_recorded_run_compares_its_files_and_marks_nothing_else(
    tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real store OpenClaw 2026.9.6 left: `run:agent:main:main` is the main pane's
    before side; an edit since the run is named in the strip and marked in the pane, and
    the map draws the record's figures beside now."""
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    state = real_state(tmp_path)
    ws = runs_workspace(tmp_path)
    app = make_app(ws, watch=False, frozen=True, state=str(state))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pin(pilot, app, f"run:{MAIN}")
        await wait_for(pilot, lambda: app.pinned is not None, what="the pinned run")
        await pilot.pause()
        assert app.pinned is not None and app.pinned.main is not None
        assert app.pinned.child is None  # a main session's run: the subagent has no before
        label = f"run {MAIN} (2026-11-26 04:25 UTC)"
        assert f"before: {label}" in str(app.query_one("#topbar", Static).render())
        text = strip(app)
        assert text.startswith(
            f"Δ against {label}: no file changed since the run · main ≈16,512 tok recorded → "
        )
        assert "child: no before side" in text
        assert text.count("no section texts") == 1

        soul = ws / "SOUL.md"
        soul.write_text(soul.read_text() + "\nAlways cite the ticket.\n")
        later = RECORDED_AT / 1000 + 600
        os.utime(soul, (later, later))
        app.rebuild()
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 2)
        await pilot.pause()
        assert app.build is not None
        now = app.build.report.requester
        injected = now.file("SOUL.md").injected_chars  # type: ignore[union-attr]
        assert injected != 1079
        text = strip(app)
        assert f"SOUL.md 1,079 → {injected:,} ch" in text
        assert "changed since the run" in text
        # both sides counted one way, chars/4 (a record holds chars), as `ctxscope diff` does
        counted = compare_specs(ws, f"run:{MAIN}", state=state).sessions[0].after
        assert counted is not None
        assert f"main ≈16,512 tok recorded → ≈{counted['total']:,} predicted" in text

        await pilot.press("d")
        main_view = app.query_one("#main", PromptPane).view
        await wait_for(pilot, lambda: any(b.mark for b in main_view.blocks), what="the marks")
        marked = {b.key: b.mark for b in main_view.blocks if b.mark}
        assert marked == {"file:SOUL.md": "changed"}  # no other section, file or not
        child_blocks = app.query_one("#child", PromptPane).view.blocks
        assert child_blocks and not [b.key for b in child_blocks if b.mark]

        await pilot.press("8")
        before_col = app.query_one("#map-main", MapColumn)
        now_col = app.query_one("#map-child", MapColumn)

        def drawn() -> bool:  # the map is on show from the start: wait for its redraw
            assert app.pinned is not None
            then, shown = before_col._shown, now_col._shown
            return (
                then is not None
                and then[0] is app.pinned.main
                and shown is not None
                and shown[0] is now
            )

        await wait_for(pilot, drawn, what="the map of the run beside now")
        shown = before_col._shown
        assert shown is not None and shown[2] == f"BEFORE (recorded {label})"
        cats = {c.key: c for c in before_col.categories}
        assert cats["file:SOUL.md"].tokens == math.ceil(1079 / 4)
        assert cats["runtime"].label == "rest of the prompt (recorded)"
        assert sum(c.tokens for c in before_col.categories if c.kind != "free") == 16512


async def test_pinning_a_revision_reports_file_by_file_like_diff(workspace: Path) -> None:
    """`B` with `HEAD~1` in a git workspace: the revision (built in a scratch copy) is the
    same agents' sessions, not a switched target; the strip names the two files that changed
    as `ctxscope diff --from HEAD~1` does, and `d` marks those two only."""
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "before")
    for name in ("SOUL.md", "USER.md"):
        path = workspace / name
        path.write_text(path.read_text() + "\nOne more line for the revision after.\n")
    git(workspace, "commit", "-qam", "after")
    expected = compare_specs(workspace, "HEAD~1")
    main_diff = next(d for d in expected.sessions if d.role == "main")
    assert sorted(f.name for f in main_diff.files) == ["SOUL.md", "USER.md"]
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pin(pilot, app, "HEAD~1")
        await wait_for(pilot, lambda: app.pinned is not None, what="the pinned revision")
        await pilot.pause()
        text = strip(app)
        assert text.startswith("Δ against HEAD~1")
        assert "is now" not in text  # not the target-switch wording
        for change in main_diff.files:
            assert change.before is not None and change.after is not None
            moved = change.after["injected_chars"] - change.before["injected_chars"]
            assert f"{change.name} {moved:+,} ch" in text
        assert "child unchanged" in text
        await pilot.press("d")
        main_view = app.query_one("#main", PromptPane).view
        await wait_for(pilot, lambda: any(b.mark for b in main_view.blocks), what="the marks")
        marked = {b.key: b.mark for b in main_view.blocks if b.mark}
        assert marked == {"file:SOUL.md": "changed", "file:USER.md": "changed"}
        child_view = app.query_one("#child", PromptPane).view
        assert not [b.key for b in child_view.blocks if b.mark]


async def test_an_empty_line_in_the_pin_dialog_unpins_nothing_and_says_so(workspace: Path) -> None:
    """The dialog's grey `e.g. HEAD~1` is a placeholder: Enter on an empty line keeps the pin
    and the dialog, which says what to type; `unpin` unpins."""
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pin(pilot, app, "openclaw-2026.9")
        await wait_for(pilot, lambda: app.pinned is not None, what="the pinned side")
        await pin(pilot, app, "")
        await pilot.pause()
        assert app.pinned is not None and app.screen.id != "_default"  # still open
        said = str(app.screen.query_one("#pin-error", Static).render())
        assert "Nothing typed" in said and "unpin" in said
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.id == "_default" and app.pinned is not None
        await pin(pilot, app, "unpin")
        await wait_for(pilot, lambda: app.pinned is None, what="unpinned")
