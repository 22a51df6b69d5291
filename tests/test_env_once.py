"""A build decides with the environment its inputs read once (`Inputs.env`), not with
`os.environ` read on the way: the config's `${NAME}`, the host's time zone, a GoClaw skill's
required variable, Rye's `{env:NAME}`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Caches, load_inputs
from ctxscope.report import thread_for
from ctxscope.runtimes.registry import session_for

from .conftest import SAMPLE


def workspace(tmp_path: Path, config: dict[str, object]) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return ws


def test_the_config_and_the_time_zone_come_from_the_inputs_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace(
        tmp_path,
        {
            "meta": {"lastTouchedVersion": "2026.9.6"},
            "agents": {"defaults": {"model": {"primary": "${CTXSCOPE_TEST_MODEL}"}}},
        },
    )
    monkeypatch.delenv("CTXSCOPE_TEST_MODEL", raising=False)
    monkeypatch.setenv("TZ", "UTC")
    env = {"CTXSCOPE_TEST_MODEL": "anthropic/claude-test", "TZ": "Asia/Tokyo"}
    snapshot = Snapshot()
    inputs = load_inputs(ws, snapshot, environ=env)
    assert inputs.config.get("agents.defaults.model.primary") == "anthropic/claude-test"
    monkeypatch.setenv("TZ", "America/New_York")  # after the inputs were read: not seen
    session = session_for(inputs, snapshot)
    assert session.model == "anthropic/claude-test"
    time = session.section("temporal_context")
    assert time is not None and "Time zone: Asia/Tokyo" in time.text


def test_reading_the_inputs_again_reads_the_environment_again(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path, {"agents": {"defaults": {"model": {"primary": "${CTXSCOPE_TEST_MODEL}"}}}}
    )
    snapshot = Snapshot()
    first = load_inputs(ws, snapshot, environ={"CTXSCOPE_TEST_MODEL": "a/one"})
    same_text = load_inputs(ws, snapshot, previous=first, environ={"CTXSCOPE_TEST_MODEL": "a/two"})
    assert same_text.config.get("agents.defaults.model.primary") == "a/two"


def test_a_rye_placeholder_is_masked_only_where_the_inputs_environment_sets_it(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    directive = ws / ".ai" / "directives" / "project" / "deploy" / "deploy_staging.md"
    text = directive.read_text(encoding="utf-8")
    directive.write_text(text.rstrip() + "\n5. Region: {env:CTXSCOPE_TEST_REGION:eu-west}\n")
    snapshot = Snapshot()
    wanted = {"directive": "project/deploy/deploy_staging", "rye_dev_mode": True}  # edited
    for env, shown in (({}, "Region: eu-west"), ({"CTXSCOPE_TEST_REGION": "x"}, "Region: ⟨$")):
        inputs = load_inputs(ws, snapshot, overrides=wanted, environ=env)
        thread = thread_for(inputs, snapshot, Caches())
        assert thread is not None
        assert shown in thread.first_message
