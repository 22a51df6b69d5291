"""Context scripts in the app: untrusted by default, trust on confirmation, slow scripts run in
the background while the panes already show the rest."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from textual.widgets import Static

from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import load_inputs
from ctxscope.scripts import TrustStore
from ctxscope.tui.app import make_app
from ctxscope.tui.screens.trust import TrustScreen
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for

SIZE = (200, 50)


async def test_trust_confirmation_runs_the_scripts(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        spawn = app.build.report.spawn if app.build else None
        assert spawn is not None
        assert {r.status for r in spawn.scripts.results} == {"not-run"}
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="confirm")
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: (
                app.build is not None
                and app.build.report.spawn is not None
                and app.build.trusted
                and not app.scripts_running
            ),
            what="the scripts",
            timeout=30,
        )
        await pilot.press("2")
        results = {r.id: r for r in app.build.report.spawn.scripts.results}
        assert results["ticket-context"].status == "error"
        assert "exited with code 3" in (results["ticket-context"].error or "")
        assert results["house-rules"].status in ("error", "timeout")
        table = app.query_one("#scripts-table", KeyedTable)
        row = table.row("ticket-context")
        assert str(row[1]).startswith("error")
        banner = str(app.query_one("#scripts-banner", Static).render())
        assert "Trusted" in banner
        assert TrustStore().is_trusted(workspace, trust_key_of(workspace))
        # T again offers to revoke: the scripts stop running.
        number = app.build.number
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="revoke")
        assert app.screen.revoke  # type: ignore[attr-defined]
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: app.build is not None and app.build.number > number and not app.build.trusted,
            what="the untrusted rebuild",
        )
        assert {r.status for r in app.build.report.spawn.scripts.results} == {"not-run"}
    assert not TrustStore().is_trusted(workspace, trust_key_of(workspace))


async def test_declining_trust_runs_nothing(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="confirm")
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.build is not None and not app.build.trusted
    assert not TrustStore().knows(workspace)


def slow_workspace(root: Path, release: Path) -> Path:
    """A workspace whose one context script runs until the file `release` exists (at most
    25 s): the test decides when it ends, however slow the machine."""
    ws = root / "slow-ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# Agents\nBe brief.\n")
    script = ws / "slow.sh"
    script.write_text(
        f"#!/bin/sh\nfor i in $(seq 500); do [ -e '{release}' ] && break; sleep 0.05; done\n"
        "echo SLOW-CONTEXT-OK\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    config = {
        "agents": {
            "defaults": {
                "subagents": {
                    "contextScripts": {
                        "run": [{"id": "slow", "uri": "slow.sh", "position": "append", "log": True}]
                    }
                }
            }
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config))
    (ws / "ctxscope.yaml").write_text("task: Summarise the notes\n")
    TrustStore().trust(ws, trust_key_of(ws))
    return ws


def trust_key_of(ws: Path) -> str:
    """What trusting `ws` now vouches for (its config and script files)."""
    return load_inputs(ws, Snapshot()).trust_key


async def test_slow_script_shows_running_and_never_blocks(tmp_path: Path, config_dir: Path) -> None:
    release = tmp_path / "release"
    ws = slow_workspace(tmp_path, release)
    app = make_app(ws, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        # The panes are there before the script finished.
        assert app.scripts_running
        child = app.query_one("#child-view", PromptView)
        assert "context scripts running" in child.notice
        assert "[Subagent Task]\n\nSummarise the notes" in child.plain_text
        await pilot.press("2")
        rows = app.query_one("#scripts-table", KeyedTable)
        await wait_for(pilot, lambda: rows.row_count == 1, what="the scripts row")
        assert str(rows.row("slow")[1]) == "running…"
        release.touch()
        await wait_for(pilot, lambda: not app.scripts_running, what="the script", timeout=30)
        assert "SLOW-CONTEXT-OK" in child.plain_text
        assert child.notice == ""
        # The visible panel is redrawn in the frame after the panes.
        await wait_for(pilot, lambda: str(rows.row("slow")[1]).startswith("ok"), what="the outcome")
    assert os.path.exists(ws / "slow.sh")
