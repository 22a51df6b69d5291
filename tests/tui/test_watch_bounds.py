"""Watching is bounded: a workspace at `/` (or the home folder, or a link to either) is
watched without its subfolders, and past `MAX_FOLDERS` folders a folder is watched without
its subfolders too; Problems and the status line say so. The app draws and `q` quits while
the watcher sets up, however big the tree."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from textual.widgets import Static

from ctxscope.api import Inspector
from ctxscope.tui import watch
from ctxscope.tui.app import make_app
from ctxscope.tui.build import Builder
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from tests.conftest import WorkspaceFactory
from tests.tui.conftest import wait_for, watcher_ready
from tests.tui.test_terminal import Terminal


def _broad_config(**extra: object) -> dict[str, object]:
    return {
        "agents": {
            "list": [
                {"id": "main", "default": True, "subagents": {"allowAgents": ["rooted"]}},
                {"id": "rooted", "workspace": "/"},
                *[{"id": name, "workspace": str(path)} for name, path in extra.items()],
            ],
            "defaults": {"subagents": {"contextScripts": {"run": [{"id": "s", "uri": "/x.sh"}]}}},
        }
    }


def test_folders_at_the_root_or_home_are_watched_without_their_subfolders(
    make_workspace: WorkspaceFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "projects").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "to-root").symlink_to("/")
    ws = make_workspace(
        {"AGENTS.md": "a"},
        config=_broad_config(
            homed=home,  # the home folder itself
            above=home / "projects" / ".." / "..",  # a folder that holds it, spelt with ..
            linked=tmp_path / "to-root",  # a link to /
            fine=home / "projects",  # below the home folder: watched whole
        ),
    )
    build = Builder(Inspector(ws)).build()
    assert build is not None
    tops = {os.path.realpath(p) for p in build.watch_tops}
    assert tops == {"/", str(home), str(tmp_path)}
    assert ws in build.watch_paths and home / "projects" in build.watch_paths
    for folder in build.watch_paths:  # nothing watched whole holds a broad folder
        assert not any(Path(t).is_relative_to(folder) for t in tops)


def test_count_folders_stops_at_its_limit_and_follows_links_once(tmp_path: Path) -> None:
    for n in range(5):
        (tmp_path / "tree" / f"d{n}" / "sub").mkdir(parents=True)
    (tmp_path / "tree" / "loop").symlink_to(tmp_path / "tree")  # followed once, not forever
    stop = threading.Event()
    assert watch.count_folders(tmp_path / "tree", 100, stop) == 11
    assert watch.count_folders(tmp_path / "tree", 10, stop) is None
    (tmp_path / "tree" / "root").symlink_to("/")
    assert watch.count_folders(tmp_path / "tree", 1000, stop) is None  # / is behind it


async def test_past_the_folder_bound_problems_and_status_say_so_and_edits_still_show(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "MAX_FOLDERS", 2)  # the sample has more folders than that
    app = make_app(workspace, watch=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.watch_bounds, what="the watcher's bounds")
        await wait_for(
            pilot,
            lambda: "watching bounded" in str(app.query_one("#statusbar", Static).render()),
            what="the status line",
        )
        await pilot.press("7")
        panel = app.query_one(ProblemsPanel)
        await wait_for(pilot, lambda: "more than 2 folders" in panel.plain, what="Problems")
        assert str(workspace) in panel.plain
        soul = workspace / "SOUL.md"  # the top level is still watched
        soul.write_text(soul.read_text() + "\nBOUNDED-7 is the motto.\n")
        main = app.query_one("#main-view")
        await wait_for(pilot, lambda: "BOUNDED-7" in main.plain_text, what="the edit")  # type: ignore[attr-defined]


@pytest.mark.terminal
def test_an_agent_workspace_at_the_root_draws_and_q_quits(
    make_workspace: WorkspaceFactory,
) -> None:
    ws = make_workspace({"AGENTS.md": "agents here"}, config=_broad_config())
    (ws / "everything").symlink_to("/")  # the workspace itself leads to the whole disk
    term = Terminal("tui", str(ws))  # the watcher on
    try:
        assert term.read_until(b"MAIN", 60), "no first screen"
        assert term.read_until(b"watching bounded", 60), "the bound is not reported"
        term.press("q")
        assert term.wait(30) == 0, "q did not quit"
    finally:
        term.close()


@pytest.mark.parametrize(
    "config",
    [
        {
            "agents": {
                "defaults": {
                    "subagents": {"contextScripts": {"run": [{"id": "s", "uri": "/x.sh"}]}}
                }
            }
        },
        {"agents": {"list": [{"id": "main", "default": True}, {"id": "rooted", "workspace": "/"}]}},
    ],
    ids=["script-at-the-root", "agent-workspace-at-the-root"],
)
async def test_a_folder_at_the_root_leaves_the_workspace_live(
    make_workspace: WorkspaceFactory, config: dict[str, object]
) -> None:
    """A context script at `/x.sh` (untrusted) or an agent whose workspace is `/` puts the root
    among the folders a build reads: the root is watched without its subfolders, the status
    line says so, and an edit of the workspace still shows."""
    ws = make_workspace({"AGENTS.md": "agents here"}, config=config)
    app = make_app(ws, watch=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.watch_bounds, what="the watcher's bounds")
        status = app.query_one("#statusbar", Static)
        await wait_for(pilot, lambda: "watching bounded" in str(status.render()), what="status")
        assert [d.path for d in app.watch_bounds] == ["/"]  # only the root, not the workspace
        await watcher_ready(pilot, app, ws)  # the bounds are said before the watch is set up
        (ws / "AGENTS.md").write_text("agents here, ROOTED-EDIT-1 now\n")
        main = app.query_one("#main-view")
        await wait_for(pilot, lambda: "ROOTED-EDIT-1" in main.plain_text, what="the edit")  # type: ignore[attr-defined]
