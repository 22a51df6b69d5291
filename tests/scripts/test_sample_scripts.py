"""The sample workspace's context scripts (its steward example among them), run for real."""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import json5
import pytest

from ctxscope.scripts import ScriptsOutcome, SpawnVariables, run_context_scripts

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"
SCRIPTS = ("inject-identity.sh", "spawn_brief.py", "ticket-context.sh", "context_server.py")


def sample_config(house_rules_url: str) -> dict[str, Any]:
    cfg: dict[str, Any] = json5.loads((SAMPLE / "openclaw.json").read_text(encoding="utf-8"))
    for entry in cfg["agents"]["defaults"]["subagents"]["contextScripts"]["run"]:
        if entry["id"] == "house-rules":
            entry["uri"] = house_rules_url
    return cfg


@pytest.fixture
def context_server() -> Iterator[str]:
    """The sample's demo endpoint, on a free port instead of 8765."""
    spec = importlib.util.spec_from_file_location(
        "context_server", SAMPLE / "scripts" / "context_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server = module.make_server("127.0.0.1", 0, quiet=True)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/context"
    finally:
        server.shutdown()
        server.server_close()


def spawn(cfg: dict[str, Any], target: str, task: str, requester: str = "main") -> ScriptsOutcome:
    variables = SpawnVariables(
        targetAgentId=target,
        task=task,
        label="pr-review",
        requesterAgentId=requester,
        requesterSessionKey=f"agent:{requester}:main",
        cleanup=None,
        cfg=cfg,
    )
    return run_context_scripts(
        cfg,
        SAMPLE,
        requester,
        variables,
        trusted=True,
        configured_agents={"main", "coder"},
        config_path=str(SAMPLE / "openclaw.json"),
    )


def test_sample_scripts_are_executable() -> None:
    for name in SCRIPTS:
        assert os.access(SAMPLE / "scripts" / name, os.X_OK), name


def test_steward_alias_resolves_to_main_and_gets_its_charter(context_server: str) -> None:
    outcome = spawn(sample_config(context_server), "steward", "Review the architecture")
    by_id = {r.id: r for r in outcome.results}
    assert [r.id for r in outcome.results] == [
        "inject-identity",
        "spawn-brief",
        "house-rules",
        "ticket-context",
    ]
    assert [r.priority for r in outcome.results] == [100, 50, 10, -10]
    assert by_id["inject-identity"].status == "ok"
    charter = (SAMPLE / "agents" / "steward" / "charter.md").read_text().strip()
    assert outcome.prepend == charter
    task = outcome.apply_to_task("Review the architecture")
    assert task.startswith(charter + "\n\nReview the architecture\n\n## Spawn brief")
    # The override conflict: identity (100) → main beats spawn-brief (50) → coder, and the
    # server's "reviewer" is rejected.
    assert [(c.script_id, c.agent_id, c.valid) for c in outcome.candidates] == [
        ("inject-identity", "main", True),
        ("spawn-brief", "coder", True),
        ("house-rules", "reviewer", False),
    ]
    assert outcome.target_override == "main"
    assert outcome.log_lines[-1] == (
        "[context-script] agentIdOverride candidates: [inject-identity→main (pri:100 ✓), "
        "spawn-brief→coder (pri:50 ✓), house-rules→reviewer (pri:10 ✗)] → winner: "
        "inject-identity→main"
    )
    # The script that fails on purpose does not stop the others.
    assert by_id["ticket-context"].status == "error"
    assert by_id["ticket-context"].error == (
        "Script exited with code 3: ticket tracker is offline (this sample script fails on purpose)"
    )
    assert "## House rules" in outcome.append


def test_registered_target_gets_no_identity_and_is_routed_by_the_brief(
    context_server: str,
) -> None:
    outcome = spawn(sample_config(context_server), "coder", "Review the open pull request")
    assert outcome.results[0].status == "empty"  # identity script: a silent no-op
    assert outcome.prepend == ""
    assert outcome.winner is not None
    assert (outcome.winner.script_id, outcome.winner.agent_id) == ("spawn-brief", "coder")


def test_without_the_demo_server_the_url_script_fails_clearly(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/context"
    outcome = spawn(sample_config(url), "steward", "Review the architecture")
    rules = next(r for r in outcome.results if r.id == "house-rules")
    assert rules.status == "error"
    assert (rules.error or "").startswith(f"Cannot connect to {url}: ")
    assert outcome.target_override == "main"
    assert outcome.prepend.startswith("## Charter")


def test_coder_as_requester_ignores_house_rules_and_has_no_brief(context_server: str) -> None:
    outcome = spawn(sample_config(context_server), "steward", "Look around", requester="coder")
    assert [r.id for r in outcome.results] == ["inject-identity", "ticket-context"]
