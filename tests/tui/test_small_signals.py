"""Small signals kept: the stale mark fits at 120 columns, Textual's screenshot command writes
to the export folder, the top bar says when exact mode is unavailable, the markdown export
carries no raw control characters (as the CLI's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ctxscope import Inspector
from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.pane import PromptPane
from tests.tui.conftest import wait_for


async def test_the_stale_mark_shows_at_120_columns(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        config = workspace / "openclaw.json"
        config.write_text(config.read_text().replace("contextTokens: 200000,", "contextTokens: ,"))
        app.rebuild()
        await wait_for(pilot, lambda: app.build_error is not None, what="the error")
        await pilot.pause()
        for pane in ("#main", "#child"):
            first = str(app.query_one(pane, PromptPane).header.render()).splitlines()[0]
            assert "⚠ stale" in first, first


async def test_textuals_screenshot_command_writes_to_the_export_folder(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"  # no Downloads folder there
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(home / "Downloads"))
    exports = tmp_path / "exports"
    app = make_app(workspace, watch=False, frozen=True, export_dir=exports)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        app.deliver_screenshot()
        await wait_for(pilot, lambda: list(exports.glob("*.svg")), what="the screenshot")
    assert not (home / "Downloads").exists()


async def test_the_top_bar_says_exact_mode_is_unavailable(workspace: Path, tmp_path: Path) -> None:
    ins = Inspector(workspace, runtime=tmp_path / "no-openclaw-here")
    app = make_app(inspector=ins, watch=False, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("ctrl+e")
        top = app.query_one("#topbar", Static)
        await wait_for(
            pilot, lambda: "exact unavailable: " in str(top.render()), what=str(top.render())
        )
        assert "no `openclaw` package" in str(top.render()), str(top.render())  # and why
    ins.close()


async def test_the_markdown_export_has_no_raw_control_characters(
    workspace: Path, tmp_path: Path
) -> None:
    soul = workspace / "SOUL.md"
    soul.write_text(soul.read_text() + "\nbell \x07 and escape \x1b[31m red\n")
    exports = tmp_path / "exports"
    app = make_app(workspace, watch=False, frozen=True, export_dir=exports)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        app.action_export("md")
        await wait_for(pilot, lambda: list(exports.glob("*.md")), what="the export")
    text = next(exports.glob("*.md")).read_text()
    assert "\x1b" not in text and "\x07" not in text
    assert "bell" in text and "red" in text


async def test_the_top_bar_keeps_the_workspace_at_120_and_80_columns(workspace: Path) -> None:
    """The path ends the top bar whatever the width (cut in its middle, not off the end),
    made again when the terminal is resized."""
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.pause()
        top = app.query_one("#topbar", Static)
        for columns, rows in ((120, 40), (80, 24), (200, 50)):
            await pilot.resize_terminal(columns, rows)

            def fits(width: int = columns - 2) -> bool:
                said = str(top.render()).rstrip()
                return top.size.width == width and said.endswith("/ws") and len(said) <= width

            await wait_for(pilot, fits, what=f"the workspace ending the top bar at {columns}")


async def test_the_lost_line_ends_its_lists_with_more_at_80_and_120_columns(
    workspace: Path,
) -> None:
    from ctxscope.tui.widgets.lost_line import LostLine

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        line = app.query_one("#lostbar", LostLine)
        for columns, rows in ((80, 24), (120, 40)):
            await pilot.resize_terminal(columns, rows)

            def fitted(width: int = columns - 2) -> bool:
                said = str(line.render())
                return line.size.width == width and all(
                    len(part) <= width for part in said.split("\n")
                )

            await wait_for(pilot, fitted, what=f"the lost line fitted to {columns} columns")
            said = str(line.render())
            assert said.count("\n") == 1 and line.size.height == 2, said
            assert said.endswith("more)") and "9 sections ≈" in said, said
