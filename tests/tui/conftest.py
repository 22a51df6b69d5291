"""Fixtures for the app tests: a private copy of the sample workspace, an isolated user
config folder, and a helper that waits for the app to reach a state."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot

from ctxscope.api import Inspector
from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.build import Builder
from ctxscope.tui.commands import PANELS
from ctxscope.tui.widgets.prompt_view import PromptView
from tests.conftest import SAMPLE


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-config"
    folder.mkdir()
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def workspace(tmp_path: Path, config_dir: Path) -> Path:
    """A copy of `sample_workspace` the test may edit."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    return ws


@pytest.fixture
def export_dir(tmp_path: Path) -> Path:
    return tmp_path / "exports"


def started_app(workspace: Path) -> CtxscopeApp:
    """The app as `ctxscope WORKSPACE` starts it: its first build begun before the interface
    loads (`Builder.start`), so that the first frame shows it."""
    builder = Builder(Inspector(workspace))
    builder.start()
    return make_app(builder=builder, watch=False)


async def wait_for(
    pilot: Pilot[None],
    predicate: Callable[[], object],
    timeout: float = 15.0,
    what: str = "condition",
) -> None:
    """Let the app run until `predicate()` is true (fails after `timeout` seconds)."""
    steps = int(timeout / 0.05)
    for _ in range(steps):
        if predicate():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def watcher_ready(pilot: Pilot[None], app: CtxscopeApp, folder: Path) -> None:
    """Until the app's file watcher over `folder` is set up (`WatchReady`): an edit made
    before that is not reported."""
    feed = app.builder.inspector.snapshot.changes
    await wait_for(pilot, lambda: feed.quiet(folder, feed.now()), what="the ready watcher")


async def settled(pilot: Pilot[None], app: CtxscopeApp, timeout: float = 15.0) -> None:
    """Let the app run until nothing it has planned lays the screen out again: the build
    shown and its Rye check applied, no hidden panel waiting to be filled, no widget with a
    layout pending, and then a pause (until idle) that lays nothing out. A test that checks
    that a key does not lay the screen out starts from here: a fill or a widget's late
    layout would otherwise land in the key's frame. Fails after `timeout` seconds."""

    def calm() -> bool:
        build, screen = app.build, app.screen
        return (
            build is not None
            and not build.check_pending
            and all(app.panel_ready(name) for name in PANELS)
            and all(view._whole for view in app.query(PromptView))
            and app._prefill_timer is None
            and not screen._layout_required
            and not any(w._layout_required for w in screen.walk_children())
        )

    for _ in range(int(timeout / 0.05)):
        if not calm():
            await pilot.pause(0.05)
            continue
        with screen_layouts(app) as layouts:
            await pilot.pause()
        if not layouts and calm():
            return
    raise AssertionError("timed out waiting for the app to settle")


@contextmanager
def screen_layouts(app: App[None]) -> Iterator[list[object]]:
    """Count the times the screen is laid out in full while the block runs. A scroll only
    reflows the widgets it exposes and is not counted (it may land after any pause)."""
    compositor = app.screen._compositor
    reflow = compositor.reflow
    layouts: list[object] = []

    def counting(*args: object, **kwargs: object) -> object:
        layouts.append(args)
        return reflow(*args, **kwargs)  # type: ignore[arg-type]

    compositor.reflow = counting  # type: ignore[method-assign]
    try:
        yield layouts
    finally:
        compositor.reflow = reflow  # type: ignore[method-assign]


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` with its sha256 (and every folder), for byte-identity checks."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "link:" + str(path.readlink())
        elif path.is_dir():
            out[rel] = "dir"
        elif not path.is_file():
            out[rel] = "special"  # a FIFO or socket: opening it could block
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out
