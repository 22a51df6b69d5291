"""OpenClaw 2026.9.6 as its own profile, and choosing a profile by version (the reference's
tables row by row; the bootstrap budgets are also checked against the runtime itself in
tests/openclaw)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw import versions
from ctxscope.runtimes.openclaw.sessionkeys import chat_type, classify
from ctxscope.runtimes.profiles import load_profile
from tests.conftest import WorkspaceFactory, as_on_disk, pinned
from tests.test_bootstrap import CORE
from tests.test_cli import ctxscope

V9 = load_profile("openclaw-2026.9")
V2 = load_profile("openclaw-2026.2")


@pytest.fixture
def make_workspace(make_workspace: WorkspaceFactory) -> WorkspaceFactory:
    return pinned(as_on_disk(make_workspace), "openclaw-2026.9")


EIGHT = {n: f"# {n}\n{n} text" for n in [*CORE, "MEMORY.md"]}


def files_of(ws: Path, key: str = "agent:main:main", **scenario: Any) -> dict[str, str]:
    s = Inspector(ws, scenario=scenario or None).session(key)
    return {f.name: f.status for f in s.files}


# --- files and allowlists ------------------------------------------------------------------


def test_the_2026_9_file_set_and_retired_files(make_workspace) -> None:
    ws = make_workspace({**EIGHT, "memory.md": "lower"})
    s = Inspector(ws).session()
    assert [f.name for f in s.files] == [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "BOOTSTRAP.md",
        "MEMORY.md",
        "TOOLS.md",
        "HEARTBEAT.md",
        "memory.md",
    ]
    tools = s.file("TOOLS.md")
    assert tools is not None and tools.status == "not-injected"
    assert "not loaded by OpenClaw 2026.9.6" in tools.reason
    assert "TOOLS.md text" not in s.system_prompt


def test_absent_user_and_memory_get_no_entry_others_a_marker(make_workspace) -> None:
    ws = make_workspace({"AGENTS.md": "a"})
    files = files_of(ws)
    assert "USER.md" not in files and "MEMORY.md" not in files
    assert files["SOUL.md"] == files["IDENTITY.md"] == "missing"
    # No setup is pending without BOOTSTRAP.md: it is missing, and its marker is left out
    # of the prompt (it still spends the budget).
    assert files["BOOTSTRAP.md"] == "missing"
    s = Inspector(ws).session()
    boot = s.file("BOOTSTRAP.md")
    assert boot is not None and boot.injected_chars == 0 and not boot.body
    assert "[MISSING] Expected at: " + str(ws / "BOOTSTRAP.md") not in s.system_prompt
    assert "no [MISSING] marker" in boot.reason


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("agent:main:subagent:x", {"AGENTS.md"}),
        ("agent:main:cron:nightly", {"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"}),
        ("AGENT:MAIN:CRON:NIGHTLY", {"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"}),
        (
            "agent:main:telegram:group:42",
            {"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md"},
        ),
        (
            "agent:main:main",
            {"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md"},
        ),
    ],
)
def test_which_files_each_session_kind_gets(make_workspace, key: str, expected: set[str]) -> None:
    ws = make_workspace(EIGHT)
    got = {n for n, status in files_of(ws, key).items() if status in ("injected", "truncated")}
    assert got == expected


def test_keys_are_case_folded_and_chat_types_read_from_the_key() -> None:
    upper = classify("AGENT:MAIN:CRON:J", V9)
    assert (upper.kind, upper.mode) == ("cron", "minimal")
    assert classify("AGENT:MAIN:CRON:J", V2).kind == "other"  # 2026.2: `agent` is case-sensitive
    assert chat_type("agent:main:telegram:group:42") == "group"
    assert chat_type("agent:main:discord:acct:channel:7") == "channel"
    assert chat_type("agent:main:whatsapp:123@g.us") == "group"
    assert chat_type("agent:main:main") == "unknown"


def test_setup_completed_filters_bootstrap_before_the_budget(make_workspace) -> None:
    ws = make_workspace(EIGHT)
    assert files_of(ws)["BOOTSTRAP.md"] == "injected"  # setup pending, main session
    s = Inspector(ws, scenario={"setup_completed": True}).session()
    boot = s.file("BOOTSTRAP.md")
    assert boot is not None and boot.status == "excluded"
    assert "setup is completed" in boot.reason
    assert s.section("bootstrap_pending") is None
    assert "workspace setup" in s.absent_sections["bootstrap_pending"]


# --- budgets -------------------------------------------------------------------------------


def test_user_md_cap_total_budget_and_the_notice(make_workspace) -> None:
    ws = make_workspace({"AGENTS.md": "a", "USER.md": "u" * 6000})
    s = Inspector(ws).session()
    user = s.file("USER.md")
    assert user is not None and user.status == "truncated"
    assert user.injected_chars <= 4000 and "the USER.md cap" in user.reason
    notice = s.section("bootstrap_notice")
    assert notice is not None and notice.placeholder and "USER.md" in notice.rule
    assert (
        Inspector(make_workspace({"AGENTS.md": "a"}, name="b"))
        .session()
        .section("bootstrap_notice")
        is None
    )


def test_per_agent_limits_win_over_the_defaults(make_workspace) -> None:
    config = {
        "agents": {
            "defaults": {"bootstrapMaxChars": 5000},
            "list": [
                {"id": "main", "default": True, "bootstrapMaxChars": 100},
                {"id": "other", "workspace": "."},
            ],
        }
    }
    ws = make_workspace({"AGENTS.md": "x" * 400}, config=config)
    agents = Inspector(ws).session().file("AGENTS.md")
    assert agents is not None and agents.injected_chars <= 100
    other = Inspector(ws).session("agent:other:main").file("AGENTS.md")
    assert other is not None and other.status == "injected"


def test_a_compact_marker_when_the_full_one_leaves_too_little(make_workspace) -> None:
    ws = make_workspace(
        {"SOUL.md": "z" * 500}, config={"agents": {"defaults": {"bootstrapMaxChars": 40}}}
    )
    soul = Inspector(ws).session().file("SOUL.md")
    assert soul is not None and "[…truncated" in soul.body and len(soul.body) <= 40
    assert "compact marker" in soul.reason


def test_agents_md_keeps_a_policy_digest(make_workspace) -> None:
    text = "# Rules\n" + "".join(f"prose {i}\n- never leak secret {i}\n" for i in range(200))
    ws = make_workspace(
        {"AGENTS.md": text}, config={"agents": {"defaults": {"bootstrapMaxChars": 600}}}
    )
    agents = Inspector(ws).session().file("AGENTS.md")
    assert agents is not None and agents.status == "truncated"
    assert "[Policy digest from AGENTS.md]" in agents.body
    assert "policy lines" in agents.reason
    labels = [agents.body[m.start : m.end] for m in agents.markers]
    assert "[Policy digest from AGENTS.md]" in labels


# --- prompt sections -----------------------------------------------------------------------


def headings(ws: Path, key: str = "agent:main:main", **scenario: Any) -> list[str]:
    s = Inspector(ws, scenario=scenario or None).session(key)
    return [sec.heading for sec in s.sections if sec.heading and not sec.id.startswith("file:")]


def test_full_and_minimal_section_order(make_workspace) -> None:
    ws = make_workspace(EIGHT)
    full = headings(ws, tools=["read"])
    assert full[:8] == [
        "## Tooling",
        "## Tool Call Style",
        "## Execution Bias",
        "## Promised Work",
        "## Safety",
        "## Runtime Context",
        "## OpenClaw Control",
        "## Skills",  # the runtime's own skills, listed with `read`
    ]
    assert full.index("# Project Context") < full.index("## Temporal Context")
    assert full[-1] == "## Runtime" and "## Heartbeats" not in full
    minimal = headings(ws, "agent:main:subagent:x")
    # The tools the runtime sends a subagent (exec among them) bring Tooling and Messaging.
    assert "## Tooling" in minimal and "## Messaging" in minimal
    assert minimal[-2:] == ["## Subagent Context", "## Runtime"]
    gated = Inspector(ws, scenario={"tools": ["read"]}).session("agent:main:subagent:x")
    assert gated.absent_sections["messaging"] == (
        "minimal mode shows it only with message / exec / sessions_send"
    )
    with_exec = headings(ws, "agent:main:subagent:x", tools=["exec"])
    assert "## Tooling" in with_exec and "## Messaging" in with_exec


def test_project_context_lines_per_file(make_workspace) -> None:
    ws = make_workspace({"AGENTS.md": "a", "SOUL.md": "s", "USER.md": "u"})
    intro = Inspector(ws).session().section("project_context")
    assert intro is not None
    assert "SOUL.md" in intro.text and "USER.md" in intro.text and "MEMORY.md" not in intro.text


def test_blank_runs_collapse_in_the_prompt_only(make_workspace) -> None:
    ws = make_workspace({"AGENTS.md": "one\n\n\n\n\ntwo"})
    s = Inspector(ws).session()
    agents = s.file("AGENTS.md")
    assert agents is not None and agents.injected_chars == len("one\n\n\n\n\ntwo")
    assert "one\n\ntwo" in s.system_prompt


# --- spawning ------------------------------------------------------------------------------


def spawn_config(**main_sub: Any) -> dict[str, Any]:
    return {
        "agents": {
            "defaults": {"model": {"primary": "p/default"}},
            "list": [
                {"id": "main", "model": "p/main", "subagents": main_sub},
                {"id": "coder", "model": "p/coder"},
            ],
        }
    }


def test_task_message_and_default_depth(make_workspace) -> None:
    ws = make_workspace({"AGENTS.md": "a"}, config=spawn_config())
    rep = Inspector(ws, scenario={"task": "  Fix the build  "}).spawn()
    assert rep.policy.allowed
    assert rep.child.task_message == (
        "[Subagent Context] You are running as a subagent (depth 1/5). Complete the current "
        "[Subagent Task]; inherited conversation is background context, not your assignment."
        "\n\n[Subagent Task]\n\nFix the build\n\nBegin. Execute the assigned task to completion."
    )
    deep = Inspector(ws, scenario={"depth": 5}).spawn()
    assert deep.policy.error == (
        "sessions_spawn is not allowed at this depth (current depth: 5, max: 5; "
        "agents.defaults.subagents.maxSpawnDepth)."
    )
    busy = Inspector(ws, scenario={"active_children": 5}).spawn()
    assert busy.policy.error == (
        "sessions_spawn has reached max active children for this session (5/5; "
        "agents.defaults.subagents.maxChildrenPerAgent)."
    )


def test_allow_agents_registry_rule(make_workspace) -> None:
    def error(config: dict[str, Any], target: str, name: str) -> str | None:
        ws = make_workspace({"AGENTS.md": "a"}, config=config, name=name)
        return Inspector(ws, scenario={"target": target}).spawn().policy.error

    # No list anywhere: only the requester itself.
    assert error(spawn_config(), "coder", "a") == (
        "agentId is not allowed for sessions_spawn (allowed: main)"
    )
    # The defaults' list applies when the requester has none.
    defaults = spawn_config()
    defaults["agents"]["defaults"]["subagents"] = {"allowAgents": ["coder"]}
    assert error(defaults, "coder", "b") is None
    # A listed id that is not a configured agent.
    assert error(spawn_config(allowAgents=["ghost", "coder"]), "ghost", "c") == (
        'agentId "ghost" is not in the configured agent registry (allowed: coder)'
    )
    # "*": every configured agent, and the requester.
    assert error(spawn_config(allowAgents=["*"]), "ghost", "d") == (
        'agentId "ghost" is not in the configured agent registry (allowed: coder, main)'
    )
    assert error(spawn_config(allowAgents=["*"]), "coder", "e") is None


def test_model_and_thinking_ladders(make_workspace) -> None:
    config = spawn_config(thinking="high")
    config["agents"]["defaults"]["subagents"] = {"thinking": "low"}
    ws = make_workspace({"AGENTS.md": "a"}, config=config)
    self_spawn = Inspector(ws).spawn()
    assert self_spawn.model.value == "p/main"  # the target's own model (same agent)
    assert self_spawn.thinking.value == "high"
    assert "requester" in self_spawn.thinking.source
    other = Inspector(ws, scenario={"target": "coder"})
    assert other.spawn().model.value == "p/coder"


# --- choosing the profile by version -------------------------------------------------------


def render_json(ws: Path, *args: str) -> dict[str, Any]:
    out = ctxscope("render", ws, "--format", "json", *args)
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


@pytest.mark.parametrize(
    ("touched", "profile", "warned"),
    [
        ("2026.2.19", "openclaw-2026.2", False),
        ("2026.2.3", "openclaw-2026.2", False),
        ("2026.9.6", "openclaw-2026.9", False),
        ("2026.5.1", "openclaw-2026.2", True),
        ("2027.1.4", "openclaw-2026.9", True),
    ],
)
def test_meta_last_touched_version_picks_the_profile(
    tmp_path: Path, touched: str, profile: str, warned: bool
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a")
    (ws / "openclaw.json").write_text(json.dumps({"meta": {"lastTouchedVersion": touched}}))
    data = render_json(ws)
    assert data["profile"] == profile
    assert data["runtime_version"] == touched
    assert data["profile_choice"] == "meta.lastTouchedVersion in openclaw.json"
    warnings = [d["message"] for d in data["diagnostics"] if d["code"] == "runtime-version"]
    assert bool(warnings) == warned
    if touched == "2027.1.4":
        assert (
            "2027.1.4 is newer than the newest version ctxscope models (2026.9.6)" in (warnings[0])
        )


def fake_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `openclaw` 2026.2.19 package put on PATH (its launcher does nothing); the version
    lookup's cache cleared. The caller clears it again when done."""
    package = tmp_path / "lib" / "node_modules" / "openclaw"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "openclaw", "version": "2026.2.19"}')
    (package / "openclaw.mjs").write_text("")
    (package / "openclaw.mjs").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "openclaw").symlink_to(package / "openclaw.mjs")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    versions.installed_openclaw.cache_clear()
    return package


def test_an_installed_openclaw_is_found_on_path(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    package = fake_install(tmp_path, monkeypatch)
    try:
        ws = tmp_path / "ws"
        ws.mkdir()
        (ws / "AGENTS.md").write_text("a")
        inspector = Inspector(ws)
        assert inspector.profile.name == "openclaw-2026.2"
        assert inspector.inputs.runtime.how == f"the openclaw installed at {package}"
    finally:
        versions.installed_openclaw.cache_clear()


def test_the_path_lookup_finds_what_shutil_which_finds(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import shutil

    plain, folder, runnable = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (plain, folder, runnable):
        d.mkdir()
    (plain / "openclaw").write_text("not executable")
    (folder / "openclaw").mkdir()
    (folder / "openclaw").chmod(0o755)
    (runnable / "openclaw").write_text("")
    (runnable / "openclaw").chmod(0o755)
    for path in (
        os.pathsep.join(map(str, (plain, folder, runnable))),
        os.pathsep.join(map(str, (plain, folder))),
        f"{os.pathsep}{runnable}",
        "",
    ):
        monkeypatch.setenv("PATH", path)
        assert versions._on_path("openclaw") == shutil.which("openclaw"), path
    assert versions._on_path("openclaw") is None
    monkeypatch.setenv("PATH", str(runnable))
    assert versions._on_path("openclaw") == str(runnable / "openclaw")


def test_without_a_version_the_newest_modelled_one(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", str(tmp_path))  # no openclaw, no npm
    versions.installed_openclaw.cache_clear()
    try:
        (tmp_path / "AGENTS.md").write_text("a")
        runtime = Inspector(tmp_path).inputs.runtime
        assert (runtime.profile, runtime.version) == ("openclaw-2026.9", "2026.9.6")
    finally:
        versions.installed_openclaw.cache_clear()


def test_one_workspace_under_both_versions(tmp_path: Path) -> None:
    """What users ask about first: the file set, the subagent's files, USER.md, the budget."""
    ws = tmp_path / "ws"
    ws.mkdir()
    for name in EIGHT:
        (ws / name).write_text(name[0] * 30_000)
    (ws / "USER.md").write_text("u" * 6000)
    old, new = (render_json(ws, "--profile", p) for p in ("openclaw-2026.2", "openclaw-2026.9"))
    status = {d["profile"]: {f["name"]: f for f in d["files"]} for d in (old, new)}
    v2, v9 = status["openclaw-2026.2"], status["openclaw-2026.9"]
    assert v2["TOOLS.md"]["status"] == "truncated" and v9["TOOLS.md"]["status"] == "not-injected"
    assert v2["USER.md"]["status"] == "injected" and v9["USER.md"]["injected_chars"] <= 4000
    total2 = sum(f["injected_chars"] for f in v2.values())
    total9 = sum(f["injected_chars"] for f in v9.values())
    assert total9 <= 60_000 < total2
    sub = {
        p: render_json(ws, "--profile", p, "--session-key", "agent:main:subagent:x")
        for p in ("openclaw-2026.2", "openclaw-2026.9")
    }
    injected = {
        p: {f["name"] for f in d["files"] if f["status"] in ("injected", "truncated")}
        for p, d in sub.items()
    }
    assert injected == {
        "openclaw-2026.2": {"AGENTS.md", "TOOLS.md"},
        "openclaw-2026.9": {"AGENTS.md"},
    }


# --- check ---------------------------------------------------------------------------------


def test_check_leaves_a_rye_only_project_alone_and_scopes_are_stable(tmp_path: Path) -> None:
    from tests.rye.conftest import Space

    space = Space(tmp_path / "rye")
    space.directive("project/hello", permissions="<fetch>*</fetch>")
    out = ctxscope("check", space.root, "--format", "json")
    assert out.returncode == 0, out.stdout
    # An OpenClaw project with a problem in the spawned child: the same finding both runs.
    ws = tmp_path / "oc"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a" * 30_000)
    runs = [json.loads(ctxscope("check", ws, "--format", "json").stdout) for _ in range(2)]
    assert runs[0] == runs[1]
    scopes = {f["scope"] for f in runs[0]["findings"]}
    assert "agent:main:subagent:<child>" in scopes


def test_the_config_and_the_installed_runtime_disagree(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    package = fake_install(tmp_path, monkeypatch)
    try:
        ws = tmp_path / "ws"
        ws.mkdir()
        (ws / "AGENTS.md").write_text("a")
        config = ws / "openclaw.json"
        config.write_text('{\n  "meta": {\n    "lastTouchedVersion": "2026.9.6"\n  }\n}\n')
        inspector = Inspector(ws)
        assert inspector.profile.name == "openclaw-2026.9"
        [warning] = [d for d in inspector.report().diagnostics if d.code == "runtime-version"]
        assert "last written by OpenClaw 2026.9.6" in warning.message
        assert f"the openclaw installed at {package} is 2026.2.19" in warning.message
        assert "ctxscope uses 2026.9.6" in warning.message
        assert (warning.path, warning.line) == (str(config), 3)
        # They agree: nothing to say.
        config.write_text('{"meta": {"lastTouchedVersion": "2026.2.19"}}')
        again = Inspector(ws).report().diagnostics
        assert not [d for d in again if d.code == "runtime-version"]
    finally:
        versions.installed_openclaw.cache_clear()
