"""The Sandbox section under `agents.defaults.sandbox.mode: non-main`: the agent's main
session runs unsandboxed; its subagent gets the runtime's sandbox lines with the folder the
sandbox mounts. The sizes are what OpenClaw 2026.9.6's own prompt builder wrote for the
sandbox context its runner builds by default (container workdir `/workspace`, workspace
access `none`, host browser control blocked), with the state folder `/srv/state`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector


def report(tmp_path: Path, sandbox: dict[str, Any]) -> Any:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# AGENTS\n")
    config = {"agents": {"defaults": {"sandbox": sandbox}}}
    (ws / "openclaw.json").write_text(json.dumps(config))
    (ws / "ctxscope.yaml").write_text("profile: openclaw-2026.9\ntask: check\n")
    return Inspector(ws).report(run_scripts=False)


@pytest.mark.parametrize(
    ("sandbox", "chars"),
    [
        # /srv/state/sandboxes/workspace-<32 hex>: one folder per agent and workspace.
        ({"mode": "non-main"}, 414),
        # One folder shared by every sandboxed session: the sandboxes folder itself.
        ({"mode": "non-main", "scope": "shared"}, 371),
    ],
)
def test_a_subagent_under_non_main_gets_the_runtimes_sandbox_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: dict[str, Any], chars: int
) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", "/srv/state")
    built = report(tmp_path, sandbox)
    assert built.requester.section("sandbox") is None
    assert "main session runs unsandboxed" in built.requester.absent_sections["sandbox"]
    assert built.child is not None
    section = built.child.section("sandbox")
    assert section is not None and section.chars == chars
    assert "/srv/state/sandboxes" in section.rule
