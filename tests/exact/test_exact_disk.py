"""Exact mode writes nothing on the user's disk: the runner creates a session's workspace
folder when it is missing, so such a session is not asked of it (real 2026.9.6 helper)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.exact import ExactMode


def test_a_missing_agent_workspace_is_not_created(
    tmp_path: Path, kept_exact: Callable[[Path], ExactMode], openclaw_package: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# AGENTS\n")
    missing = tmp_path / "coder-ws"
    config = {
        "agents": {
            "defaults": {"skipBootstrap": True},
            "list": [{"id": "main", "default": True}, {"id": "coder", "workspace": str(missing)}],
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config))
    (ws / "ctxscope.yaml").write_text("target: coder\n")
    ins = Inspector(ws)
    ins.exact = kept_exact(openclaw_package)  # one runtime for the suite
    ins.exact_on = True
    ins.reload()
    report = ins.report(run_scripts=False)
    assert not missing.exists()
    assert report.requester.exact.startswith("OpenClaw 2026.9.6")
    child = report.child
    assert child is not None and child.exact == ""
    [note] = [d for d in child.diagnostics if d.code == "exact-unavailable"]
    assert f"its workspace {missing} does not exist" in note.message
    assert "would create it" in note.message
