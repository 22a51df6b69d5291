"""The output pipeline, one case per rule, each through a real script printing the output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import config_with, json_script, run_cfg

CASES: list[tuple[str, Any, dict[str, Any], str, str]] = [
    # (case, printed output, entry options, expected status, expected output-or-error)
    ("plain text", "Just some text.\nTwo lines.", {}, "ok", "Just some text.\nTwo lines."),
    ("json string is plain text", '"quoted"', {}, "ok", '"quoted"'),
    ("json array is plain text", "[1, 2]", {}, "ok", "[1, 2]"),
    (
        "errorKey truthy",
        {"failure": "quota exceeded", "message": "x"},
        {"errorKey": "failure"},
        "error",
        "Script s returned error (failure): quota exceeded",
    ),
    (
        "errorKey object value",
        {"failure": {"code": 7}},
        {"errorKey": "failure"},
        "error",
        'Script s returned error (failure): {"code":7}',
    ),
    (
        "errorKey falsy is fine",
        {"failure": "", "message": "fine"},
        {"errorKey": "failure"},
        "ok",
        "fine",
    ),
    ("errorKey absent is fine", {"message": "fine"}, {"errorKey": "failure"}, "ok", "fine"),
    ("error string", {"error": "bad request"}, {}, "error", "Script s returned error: bad request"),
    (
        "error object message",
        {"error": {"type": "rate_limit", "message": "slow down"}},
        {},
        "error",
        "Script s returned error: slow down",
    ),
    (
        "error object type",
        {"error": {"type": "overloaded_error"}},
        {},
        "error",
        "Script s returned error: overloaded_error",
    ),
    (
        "error object other",
        {"error": {"code": 500}},
        {},
        "error",
        'Script s returned error: {"code":500}',
    ),
    (
        "errors list",
        {"errors": ["first", {"message": "second"}, {"code": 3}]},
        {},
        "error",
        'Script s returned errors: first; second; {"code":3}',
    ),
    ("empty errors list is fine", {"errors": [], "text": "fine"}, {}, "ok", "fine"),
    (
        "status error with message",
        {"status": "error", "message": "nope"},
        {},
        "error",
        "Script s returned error: nope",
    ),
    (
        "status error without message",
        {"status": "error"},
        {},
        "error",
        "Script s returned error: status=error",
    ),
    (
        "ok false with message",
        {"ok": False, "message": "denied"},
        {},
        "error",
        "Script s returned error: denied",
    ),
    ("ok false without message", {"ok": False}, {}, "error", "Script s returned error: ok=false"),
    (
        "error beats returnKey",
        {"error": "boom", "body": "x"},
        {"returnKey": "body"},
        "error",
        "Script s returned error: boom",
    ),
    (
        "returnKey string",
        {"body": "the body", "message": "not this"},
        {"returnKey": "body"},
        "ok",
        "the body",
    ),
    ("returnKey non-string", {"body": {"a": [1, 2]}}, {"returnKey": "body"}, "ok", '{"a":[1,2]}'),
    (
        "returnKey missing",
        {"message": "x"},
        {"returnKey": "body"},
        "error",
        'Script s: returnKey "body" not found in response',
    ),
    ("returnKey null is nothing", {"body": None}, {"returnKey": "body"}, "empty", ""),
    ("auto message", {"message": "m", "content": "c", "text": "t", "result": "r"}, {}, "ok", "m"),
    ("auto content", {"content": "c", "text": "t", "result": "r"}, {}, "ok", "c"),
    ("auto text", {"text": "t", "result": "r"}, {}, "ok", "t"),
    ("auto result", {"result": "r"}, {}, "ok", "r"),
    ("auto skips null", {"message": None, "result": "r"}, {}, "ok", "r"),
    ("auto non-string", {"result": [1, "two"]}, {}, "ok", '[1,"two"]'),
    ("stringify fallback", {"spawnType": "alias", "n": 2}, {}, "ok", '{"spawnType":"alias","n":2}'),
    ("empty string content", {"message": "   "}, {}, "empty", ""),
]


@pytest.mark.parametrize(
    ("printed", "options", "status", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_pipeline(
    tmp_path: Path, printed: Any, options: dict[str, Any], status: str, expected: str
) -> None:
    json_script(tmp_path, "s.sh", printed)
    outcome = run_cfg(config_with([{"id": "s", "uri": "s.sh", **options}]), tmp_path)
    (result,) = outcome.results
    assert result.status == status
    if status == "ok":
        assert (result.output, result.error, result.chars) == (expected, None, len(expected))
    elif status == "error":
        assert (result.error, result.output, result.chars) == (expected, None, 0)
    else:
        assert (result.output, result.error) == (None, None)


def test_override_is_read_before_the_pipeline(tmp_path: Path) -> None:
    json_script(tmp_path, "s.sh", {"error": "no charter", "agent": "  Coder "})
    outcome = run_cfg(
        config_with([{"id": "s", "uri": "s.sh", "agentIdOverrideKey": "agent"}]), tmp_path
    )
    (result,) = outcome.results
    assert result.status == "error"
    assert result.override == "Coder"
    assert outcome.winner is not None and outcome.winner.agent_id == "coder"


@pytest.mark.parametrize("value", ["", "   ", 7, None, ["main"]])
def test_override_must_be_a_non_empty_string(tmp_path: Path, value: Any) -> None:
    json_script(tmp_path, "s.sh", {"message": "hi", "agent": value})
    outcome = run_cfg(
        config_with([{"id": "s", "uri": "s.sh", "agentIdOverrideKey": "agent"}]), tmp_path
    )
    assert outcome.results[0].override is None
    assert outcome.candidates == []


def test_override_key_on_plain_text_output_proposes_nothing(tmp_path: Path) -> None:
    json_script(tmp_path, "s.sh", "agent: main")
    outcome = run_cfg(
        config_with([{"id": "s", "uri": "s.sh", "agentIdOverrideKey": "agent"}]), tmp_path
    )
    assert outcome.results[0].override is None


def test_seed_example_output(tmp_path: Path) -> None:
    printed = {
        "message": "## Identity\n\nYou are the High Steward...",
        "targetAgentId": "main",
        "spawnType": "unregistered",
        "agentName": "main",
        "subAgentName": "steward",
    }
    json_script(tmp_path, "s.sh", json.dumps(printed))
    outcome = run_cfg(
        config_with(
            [
                {
                    "id": "id",
                    "uri": "s.sh",
                    "position": "prepend",
                    "returnKey": "message",
                    "agentIdOverrideKey": "targetAgentId",
                }
            ]
        ),
        tmp_path,
    )
    assert outcome.prepend == "## Identity\n\nYou are the High Steward..."
    assert outcome.target_override == "main"
    assert outcome.apply_to_task("Review the architecture") == (
        "## Identity\n\nYou are the High Steward...\n\nReview the architecture"
    )
