"""Configs each modelled release refuses to load, and its reason: what each release's own
config loader (`readConfigFileSnapshot`, on the config written to a state folder) answered
for these configs is recorded below; ctxscope must say the same, as an error, and still
build the view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector

OWNERSHIP = (
    'agents.ownership: multi-agent rosters require agents.ownership="explicit" or one legacy '
    'default=true marker; add agents.ownership="explicit" or run openclaw doctor'
)
# (config, what 2026.2.19 said, what 2026.9.6 said): "path: message", None when it loads.
RECORDED: list[tuple[dict[str, Any], str | None, str | None]] = [
    ({}, None, None),
    (
        {"agents": {"list": [{"id": "main", "bootstrapMaxChars": 200}]}},
        'agents.list.0: Unrecognized key: "bootstrapMaxChars"',
        None,
    ),
    (
        {"agents": {"list": [{"id": "main", "bootstrapTotalMaxChars": 200}]}},
        'agents.list.0: Unrecognized key: "bootstrapTotalMaxChars"',
        None,
    ),
    (
        {"agents": {"defaults": {"skills": ["a"]}}},
        'agents.defaults: Unrecognized key: "skills"',
        None,
    ),
    (
        {"agents": {"list": [{"id": "main", "thinkingDefault": "low"}]}},
        'agents.list.0: Unrecognized key: "thinkingDefault"',
        None,
    ),
    ({"agents": {"entries": {"main": {}}}}, 'agents: Unrecognized key: "entries"', None),
    ({"bogus": 1}, 'Unrecognized key: "bogus"', 'Unrecognized key: "bogus"'),
    (
        {"agents": {"defaults": {"bogus": 1}}},
        'agents.defaults: Unrecognized key: "bogus"',
        'agents.defaults: Unrecognized key: "bogus"',
    ),
    ({"agents": {"list": [{"id": "main"}, {"id": "coder"}]}}, None, OWNERSHIP),
    (
        {"agents": {"entries": {"main": {}, "coder": {}}}},
        'agents: Unrecognized key: "entries"',
        OWNERSHIP,
    ),
    (
        {"agents": {"entries": {"main": {}, "coder": {}}, "ownership": "explicit"}},
        'agents: Unrecognized keys: "entries", "ownership"',
        None,
    ),
    ({"agents": {"list": [{"id": "main", "default": True}, {"id": "coder"}]}}, None, None),
    (
        {
            "agents": {
                "list": [{"id": "main", "default": True}, {"id": "coder"}],
                "ownership": "explicit",
            }
        },
        'agents: Unrecognized key: "ownership"',
        "agents.ownership: agents.ownership=explicit cannot be combined with a legacy "
        'default=true marker, got: "explicit"',
    ),
    ({"session": {"store": "~/x/{agentId}/sessions.json"}}, None, None),
]


@pytest.mark.parametrize(
    ("config", "v2", "v9"), RECORDED, ids=[json.dumps(c)[:60] for c, _, _ in RECORDED]
)
@pytest.mark.parametrize("version", ["2026.2.19", "2026.9.6"])
def test_what_the_release_refuses(
    config: dict[str, Any], v2: str | None, v9: str | None, version: str, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a")
    (ws / "openclaw.json").write_text(json.dumps(config, indent=2))
    (ws / "ctxscope.yaml").write_text(f"profile: openclaw-{version[:6]}\n")
    ins = Inspector(ws)
    report = ins.report(run_scripts=False)
    refused = [d for d in report.diagnostics if d.code == "config-refused"]
    want = v2 if version.startswith("2026.2") else v9
    if want is None:
        assert refused == []
        return
    assert [d.message for d in refused] == [f"OpenClaw {version} refuses this config: {want}"]
    assert refused[0].severity == "error" and refused[0].path == str(ws / "openclaw.json")
    assert refused[0].line is not None or want.startswith("Unrecognized")
    # The view is still built.
    assert report.requester.system_prompt


@pytest.mark.parametrize(
    "name", [".openclaw/workspace-state.json", "openclaw-workspace-state.json"]
)
def test_2026_9_refuses_a_workspace_with_an_older_releases_setup_state(
    name: str, tmp_path: Path
) -> None:
    """workspace-legacy-state.ts: the runtime fails closed until `openclaw doctor --fix`
    migrates the file (2026.2 wrote `.openclaw/workspace-state.json` in the workspace)."""
    ws = tmp_path / "ws"
    (ws / name).parent.mkdir(parents=True, exist_ok=True)
    (ws / "AGENTS.md").write_text("a")
    (ws / name).write_text("{}")
    for version, refused in (("2026.2", False), ("2026.9", True)):
        (ws / "ctxscope.yaml").write_text(f"profile: openclaw-{version}\n")
        report = Inspector(ws).report(run_scripts=False)
        found = [d for d in report.diagnostics if d.code == "config-refused"]
        assert bool(found) is refused
        if refused:
            assert found[0].message == (
                "OpenClaw 2026.9.6 refuses to run this workspace: Legacy workspace setup state "
                f"requires migration for {ws}; run openclaw doctor --fix."
            )
            assert found[0].path == str(ws / name)
            assert report.requester.system_prompt


@pytest.mark.parametrize(
    ("store", "refused"),
    [
        ("{state}/agents/main/sessions/sessions.json", ["coder"]),
        ("{state}/agents/coder/agent/openclaw-agent.sqlite", ["main"]),
        ("{state}/agents/{{agentId}}/sessions/sessions.json", []),
        ("{state}/shared/sessions.json", []),
    ],
)
def test_2026_9_refuses_to_run_an_agent_on_another_agents_store(
    store: str, refused: list[str], tmp_path: Path
) -> None:
    """A `session.store` at another agent's own place (where the runtime keeps that agent's
    sessions) stops the runs of every agent but its owner (the 2026.9.6 gateway answered a
    turn of `coder` on `agents/main/sessions/sessions.json` with this reason); 2026.2 has no
    such rule."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a")
    config = {
        "agents": {"list": [{"id": "main", "default": True}, {"id": "coder"}]},
        "session": {"store": store.format(state=tmp_path / "state")},
    }
    (ws / "openclaw.json").write_text(json.dumps(config, indent=2))
    for version in ("2026.2", "2026.9"):
        (ws / "ctxscope.yaml").write_text(f"profile: openclaw-{version}\n")
        report = Inspector(ws).report(run_scripts=False)
        found = [d for d in report.diagnostics if d.code == "config-refused"]
        if version == "2026.2" or not refused:
            assert found == []
            continue
        owner = "main" if refused == ["coder"] else "coder"
        assert [d.message for d in found] == [
            f"OpenClaw 2026.9.6 refuses to run agent {agent}: SQLite session store path "
            f"belongs to agent {owner}; requested agent {agent}."
            for agent in refused
        ]
        assert found[0].path == str(ws / "openclaw.json") and found[0].line == 14
        assert report.requester.system_prompt
