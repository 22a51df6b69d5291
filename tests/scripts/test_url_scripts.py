"""URL scripts against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope.scripts import ScriptResult

from .helpers import config_with, run_cfg

ARGS = {"agent": "targetAgentId", "tag": "label", "config": "cfg"}


def one(tmp_path: Path, **entry: Any) -> ScriptResult:
    outcome = run_cfg(config_with([{"id": "u", **entry}]), tmp_path)
    (result,) = outcome.results
    return result


def test_get_puts_the_argmap_in_the_query_string(tmp_path: Path, http_server: str) -> None:
    result = one(tmp_path, uri=f"{http_server}/echo?fixed=1", argMap=ARGS)
    assert result.status == "ok"
    seen = json.loads(result.output or "")
    assert seen["method"] == "GET"
    assert seen["body"] is None
    assert seen["query"]["fixed"] == "1"
    assert (seen["query"]["agent"], seen["query"]["tag"]) == ("steward", "arch")
    assert json.loads(seen["query"]["config"])["agents"]["list"][0]["id"] == "main"


def test_get_leaves_undefined_variables_out(tmp_path: Path, http_server: str) -> None:
    outcome = run_cfg(
        config_with([{"id": "u", "uri": f"{http_server}/echo", "argMap": {"tag": "label"}}]),
        tmp_path,
        label=None,
    )
    assert json.loads(outcome.results[0].output or "")["query"] == {}


@pytest.mark.parametrize("method", ["POST", "put", "PATCH"])
def test_post_and_put_send_a_json_body(tmp_path: Path, http_server: str, method: str) -> None:
    result = one(
        tmp_path,
        uri=f"{http_server}/echo",
        method=method,
        format="json",
        argMap={"agent": "targetAgentId", "task": "task"},
    )
    seen = json.loads(result.output or "")
    assert seen["method"] == method.upper()
    assert seen["query"] == {}
    assert seen["body"] == {"agent": "steward", "task": "Review the architecture"}
    assert seen["content_type"] == "application/json"


def test_delete_uses_the_query_string(tmp_path: Path, http_server: str) -> None:
    seen = json.loads(
        one(
            tmp_path, uri=f"{http_server}/echo", method="DELETE", argMap={"agent": "targetAgentId"}
        ).output
        or ""
    )
    assert (seen["method"], seen["query"], seen["body"]) == ("DELETE", {"agent": "steward"}, None)


def test_json_response_goes_through_the_pipeline(tmp_path: Path, http_server: str) -> None:
    outcome = run_cfg(
        config_with([{"id": "u", "uri": f"{http_server}/json", "agentIdOverrideKey": "agent"}]),
        tmp_path,
    )
    (result,) = outcome.results
    assert (result.status, result.output, result.override) == ("ok", "from json", "coder")
    assert outcome.winner is not None and outcome.winner.agent_id == "coder"


def test_plain_text_response_is_stripped(tmp_path: Path, http_server: str) -> None:
    assert one(tmp_path, uri=f"{http_server}/text").output == "plain text from the server"


def test_error_json_from_a_200(tmp_path: Path, http_server: str) -> None:
    result = one(tmp_path, uri=f"{http_server}/api-error")
    assert (result.status, result.error) == ("error", "Script u returned error: rate limited")


def test_http_500(tmp_path: Path, http_server: str) -> None:
    result = one(tmp_path, uri=f"{http_server}/500")
    assert (result.status, result.error) == ("error", "HTTP 500: Internal Server Error")


def test_http_404(tmp_path: Path, http_server: str) -> None:
    assert one(tmp_path, uri=f"{http_server}/missing").error == "HTTP 404: Not Found"


def test_redirect_loop_is_cut(tmp_path: Path, http_server: str) -> None:
    result = one(tmp_path, uri=f"{http_server}/loop")
    assert result.status == "error"
    assert result.error == f"Too many redirects (more than 10) from {http_server}/loop"


def test_refused_connection(tmp_path: Path, closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/context"
    result = one(tmp_path, uri=url)
    assert result.status == "error"
    assert (result.error or "").startswith(f"Cannot connect to {url}: ")
    assert "refused" in (result.error or "").lower()


def test_slow_server_times_out(tmp_path: Path, http_server: str) -> None:
    result = one(tmp_path, uri=f"{http_server}/slow", timeoutMs=300)
    assert result.status == "timeout"
    assert result.error == f"Request to {http_server}/slow timed out after 0.3 seconds"


def test_a_server_trickling_its_headers_times_out_at_timeout_ms(
    tmp_path: Path, http_server: str
) -> None:
    # Each byte comes well inside the per-read timeout; ~12 s in all without a total deadline.
    result = one(tmp_path, uri=f"{http_server}/trickle", timeoutMs=400)
    assert result.status == "timeout"
    assert result.error == f"Request to {http_server}/trickle timed out after 0.4 seconds"


def test_big_body_is_cut_at_one_mebibyte(tmp_path: Path, http_server: str) -> None:
    result = one(tmp_path, uri=f"{http_server}/big")
    assert (result.status, result.output_truncated, result.chars) == ("ok", True, 1024 * 1024)


def test_failures_do_not_stop_the_rest(tmp_path: Path, http_server: str, closed_port: int) -> None:
    cfg = config_with(
        [
            {"id": "refused", "uri": f"http://127.0.0.1:{closed_port}/", "priority": 4},
            {"id": "e500", "uri": f"{http_server}/500", "priority": 3},
            {"id": "loop", "uri": f"{http_server}/loop", "priority": 2},
            {"id": "fine", "uri": f"{http_server}/text", "priority": 1},
        ]
    )
    outcome = run_cfg(cfg, tmp_path)
    assert [r.status for r in outcome.results] == ["error", "error", "error", "ok"]
    assert outcome.append == "plain text from the server"
    assert [d.code for d in outcome.diagnostics] == ["context-script-failed"] * 3
