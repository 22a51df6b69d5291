"""The config as OpenClaw reads it: `$include`, `${VAR}`, `agents.entries`, the default
agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope import Inspector
from tests.test_cli import ctxscope


def write(ws: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    return ws


def test_includes_merge_files_and_lists_relative_to_the_including_file(tmp_path: Path) -> None:
    ws = write(
        tmp_path,
        {
            "AGENTS.md": "a",
            "openclaw.json": (
                '{ agents: { $include: "conf/agents.json5", defaults: { bootstrapMaxChars: 50 } } }'
            ),
            "conf/agents.json5": (
                '{ $include: ["list.json5", "more.json5"], '
                "defaults: { bootstrapTotalMaxChars: 90 } }"
            ),
            "conf/list.json5": '{ list: [{ id: "main", default: true }] }',
            "conf/more.json5": '{ list: [{ id: "coder" }] }',
        },
    )
    inspector = Inspector(ws)
    assert inspector.config.agent_ids() == ["main", "coder"]  # lists concatenate
    assert inspector.config.defaults == {"bootstrapTotalMaxChars": 90, "bootstrapMaxChars": 50}
    assert [Path(p).name for p, _ in inspector.config.included] == [
        "agents.json5",
        "list.json5",
        "more.json5",
    ]
    assert inspector.diagnostics == []


@pytest.mark.parametrize(
    ("files", "message", "where"),
    [
        (
            {"a.json5": '{ $include: "b.json5" }', "b.json5": '{\n  $include: "a.json5" }'},
            "$include cycle",
            ("b.json5", 2),  # the file and line of the $include that closes the cycle
        ),
        ({}, "cannot read", ("openclaw.json", 1)),
        ({"a.json5": "{ nope"}, "not valid JSON5: ", ("openclaw.json", 1)),
    ],
)
def test_a_broken_include_is_named_and_the_rest_is_used(
    tmp_path: Path, files: dict[str, str], message: str, where: tuple[str, int]
) -> None:
    ws = write(
        tmp_path,
        {
            **files,
            "AGENTS.md": "hello",
            "openclaw.json": (
                '{ $include: "a.json5", agents: { defaults: { bootstrapMaxChars: 3 } } }'
            ),
        },
    )
    out = ctxscope("render", ws, "--format", "json", "--profile", "openclaw-2026.9")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    problems = [d for d in data["diagnostics"] if d["code"] == "config-include"]
    assert len(problems) == 1 and message in problems[0]["message"]
    assert (problems[0]["path"], problems[0]["line"]) == (str(ws / where[0]), where[1])
    agents = next(f for f in data["files"] if f["name"] == "AGENTS.md")
    assert agents["injected_chars"] <= 3  # the sibling keys still apply


def test_an_include_may_not_leave_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "secret.json5").write_text('{ agents: { list: [{ id: "x" }] } }')
    ws = write(tmp_path / "ws", {"openclaw.json": '{ $include: "../secret.json5" }'})
    inspector = Inspector(ws)
    assert "leaves the config's folder" in inspector.diagnostics[0].message
    assert inspector.config.agent_ids() == ["main"]


def test_an_include_path_s_tilde_is_a_folder_name_as_openclaw_reads_it(tmp_path: Path) -> None:
    """OpenClaw expands no `~` in `$include`: `~/x.json5` is a file in a folder named `~`
    beside the config, not one in the home folder."""
    ws = write(tmp_path / "ws", {"openclaw.json": '{ $include: "~/x.json5" }'})
    (ws / "~").mkdir()
    (ws / "~" / "x.json5").write_text('{ agents: { list: [{ id: "tilde" }] } }')
    inspector = Inspector(ws)
    assert inspector.config.agent_ids() == ["tilde"], inspector.diagnostics


def test_env_vars_substitute_and_missing_ones_follow_the_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTX_MODEL", "p/from-env")
    monkeypatch.delenv("CTX_MISSING", raising=False)
    ws = write(
        tmp_path,
        {
            "AGENTS.md": "a",
            "openclaw.json": (
                "{\n"
                ' env: { vars: { CTX_TEAM: "ops" } },\n'
                " agents: { defaults: {\n"
                '  model: { primary: "${CTX_MODEL}" },\n'
                '  userTimezone: "${CTX_MISSING}",\n'
                '  note: "$${CTX_MODEL} and ${CTX_TEAM}",\n'
                " } }\n}"
            ),
        },
    )
    v9 = Inspector(ws, scenario={"profile": "openclaw-2026.9"})
    assert v9.config.defaults["model"] == {"primary": "p/from-env"}
    assert v9.config.defaults["note"] == "${CTX_MODEL} and ops"
    assert v9.config.defaults["userTimezone"] == "${CTX_MISSING}"
    (warning,) = [d for d in v9.diagnostics if d.code == "config-env"]
    assert (warning.severity, warning.line) == ("warning", 5)
    assert warning.message.startswith('Missing env var "CTX_MISSING" - feature using this value')
    v2 = Inspector(ws, scenario={"profile": "openclaw-2026.2"})
    (error,) = [d for d in v2.diagnostics if d.code == "config-env"]
    assert error.severity == "error"
    assert error.message.startswith(
        'Missing env var "CTX_MISSING" referenced at config path: agents.defaults.userTimezone'
    )


def test_agents_entries_is_the_2026_9_roster(tmp_path: Path) -> None:
    config = {
        "agents": {
            "entries": {"ops": {"default": True}, "coder": {"model": "p/c"}},
            "list": [{"id": "legacy"}],
        }
    }
    ws = write(tmp_path, {"AGENTS.md": "a", "openclaw.json": json.dumps(config)})
    v9 = Inspector(ws, scenario={"profile": "openclaw-2026.9"})
    assert v9.config.agent_ids() == ["ops", "coder"]
    assert v9.scenario.requester == "ops"  # the default agent, not a phantom `main`
    assert v9.session().session_key == "agent:ops:main"
    v2 = Inspector(ws, scenario={"profile": "openclaw-2026.2"})
    assert v2.config.agent_ids() == ["legacy"]
    assert any(d.code == "config-entries" for d in v2.diagnostics)


def test_the_requester_defaults_to_the_first_configured_agent(tmp_path: Path) -> None:
    config = {"agents": {"list": [{"id": "ops"}, {"id": "coder"}]}}
    ws = write(tmp_path, {"AGENTS.md": "a", "openclaw.json": json.dumps(config)})
    assert Inspector(ws).scenario.requester == "ops"
    (ws / "ctxscope.yaml").write_text("requester: coder\n")
    assert Inspector(ws).scenario.requester == "coder"


@pytest.mark.parametrize("name", ["openclaw.json", "openclaw.yaml"])
def test_diagnostics_point_at_the_key_itself(tmp_path: Path, name: str) -> None:
    json_text = (
        "{\n"
        '  agents: { list: [ { id: "main", subagents: { model: "m" } },\n'
        '    { "id": "Bad Id!",\n'
        "      subagents: { nonsense: 1 } } ],\n"
        "    defaults: { id: 1, subagents: { maxSpawnDepth: -1 } } } }"
    )
    yaml_text = (
        "agents:\n"
        "  list:\n"
        "    - id: main\n"
        "      subagents: {model: m}\n"
        "    - id: Bad Id!\n"
        "      subagents:\n"
        "        nonsense: 1\n"
        "  defaults:\n"
        "    subagents: {maxSpawnDepth: -1}\n"
    )
    ws = write(
        tmp_path, {"AGENTS.md": "a", name: json_text if name.endswith("json") else yaml_text}
    )
    diags = {d.code: d.line for d in Inspector(ws).diagnostics}
    expected = (
        {"config-agent-id": 3, "config-unknown-key": 4, "config-value": 5}
        if name.endswith("json")
        else {"config-agent-id": 5, "config-unknown-key": 7, "config-value": 9}
    )
    assert {k: diags.get(k) for k in expected} == expected


def test_sandbox_non_main_and_thinking_defaults(tmp_path: Path) -> None:
    config = {
        "agents": {
            "defaults": {"sandbox": {"mode": "non-main"}, "thinkingDefault": "low"},
            "list": [{"id": "main"}, {"id": "ops", "thinkingDefault": "high"}],
        }
    }
    ws = write(tmp_path, {"AGENTS.md": "a", "openclaw.json": json.dumps(config)})
    inspector = Inspector(ws, scenario={"profile": "openclaw-2026.2"})
    main = inspector.session()
    assert main.section("sandbox") is None
    assert "non-main" in main.absent_sections["sandbox"]
    assert inspector.session("agent:main:telegram:direct:7").section("sandbox") is not None
    runtime = main.section("runtime")
    assert runtime is not None and "thinking=low" in runtime.text
    ops = inspector.session("agent:ops:main").section("runtime")
    assert ops is not None and "thinking=high" in ops.text


def test_tool_policy_decides_the_tool_list(tmp_path: Path) -> None:
    config = {
        "tools": {
            "profile": "coding",
            "deny": ["group:memory"],
            "subagents": {"tools": {"deny": ["exec"]}},
        },
        "agents": {
            "defaults": {"subagents": {"maxSpawnDepth": 1}},
            "list": [{"id": "main", "tools": {"deny": ["write"]}}, {"id": "ops"}],
        },
    }
    ws = write(tmp_path, {"AGENTS.md": "a", "openclaw.json": json.dumps(config)})
    tools = [
        "read",
        "write",
        "exec",
        "web_search",
        "message",
        "memory_search",
        "sessions_spawn",
        "session_status",
    ]
    inspector = Inspector(ws, scenario={"profile": "openclaw-2026.2", "tools": tools})
    main = inspector.session()
    assert main.removed_tools == {
        "write": "denied by agents.list[main].tools",
        "web_search": "not in the allowlist of tools.profile coding",
        "message": "not in the allowlist of tools.profile coding",
        "memory_search": "denied by tools",
    }
    tooling = main.section("tooling")
    assert tooling is not None and "- write" not in tooling.text and "- read" in tooling.text
    assert "left out by tool policy: write" in tooling.rule
    child = inspector.session("agent:ops:subagent:x").removed_tools
    assert child["memory_search"] == "denied by tools"  # the global deny comes first
    assert child["session_status"] == "a subagent never gets it"
    assert child["sessions_spawn"].startswith("a leaf subagent (depth 1 of 1)")
    assert child["exec"] == "denied by tools.subagents.tools"
    assert "write" not in child  # main's own deny does not apply to ops


def test_tool_groups_and_aliases_follow_the_version(tmp_path: Path) -> None:
    config = {"tools": {"allow": ["group:automation"]}}
    ws = write(tmp_path, {"AGENTS.md": "a", "openclaw.json": json.dumps(config)})
    v2 = Inspector(ws, scenario={"profile": "openclaw-2026.2", "tools": ["cron", "plugins"]})
    assert v2.session().removed_tools == {"plugins": "not in the allowlist of tools"}
    v9 = Inspector(ws, scenario={"profile": "openclaw-2026.9", "tools": ["cron", "plugins"]})
    assert v9.session().removed_tools == {}  # cron is automations; plugins joined the group


def test_bootstrap_extra_files_hook_matches_are_listed(tmp_path: Path) -> None:
    config = {
        "hooks": {
            "internal": {
                "entries": {
                    "bootstrap-extra-files": {"paths": ["packages/*/AGENTS.md", "../x/*.md"]}
                }
            }
        }
    }
    ws = write(
        tmp_path / "ws",
        {
            "AGENTS.md": "root",
            "openclaw.json": json.dumps(config),
            "packages/api/AGENTS.md": "api rules",
            "packages/api/NOTES.md": "not a bootstrap name",
            "packages/web/AGENTS.md": "web rules",
        },
    )
    (ws / "packages" / "loop").symlink_to(ws)  # never followed
    v9 = Inspector(ws, scenario={"profile": "openclaw-2026.9"}).session()
    hooked = [f for f in v9.files if "bootstrap-extra-files" in f.reason]
    assert [f.name for f in hooked] == ["packages/api/AGENTS.md", "packages/web/AGENTS.md"]
    assert all(f.status == "not-injected" and "at run time" in f.reason for f in hooked)
    out = ctxscope("explain", ws, "packages/api/AGENTS.md", "--profile", "openclaw-2026.9")
    assert "bootstrap-extra-files" in out.stdout, out.stdout + out.stderr
    v2 = Inspector(ws, scenario={"profile": "openclaw-2026.2"}).session()
    assert not [f for f in v2.files if "bootstrap-extra-files" in f.reason]


def test_workspace_hooks_on_agent_bootstrap_are_named(tmp_path: Path) -> None:
    hook = (
        '---\nname: my-files\nmetadata:\n  {\n    "openclaw":\n      {\n'
        '        "events": ["agent:bootstrap"],\n      },\n  }\n---\n# hook\n'
    )
    other = '---\nname: logger\nmetadata: {"openclaw": {"events": ["command:new"]}}\n---\n'
    config = {"hooks": {"internal": {"entries": {"my-files": {"enabled": True}}}}}
    ws = write(
        tmp_path,
        {
            "AGENTS.md": "a",
            "hooks/my-files/HOOK.md": hook,
            "hooks/logger/HOOK.md": other,
            "openclaw.json": json.dumps(config),
        },
    )
    found = [d for d in Inspector(ws).session().diagnostics if d.code == "bootstrap-hook"]
    assert [(d.path, d.severity) for d in found] == [(str(ws / "hooks/my-files/HOOK.md"), "info")]
    assert "may change the file list at run time" in found[0].message
    assert "enabled in hooks.internal.entries" in found[0].message
