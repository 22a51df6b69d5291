"""An agent id that is not in `agents.list` is called unknown, on the CLI and in the app."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxscope.cli import main
from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.info_panels import PolicyPanel
from ctxscope.tui.widgets.pane import PromptPane
from tests.conftest import SAMPLE
from tests.tui.conftest import wait_for


def _spawn(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["spawn", str(SAMPLE), *args])
    return capsys.readouterr().out


@pytest.mark.parametrize("profile", ["openclaw-2026.2", "openclaw-2026.9"])
def test_an_unknown_target_is_called_unknown(
    capsys: pytest.CaptureFixture[str], profile: str
) -> None:
    out = _spawn(capsys, "--target", "ghost", "--profile", profile)
    check = next(line for line in out.splitlines() if "allow_agents" in line)
    assert "ghost is unknown (configured agents: main, coder)" in check
    assert "target ghost is unknown" in out and "agents.defaults" in out


def test_an_unknown_requester_is_called_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    out = _spawn(capsys, "--requester", "ghost")
    check = next(line for line in out.splitlines() if "allow_agents" in line)
    assert "not listed in no allowAgents" not in check
    assert "coder is not listed by ghost, which has no subagents.allowAgents" in check
    assert "ghost is unknown (configured agents: main, coder)" in check
    assert "requester ghost is unknown" in out


def test_a_configured_target_is_not_called_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert "unknown" not in _spawn(capsys, "--target", "coder")


async def test_the_app_calls_an_unknown_target_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    workspace = tmp_path / "ws"
    shutil.copytree(SAMPLE, workspace, symlinks=True)
    app = make_app(workspace, watch=False, frozen=True, overrides={"target": "ghost"})
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.pause()
        header = str(app.query_one("#child", PromptPane).header.render()).splitlines()[0]
        assert header.startswith(" SUBAGENT  ✗ spawn forbidden ? unknown agent agent:"), header
        assert "main → ghost (unknown)" in str(app.query_one("#topbar").render())
        await pilot.press("4")
        await pilot.pause()
        policy = app.query_one(PolicyPanel)
        assert "ghost is unknown" in policy.plain
