"""Positions, error handling, log lines and override candidates across several scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxscope.scripts import apply_to_task

from .helpers import config_with, json_script, run_cfg, write_script


def echo(tmp_path: Path, name: str, text: str) -> str:
    write_script(tmp_path, f"{name}.sh", f"echo '{text}'")
    return f"{name}.sh"


def test_prepend_and_append_join_with_a_blank_line_in_priority_order(tmp_path: Path) -> None:
    cfg = config_with(
        [
            {"id": "p-low", "uri": echo(tmp_path, "a", "P2"), "position": "prepend", "priority": 1},
            {"id": "app", "uri": echo(tmp_path, "b", "A1")},
            {
                "id": "p-high",
                "uri": echo(tmp_path, "c", "P1"),
                "position": "prepend",
                "priority": 9,
            },
            {"id": "app2", "uri": echo(tmp_path, "d", "A2"), "position": "append", "priority": -3},
        ]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert [r.id for r in outcome.results] == ["p-high", "p-low", "app", "app2"]
    assert outcome.prepend == "P1\n\nP2"
    assert outcome.append == "A1\n\nA2"
    assert outcome.apply_to_task("TASK") == "P1\n\nP2\n\nTASK\n\nA1\n\nA2"


@pytest.mark.parametrize(
    ("prepend", "append", "expected"),
    [("", "", "T"), ("P", "", "P\n\nT"), ("", "A", "T\n\nA"), ("P", "A", "P\n\nT\n\nA")],
)
def test_apply_to_task_omits_empty_parts(prepend: str, append: str, expected: str) -> None:
    assert apply_to_task("T", prepend, append) == expected


def test_error_handling_continue_runs_the_rest(tmp_path: Path) -> None:
    write_script(tmp_path, "fail.sh", "exit 3")
    cfg = config_with(
        [
            {"id": "first", "uri": echo(tmp_path, "a", "one"), "priority": 3},
            {"id": "broken", "uri": "fail.sh", "priority": 2, "errorHandling": "continue"},
            {"id": "last", "uri": echo(tmp_path, "b", "two"), "priority": 1},
        ]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert [r.status for r in outcome.results] == ["ok", "error", "ok"]
    assert outcome.append == "one\n\ntwo"
    assert outcome.stopped_by is None
    assert outcome.log_lines == ["[context-script] broken failed: Script exited with code 3"]


def test_error_handling_stop_keeps_earlier_content_and_skips_the_rest(tmp_path: Path) -> None:
    marker = tmp_path / "later-ran"
    write_script(tmp_path, "fail.sh", "echo nope >&2; exit 1")
    write_script(tmp_path, "later.sh", f"touch {marker}; echo later")
    cfg = config_with(
        [
            {
                "id": "first",
                "uri": echo(tmp_path, "a", "kept"),
                "priority": 3,
                "position": "prepend",
            },
            {"id": "gate", "uri": "fail.sh", "priority": 2, "errorHandling": "stop"},
            {"id": "later", "uri": "later.sh", "priority": 1},
        ]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert [r.status for r in outcome.results] == ["ok", "error", "skipped"]
    assert outcome.stopped_by == "gate"
    assert outcome.prepend == "kept"
    assert not marker.exists()


def test_stop_on_timeout_too(tmp_path: Path) -> None:
    write_script(tmp_path, "hang.sh", "exec sleep 60")
    cfg = config_with(
        [
            {
                "id": "gate",
                "uri": "hang.sh",
                "timeoutMs": 200,
                "errorHandling": "stop",
                "priority": 1,
            },
            {"id": "later", "uri": echo(tmp_path, "a", "x")},
        ]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert [r.status for r in outcome.results] == ["timeout", "skipped"]


def test_a_failing_empty_script_with_stop_does_not_stop(tmp_path: Path) -> None:
    write_script(tmp_path, "quiet.sh", "exit 0")
    cfg = config_with(
        [
            {"id": "q", "uri": "quiet.sh", "errorHandling": "stop", "priority": 1},
            {"id": "later", "uri": echo(tmp_path, "a", "x")},
        ]
    )
    assert [r.status for r in run_cfg(cfg, tmp_path).results] == ["empty", "ok"]


# --- logging ------------------------------------------------------------------------------


def test_log_false_is_silent(tmp_path: Path) -> None:
    cfg = config_with([{"id": "s", "uri": echo(tmp_path, "a", "hello"), "log": False}])
    assert run_cfg(cfg, tmp_path).log_lines == []


def test_log_true_prints_the_summary_with_the_uri_as_configured(tmp_path: Path) -> None:
    cfg = config_with([{"id": "my-script", "uri": echo(tmp_path, "a", "hello"), "log": True}])
    assert run_cfg(cfg, tmp_path).log_lines == ["[context-script] my-script (a.sh) → 5 chars"]


def test_log_true_on_empty_output(tmp_path: Path) -> None:
    write_script(tmp_path, "q.sh", "true")
    cfg = config_with([{"id": "q", "uri": "q.sh", "log": True}])
    assert run_cfg(cfg, tmp_path).log_lines == ["[context-script] q (q.sh) → 0 chars"]


def test_log_verbose_lines(tmp_path: Path) -> None:
    json_script(tmp_path, "v.sh", {"message": "## Charter\nBe kind.", "agent": "main"})
    entry = {
        "id": "v",
        "uri": "v.sh",
        "log": "verbose",
        "agentIdOverrideKey": "agent",
        "argMap": {"targetAgentId": "targetAgentId", "tag": "label"},
    }
    outcome = run_cfg(config_with([entry]), tmp_path, label=None)
    assert outcome.log_lines == [
        "[context-script] v (v.sh) → 19 chars",
        '[context-script] v command: v.sh targetAgentId="steward" tag=undefined',
        "[context-script] v output:\n## Charter\nBe kind.",
        "[context-script] v proposed agentIdOverride: main",
        "[context-script] agentIdOverride candidates: [v→main (pri:0 ✓)] → winner: v→main",
    ]


def test_log_verbose_without_argmap(tmp_path: Path) -> None:
    cfg = config_with([{"id": "v", "uri": echo(tmp_path, "a", "x"), "log": "verbose"}])
    assert run_cfg(cfg, tmp_path).log_lines[1] == "[context-script] v command: a.sh (no args)"


def test_log_verbose_masks_secrets_in_cfg(tmp_path: Path) -> None:
    cfg = config_with(
        [
            {
                "id": "v",
                "uri": echo(tmp_path, "a", "x"),
                "log": "verbose",
                "format": "json",
                "argMap": {"config": "cfg"},
            }
        ]
    )
    cfg["gateway"] = {"auth": {"token": "tok-123"}, "models": {"apiKey": "sk-999"}}
    line = run_cfg(cfg, tmp_path).log_lines[1]
    assert line.startswith("[context-script] v command: a.sh config={")
    assert '"token":"***"' in line and '"apiKey":"***"' in line
    assert "tok-123" not in line and "sk-999" not in line


def test_failure_is_logged_even_when_log_is_false(tmp_path: Path) -> None:
    write_script(tmp_path, "f.sh", "echo broken >&2; exit 2")
    cfg = config_with([{"id": "f", "uri": "f.sh", "log": False}])
    assert run_cfg(cfg, tmp_path).log_lines == [
        "[context-script] f failed: Script exited with code 2: broken"
    ]


def test_verbose_failure_shows_command_proposal_and_failure(tmp_path: Path) -> None:
    json_script(tmp_path, "f.sh", {"error": "no charter", "agent": "coder"})
    cfg = config_with([{"id": "f", "uri": "f.sh", "log": "verbose", "agentIdOverrideKey": "agent"}])
    assert run_cfg(cfg, tmp_path).log_lines == [
        "[context-script] f command: f.sh (no args)",
        "[context-script] f proposed agentIdOverride: coder",
        "[context-script] f failed: Script f returned error: no charter",
        "[context-script] agentIdOverride candidates: [f→coder (pri:0 ✓)] → winner: f→coder",
    ]


# --- overrides ----------------------------------------------------------------------------


def proposer(tmp_path: Path, name: str, agent: str, priority: Any, log: Any = False) -> dict:
    json_script(tmp_path, f"{name}.sh", {"message": f"from {name}", "to": agent})
    return {
        "id": name,
        "uri": f"{name}.sh",
        "priority": priority,
        "log": log,
        "agentIdOverrideKey": "to",
    }


def test_highest_priority_valid_candidate_wins(tmp_path: Path) -> None:
    cfg = config_with(
        [
            proposer(tmp_path, "script-b", "agent-y", 50),
            proposer(tmp_path, "script-a", "agent-x", 100, log="verbose"),
            proposer(tmp_path, "script-c", "main", 10),
        ]
    )
    outcome = run_cfg(cfg, tmp_path, agents={"agent-x", "main"})
    assert [(c.script_id, c.agent_id, c.priority, c.valid) for c in outcome.candidates] == [
        ("script-a", "agent-x", 100, True),
        ("script-b", "agent-y", 50, False),
        ("script-c", "main", 10, True),
    ]
    assert outcome.winner is not None
    assert (outcome.winner.script_id, outcome.winner.agent_id) == ("script-a", "agent-x")
    assert outcome.log_lines[-1] == (
        "[context-script] agentIdOverride candidates: [script-a→agent-x (pri:100 ✓), "
        "script-b→agent-y (pri:50 ✗), script-c→main (pri:10 ✓)] → winner: script-a→agent-x"
    )
    assert outcome.override_dict() == {
        "candidates": [c.to_dict() for c in outcome.candidates],
        "winner": {
            "script_id": "script-a",
            "agent_id": "agent-x",
            "priority": 100,
            "valid": True,
            "reason": "configured agent",
        },
    }


def test_a_lower_priority_valid_candidate_wins_over_an_invalid_higher_one(
    tmp_path: Path,
) -> None:
    cfg = config_with(
        [proposer(tmp_path, "hi", "ghost", 100), proposer(tmp_path, "lo", "coder", 1)]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert outcome.winner is not None and outcome.winner.script_id == "lo"
    (diag,) = outcome.diagnostics
    assert diag.code == "context-script-override"
    assert (
        'proposed agentIdOverride "ghost": not a configured agent (configured: coder, main)'
        in diag.message
    )


def test_no_valid_candidate_keeps_the_original_target(tmp_path: Path) -> None:
    cfg = config_with(
        [proposer(tmp_path, "a", "ghost", 5, log="verbose"), proposer(tmp_path, "b", "Bad Id!", 1)]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert outcome.winner is None and outcome.target_override is None
    assert outcome.candidates[1].reason.startswith("not a valid agent id")
    assert outcome.log_lines[-1] == (
        "[context-script] agentIdOverride candidates: [a→ghost (pri:5 ✗), "
        "b→bad id! (pri:1 ✗)] → none valid"
    )
    assert outcome.override_dict()["winner"] is None


def test_candidate_is_case_folded_and_trimmed(tmp_path: Path) -> None:
    cfg = config_with([proposer(tmp_path, "a", " CODER ", 5)])
    outcome = run_cfg(cfg, tmp_path, agents={"Coder"})
    assert outcome.winner is not None and outcome.winner.agent_id == "coder"


def test_candidates_line_only_when_an_entry_is_verbose(tmp_path: Path) -> None:
    cfg = config_with([proposer(tmp_path, "a", "main", 5, log=True)])
    outcome = run_cfg(cfg, tmp_path)
    assert outcome.log_lines == ["[context-script] a (a.sh) → 6 chars"]


def test_result_dict_shape(tmp_path: Path) -> None:
    cfg = config_with([proposer(tmp_path, "a", "main", 5)])
    (result,) = run_cfg(cfg, tmp_path).results
    d = result.to_dict()
    assert list(d) == [
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
    ]
    assert (
        d["id"],
        d["uri"],
        d["priority"],
        d["position"],
        d["status"],
        d["chars"],
        d["output"],
        d["error"],
        d["override"],
    ) == ("a", "a.sh", 5, "append", "ok", 6, "from a", None, "main")
    assert d["duration_ms"] > 0
