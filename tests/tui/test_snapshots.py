"""Snapshot tests: fixed terminal sizes, watchers off, child id and clock frozen.

The workspace is copied to a fixed path so the absolute paths in the prompts are stable.
Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update` after an intended
change, and look at the SVGs before committing them.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.tables import KeyedTable
from tests.conftest import SAMPLE
from tests.tui.conftest import settled, wait_for

# A fixed absolute path, whatever TMPDIR says: the prompts show absolute paths, and the
# snapshots must not depend on where the machine keeps its temporary files.
FIXED = Path("/tmp/ctxscope-snapshots/ws")


@pytest.fixture
def fixed_workspace(config_dir: Path) -> Iterator[Path]:
    """The sample at FIXED, held for the test alone: another test run on the same machine
    (a second checkout) waits for it instead of replacing the folder under it."""
    FIXED.parent.mkdir(parents=True, exist_ok=True)
    with open(FIXED.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if FIXED.exists():
            shutil.rmtree(FIXED)
        shutil.copytree(SAMPLE, FIXED, symlinks=True)
        yield FIXED


def app_for(workspace: Path, **options):  # type: ignore[no-untyped-def]
    return make_app(workspace, watch=False, frozen=True, **options)


async def _ready(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    await wait_for(pilot, lambda: app.build is not None, what="the first build")
    await wait_for(pilot, lambda: app.panel_ready("files"), what="the panels")
    table = app.query_one("#files-table", KeyedTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="the files table")
    await _settle(pilot)


async def _settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Until nothing the app has planned changes the screen (the Rye check applied, hidden
    panels filled, no layout pending), however slow the machine, then animations done."""
    await settled(pilot, pilot.app)
    await pilot.wait_for_scheduled_animations()
    await settled(pilot, pilot.app)


def test_startup_200x50(fixed_workspace: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(fixed_workspace), terminal_size=(200, 50), run_before=_ready)


def test_startup_100x30(fixed_workspace: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_for(fixed_workspace), terminal_size=(100, 30), run_before=_ready)


def test_diff_mode_and_budgets(fixed_workspace: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        await pilot.press("d", "5")
        view = pilot.app.query_one("#main-view")
        view.scroll_to(y=view.line_of("file:AGENTS.md"), animate=False, immediate=True)
        await _settle(pilot)

    assert snap_compare(app_for(fixed_workspace), terminal_size=(200, 50), run_before=before)


def test_light_theme_chain_panel(fixed_workspace: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        await pilot.press("6")
        await _settle(pilot)

    app = app_for(fixed_workspace, theme="ctxscope-light")
    assert snap_compare(app, terminal_size=(200, 50), run_before=before)


def test_broken_config_error_bar(fixed_workspace: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        config = fixed_workspace / "openclaw.json"
        config.write_text(config.read_text().replace("contextTokens: 200000,", "contextTokens: ,"))
        app = pilot.app
        app.rebuild()
        await wait_for(pilot, lambda: app.build_error is not None, what="the error")
        await wait_for(pilot, lambda: not app.build.check_pending, what="the kept build's check")
        await pilot.press("7")
        await _settle(pilot)

    assert snap_compare(app_for(fixed_workspace), terminal_size=(120, 36), run_before=before)


SIZES_THEMES = pytest.mark.parametrize(
    ("size", "theme"),
    [
        ((200, 50), "ctxscope-dark"),
        ((200, 50), "ctxscope-light"),
        ((80, 24), "ctxscope-dark"),
        ((80, 24), "ctxscope-light"),
    ],
    ids=["200x50-dark", "200x50-light", "80x24-dark", "80x24-light"],
)


@SIZES_THEMES
def test_help_screen(fixed_workspace: Path, snap_compare, size, theme) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        await pilot.press("question_mark")
        await _settle(pilot)

    assert snap_compare(
        app_for(fixed_workspace, theme=theme), terminal_size=size, run_before=before
    )


@SIZES_THEMES
def test_delta_strip_after_an_edit(fixed_workspace: Path, snap_compare, size, theme) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        soul = fixed_workspace / "SOUL.md"
        soul.write_text(soul.read_text() + "\nMore persona text for the delta strip.\n")
        app = pilot.app
        app.rebuild()
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 2, what="#2")
        await _settle(pilot)

    assert snap_compare(
        app_for(fixed_workspace, theme=theme), terminal_size=size, run_before=before
    )


@SIZES_THEMES
def test_context_map(fixed_workspace: Path, snap_compare, size, theme) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        await pilot.press("8")
        if size[1] < 30:
            await pilot.press("m")  # a small terminal: the panels take the screen
        await _settle(pilot)

    assert snap_compare(
        app_for(fixed_workspace, theme=theme), terminal_size=size, run_before=before
    )


def test_tools_panel(fixed_workspace: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        await pilot.press("0")
        table = pilot.app.query_one("#tools-table", KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the tools table")
        await _settle(pilot)

    assert snap_compare(app_for(fixed_workspace), terminal_size=(200, 50), run_before=before)
