"""The spawn simulation: policy, the override driving everything after it,
model and thinking rungs, trust, and the spawn JSON object."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.scripts import TrustStore
from tests.conftest import WorkspaceFactory, pinned

from .conftest import SAMPLE


@pytest.fixture
def make_workspace(make_workspace: WorkspaceFactory) -> WorkspaceFactory:
    """These tests pin OpenClaw 2026.2.19's rules (2026.9's are in test_openclaw_2026_9)."""
    return pinned(make_workspace, "openclaw-2026.2")


OVERRIDE_SCRIPT = """#!/bin/sh
cat <<'JSON'
{"message": "## Charter\\nYou are the steward.", "targetAgentId": "coder"}
JSON
"""


def spawn_ws(make_workspace, *, defaults_sub=None, main_sub=None, coder=None, scripts=True):
    sub = dict(defaults_sub or {})
    if scripts:
        sub["contextScripts"] = {
            "run": [
                {
                    "id": "ident",
                    "uri": "scripts/ident.sh",
                    "priority": 100,
                    "position": "prepend",
                    "returnKey": "message",
                    "agentIdOverrideKey": "targetAgentId",
                    "log": True,
                    "argMap": {"targetAgentId": "targetAgentId"},
                }
            ]
        }
    config = {
        "agents": {
            "defaults": {"subagents": sub, "model": {"primary": "p/default"}},
            "list": [
                {"id": "main", "subagents": main_sub or {}},
                coder or {"id": "coder", "workspace": "./coder"},
            ],
        }
    }
    ws = make_workspace(
        {"AGENTS.md": "main agents", "coder/AGENTS.md": "coder agents"}, config=config
    )
    if scripts:
        script = ws / "scripts" / "ident.sh"
        script.parent.mkdir()
        script.write_text(OVERRIDE_SCRIPT)
        script.chmod(0o755)
    return ws


def test_depth_forbidden_exact_text(make_workspace):
    ws = spawn_ws(make_workspace, scripts=False)
    rep = Inspector(ws, scenario={"depth": 1, "task": "t"}).spawn()
    assert not rep.policy.allowed
    assert rep.policy.error == (
        "sessions_spawn is not allowed at this depth (current depth: 1, max: 1)"
    )
    assert rep.child is not None  # still shown, as what the child would get


def test_children_forbidden_exact_text(make_workspace):
    ws = spawn_ws(make_workspace, defaults_sub={"maxChildrenPerAgent": 2}, scripts=False)
    rep = Inspector(ws, scenario={"active_children": 2}).spawn()
    assert rep.policy.error == (
        "sessions_spawn has reached max active children for this session (2/2)"
    )
    assert [c.name for c in rep.policy.checks if not c.ok] == ["children"]


def test_cross_agent_allowlist(make_workspace):
    ws = spawn_ws(make_workspace, scripts=False)
    rep = Inspector(ws, scenario={"target": "coder"}).spawn()
    assert rep.policy.error == "agentId is not allowed for sessions_spawn (allowed: none)"
    ws2 = spawn_ws(make_workspace, main_sub={"allowAgents": ["ops", "qa"]}, scripts=False)
    rep2 = Inspector(ws2, scenario={"target": "coder"}).spawn()
    assert rep2.policy.error == "agentId is not allowed for sessions_spawn (allowed: ops, qa)"
    # 2026.2 reads only the requester's own list, never agents.defaults.subagents.
    ws3 = spawn_ws(make_workspace, defaults_sub={"allowAgents": ["*"]}, scripts=False)
    assert not Inspector(ws3, scenario={"target": "coder"}).spawn().policy.allowed
    ws4 = spawn_ws(make_workspace, main_sub={"allowAgents": ["qa", "ops"]}, scripts=False)
    rep4 = Inspector(ws4, scenario={"target": "coder"}).spawn()
    assert rep4.policy.error == "agentId is not allowed for sessions_spawn (allowed: qa, ops)"
    # Same agent: no allowlist needed.
    assert Inspector(ws, scenario={"target": "main"}).spawn().policy.allowed


def test_requester_allowlist_wins_over_defaults(make_workspace):
    ws = spawn_ws(
        make_workspace,
        defaults_sub={"allowAgents": ["*"]},
        main_sub={"allowAgents": ["qa"]},
        scripts=False,
    )
    rep = Inspector(ws, scenario={"target": "coder"}).spawn()
    assert not rep.policy.allowed
    assert "agents.list[main].subagents.allowAgents" in rep.policy.checks[-1].detail


def test_model_and_thinking_rungs(make_workspace):
    coder = {"id": "coder", "model": "c/own", "subagents": {"model": "c/sub", "thinking": "high"}}
    ws = spawn_ws(
        make_workspace,
        defaults_sub={"model": "d/sub", "thinking": "low", "allowAgents": ["*"]},
        coder=coder,
        scripts=False,
    )
    rep = Inspector(ws, scenario={"target": "coder"}).spawn()
    assert (rep.model.value, rep.model.source) == ("c/sub", "agents.list[coder].subagents.model")
    assert rep.thinking.to_dict() == {
        "value": "high",
        "source": "agents.list[coder].subagents.thinking",
    }
    rep = Inspector(ws, scenario={"target": "coder", "model": "x/spawn", "thinking": "off"}).spawn()
    assert rep.model.source == "spawn model parameter" and rep.model.value == "x/spawn"
    assert rep.thinking.source == "spawn thinking parameter"
    rep = Inspector(ws, scenario={"target": "main"}).spawn()
    assert (rep.model.value, rep.model.source) == ("d/sub", "agents.defaults.subagents.model")
    ws2 = spawn_ws(make_workspace, scripts=False)
    rep2 = Inspector(ws2).spawn()
    assert rep2.model.source == "agents.defaults.model.primary"
    assert rep2.thinking.value is None
    assert rep2.child.model == "p/default"


def test_untrusted_scripts_are_listed_not_run(make_workspace, tmp_path):
    ws = spawn_ws(make_workspace)
    rep = Inspector(ws, scenario={"task": "Review", "target": "steward"}).spawn()
    assert not rep.trusted
    assert [(r.id, r.status) for r in rep.scripts.results] == [("ident", "not-run")]
    assert rep.scripts.results[0].summary == "not run (untrusted workspace)"
    assert rep.target_agent_id == "steward"
    assert rep.child.task_message.endswith("[Subagent Task]: Review")


def test_override_drives_target_workspace_model_and_key(make_workspace):
    coder = {"id": "coder", "workspace": "./coder", "model": "c/own"}
    ws = spawn_ws(make_workspace, main_sub={"allowAgents": ["coder"]}, coder=coder)
    rep = Inspector(
        ws,
        trusted=True,
        scenario={"task": "Review the architecture", "target": "steward", "child_id": "fixed"},
    ).spawn()
    assert rep.scripts.results[0].status == "ok"
    assert rep.scripts.winner.agent_id == "coder"
    assert rep.requested_target == "steward" and rep.target_agent_id == "coder"
    assert rep.child_session_key == "agent:coder:subagent:fixed"
    assert rep.child.session_key == "agent:coder:subagent:fixed"
    assert rep.child.agent_id == "coder"
    assert rep.child.workspace == str(ws / "coder")
    assert "coder agents" in rep.child.system_prompt
    assert rep.model.value == "c/own"
    assert rep.policy.allowed  # allowAgents is checked against the final target
    assert rep.child.task_message.endswith(
        "[Subagent Task]: ## Charter\nYou are the steward.\n\nReview the architecture"
    )
    assert rep.scripts.log_lines == ["[context-script] ident (scripts/ident.sh) → 31 chars"]


def test_remembered_trust_runs_scripts_until_the_config_changes(make_workspace):
    ws = spawn_ws(make_workspace)
    insp = Inspector(ws, scenario={"target": "steward"})
    TrustStore().trust(insp.workspace, insp.inputs.trust_key)
    assert Inspector(ws, scenario={"target": "steward"}).spawn().trusted
    cfg = ws / "openclaw.json"
    cfg.write_text(cfg.read_text().replace("p/default", "p/changed"))
    assert not Inspector(ws, scenario={"target": "steward"}).spawn().trusted


def test_spawn_json_has_exactly_the_spec_fields(tmp_path: Path):
    sample = tmp_path / "sample"
    shutil.copytree(SAMPLE, sample, symlinks=True)
    env = dict(os.environ)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxscope",
            "spawn",
            str(sample),
            "--task",
            "Review the architecture",
            "--target",
            "coder",
            "--label",
            "review",
            "--trust",
            "--format",
            "json",
            "--child-id",
            "x",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {
        "requester",
        "child",
        "policy",
        "scripts",
        "override",
        "target_agent_id",
        "model",
        "thinking",
    }
    assert set(data["policy"]) == {"allowed", "error", "checks"}
    assert set(data["override"]) == {"candidates", "winner"}
    assert set(data["model"]) == {"value", "source"}
    for item in data["scripts"]:
        assert set(item) == {
            "id",
            "uri",
            "priority",
            "position",
            "status",
            "chars",
            "duration_ms",
            "output",
            "error",
            "override",
        }
    ids = [s["id"] for s in data["scripts"]]
    assert ids == ["inject-identity", "spawn-brief", "house-rules", "ticket-context"]
    by_id = {s["id"]: s for s in data["scripts"]}
    assert by_id["ticket-context"]["status"] == "error"
    assert by_id["ticket-context"]["error"].startswith("Script exited with code 3")
    assert data["child"]["session_key"] == "agent:coder:subagent:x"
    assert data["target_agent_id"] == "coder"


def test_spawn_text_shows_verdict_scripts_and_both_prompts(tmp_path: Path):
    sample = tmp_path / "sample"
    shutil.copytree(SAMPLE, sample, symlinks=True)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxscope",
            "spawn",
            str(sample),
            "--task",
            "Review",
            "--target",
            "steward",
            "--trust",
            "--child-id",
            "x",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "verdict: ALLOWED" in text
    assert "1. inject-identity  (scripts/inject-identity.sh)  priority 100 · prepend · ok" in text
    assert "     │ ## Charter: the High Steward" in text
    assert "     log: [context-script] inject-identity (scripts/inject-identity.sh) → " in text
    assert "     Script exited with code 3: " in text
    assert "[context-script] agentIdOverride candidates:" in text
    assert "target agent   main (overridden from steward)" in text
    assert "REQUESTER" in text and "CHILD" in text
    assert "[Subagent Task]: " in text


def test_build_without_running_uses_cached_results_then_pending(make_workspace):
    ws = spawn_ws(make_workspace, main_sub={"allowAgents": ["coder"]})
    insp = Inspector(ws, trusted=True, scenario={"target": "steward", "child_id": "k"})
    first = insp.spawn(run_scripts=False)
    assert [r.status for r in first.scripts.results] == ["pending"]
    assert first.scripts_pending and first.target_agent_id == "steward"
    assert first.scripts.results[0].summary == "pending (not run yet)"
    ran = insp.run_scripts()
    assert [r.status for r in ran.results] == ["ok"]
    second = insp.spawn(run_scripts=False)
    assert not second.scripts_pending
    assert second.scripts.results[0].cached
    assert second.target_agent_id == "coder"
    assert "## Charter" in second.child.task_message
