"""The section skeleton, conditional sections, the subagent prompt and task message,
profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.profiles import ProfileError, load_profile
from tests.conftest import WorkspaceFactory, pinned


@pytest.fixture
def make_workspace(make_workspace: WorkspaceFactory) -> WorkspaceFactory:
    """These tests pin OpenClaw 2026.2.19's rules (2026.9's are in test_openclaw_2026_9)."""
    return pinned(make_workspace, "openclaw-2026.2")


FULL = [
    "## Tooling",
    "## Tool Call Style",
    "## Safety",
    "## OpenClaw CLI Quick Reference",
    "",  # the session_status hint, under no heading
    "## Workspace",
    # The runtime names its own install's docs folder (no install found: a stand-in path).
    "## Documentation",
    "## Current Date & Time",
    "## Workspace Files (injected)",
    "## Reply Tags",
    "## Messaging",
    "# Project Context",
    "<files>",
    "## Silent Replies",
    "## Heartbeats",
    "## Runtime",
]
MINIMAL = [
    "## Tooling",
    "## Tool Call Style",
    "## Safety",
    "## OpenClaw CLI Quick Reference",
    "",
    "## Workspace",
    "## Current Date & Time",
    "## Workspace Files (injected)",
    "## Subagent Context",
    "# Project Context",
    "<files>",
    "## Runtime",
]


def headings(session) -> list[str]:
    out: list[str] = []
    for sec in session.sections[1:]:  # [0] is the identity line
        if sec.id.startswith("file:"):
            if out[-1] != "<files>":
                out.append("<files>")
        else:
            out.append(sec.heading)
    return out


def test_full_skeleton_in_measured_order(make_workspace):
    ws = make_workspace({"AGENTS.md": "a", "SOUL.md": "s"})
    s = Inspector(ws).session()
    assert s.sections[0].id == "identity" and s.sections[0].heading == ""
    # The skills bundled with the runtime are listed, and the tools the runtime sends (its
    # catalog: the memory tools and `gateway` among them) bring Memory Recall and the
    # self-update section.
    extra = ["## Skills (mandatory)", "## Memory Recall", "## OpenClaw Self-Update"]
    assert headings(s) == [*FULL[:4], *extra, *FULL[4:]]


def test_minimal_skeleton_for_subagents(make_workspace):
    ws = make_workspace({"AGENTS.md": "a", "SOUL.md": "s"})
    s = Inspector(ws).session("agent:main:subagent:x")
    assert headings(s) == MINIMAL


def test_cron_minimal_has_no_subagent_context(make_workspace):
    s = Inspector(make_workspace({"AGENTS.md": "a"})).session("agent:main:cron:j")
    assert "## Subagent Context" not in headings(s)
    assert s.prompt_mode == "minimal"


def test_sections_joined_without_blank_lines_and_headings_exact(make_workspace):
    ws = make_workspace({"AGENTS.md": "agents body"})
    s = Inspector(ws).session()
    assert s.system_prompt == "\n".join(sec.text for sec in s.sections)
    agents = s.section("file:AGENTS.md")
    assert agents.heading == f"## {ws / 'AGENTS.md'}"
    assert agents.text == f"## {ws / 'AGENTS.md'}\nagents body"
    assert all(sec.text.startswith(sec.heading) for sec in s.sections)


def test_project_context_omitted_when_no_file_is_left(make_workspace):
    ws = make_workspace({}, config={"agents": {"defaults": {"bootstrapTotalMaxChars": 0}}})
    s = Inspector(ws).session()
    assert "# Project Context" not in headings(s)


def test_runtime_placeholders_are_marked_with_a_typical_size(make_workspace):
    s = Inspector(make_workspace({"AGENTS.md": "a"})).session()
    safety = s.section("safety")
    assert safety.placeholder and safety.source == "runtime"
    assert "runtime text" in safety.text and "552 chars" in safety.text
    assert safety.tokens == -(-(len("## Safety") + 1 + 552) // 4)
    assert not s.section("file:AGENTS.md").placeholder


def test_runtime_line_carries_model_channel_thinking(make_workspace):
    # Not a new folder (a new one is made a git repository on its first run: `repo=`).
    config = {"agents": {"defaults": {"model": {"primary": "p/m"}}}}
    ws = make_workspace({"AGENTS.md": "a"}, config=config)
    s = Inspector(ws, scenario={"channel": "telegram", "thinking": "high"}).session()
    runtime = s.section("runtime")
    line = (
        "Runtime: agent=main | model=p/m | default_model=p/m | channel=telegram | "
        "capabilities=none | thinking=high"
    )
    assert runtime.text.endswith("\n" + line)
    # The runtime's line plus its reasoning line; the machine's host/os/node/shell not counted.
    assert runtime.placeholder and runtime.chars == len("## Runtime\n") + len(line) + 99


def test_tokens_are_estimates_per_section_and_total(make_workspace):
    s = Inspector(make_workspace({"AGENTS.md": "x" * 401})).session()
    agents = s.section("file:AGENTS.md")
    assert agents.tokens == -(-agents.chars // 4)
    assert s.tokens.system == sum(sec.tokens for sec in s.sections)
    assert s.tokens.total == s.tokens.system + s.tokens.tools + s.tokens.messages
    assert s.tokens.task == 0 and s.tokens.tools > 0
    assert s.context_window == 200000
    assert s.tokenizer == "≈estimate"


def test_context_window_from_config(make_workspace):
    ws = make_workspace({}, config={"agents": {"defaults": {"contextTokens": 32000}}})
    assert Inspector(ws).session().context_window == 32000


# -- conditional sections ----------------------------------------------------------------

SKILL = "---\nname: {name}\ndescription: Does {name} things.\n---\nBody.\n"


def skills_ws(make_workspace, agent_skills=None):
    agent: dict[str, object] = {"id": "main"}
    if agent_skills is not None:
        agent["skills"] = agent_skills
    return make_workspace(
        {
            "skills/alpha/SKILL.md": SKILL.format(name="alpha"),
            "skills/beta/SKILL.md": SKILL.format(name="beta"),
        },
        config={"agents": {"list": [agent]}},
    )


def test_skills_section_lists_workspace_skills(make_workspace):
    s = Inspector(skills_ws(make_workspace)).session()
    sec = s.section("skills")
    assert sec.heading == "## Skills (mandatory)"
    assert "<name>alpha</name>" in sec.text and "<name>beta</name>" in sec.text
    assert "Does alpha things." in sec.text
    assert headings(s).index("## Skills (mandatory)") == 4


def test_skills_allowlist_filters_and_empty_means_none(make_workspace):
    s = Inspector(skills_ws(make_workspace, ["beta"])).session()
    assert "<name>alpha</name>" not in s.section("skills").text
    s2 = Inspector(skills_ws(make_workspace, [])).session()
    assert s2.section("skills") is None


def test_no_skills_section_for_subagents(make_workspace):
    s = Inspector(skills_ws(make_workspace)).session("agent:main:subagent:x")
    assert s.section("skills") is None


def test_memory_recall_only_with_memory_tools_in_full_mode(make_workspace):
    ws = make_workspace({})
    assert Inspector(ws, scenario={"tools": ["read"]}).session().section("memory_recall") is None
    insp = Inspector(ws, scenario={"tools": ["read", "memory_search"]})
    assert "memory_search" in insp.session().section("memory_recall").text
    assert insp.session("agent:main:subagent:x").section("memory_recall") is None
    assert "- memory_search: " in insp.session().section("tooling").text


def test_model_aliases_when_configured(make_workspace):
    ws = make_workspace(
        {},
        config={
            "agents": {
                "defaults": {"models": {"anthropic/claude-opus-4-5": {"alias": "opus"}, "x/y": {}}}
            }
        },
    )
    s = Inspector(ws).session()
    assert s.section("model_aliases").text.endswith("- opus: anthropic/claude-opus-4-5")
    assert Inspector(ws).session("agent:main:subagent:q").section("model_aliases") is None
    assert Inspector(make_workspace({}, name="b")).session().section("model_aliases") is None


def test_sandbox_voice_user_identity_when_configured(make_workspace):
    ws = make_workspace(
        {},
        config={
            "agents": {"defaults": {"sandbox": {"mode": "all"}}},
            "messages": {"tts": {"auto": "always"}},
            "commands": {"ownerAllowFrom": ["+15550001"]},
        },
    )
    full = Inspector(ws).session()
    assert full.section("sandbox") and full.section("voice") and full.section("user_identity")
    sub = Inspector(ws).session("agent:main:subagent:q")
    assert sub.section("sandbox") is not None
    assert sub.section("voice") is None and sub.section("user_identity") is None


def test_mode_none_is_only_the_identity_line(make_workspace):
    ws = make_workspace({"AGENTS.md": "a"})
    s = Inspector(ws, scenario={"prompt_mode": "none"}).session()
    assert s.system_prompt == "You are a personal assistant running inside OpenClaw."
    assert s.file("AGENTS.md").status == "excluded"
    assert "prompt mode none" in s.file("AGENTS.md").reason


# -- subagent prompt and task message ------------------------------------------------------


def test_task_message_exact_with_depth_from_config(make_workspace):
    ws = make_workspace({}, config={"agents": {"defaults": {"subagents": {"maxSpawnDepth": 3}}}})
    s = Inspector(ws, scenario={"task": "  Summarise the logs  ", "depth": 1}).session(
        "agent:main:subagent:abc"
    )
    assert s.task_message == (
        "[Subagent Context] You are running as a subagent (depth 2/3). Results auto-announce "
        "to your requester; do not busy-poll for status.\n\n[Subagent Task]: Summarise the logs"
    )
    assert s.tokens.task == -(-len(s.task_message) // 4)


def test_subagent_context_carries_task_label_and_session_keys(make_workspace):
    ws = make_workspace({})
    s = Inspector(ws, scenario={"task": "Check the build", "label": "ci"}).session(
        "agent:main:subagent:abc"
    )
    text = s.section("subagent_context").text
    assert "Check the build" in text
    assert "label: ci" in text
    assert "requester session: agent:main:main" in text
    assert "your session: agent:main:subagent:abc" in text


def test_spawning_paragraph_depends_on_depth(make_workspace):
    deep = {"agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}}}
    ws = make_workspace({}, config=deep)
    can = Inspector(ws, scenario={"depth": 0}).session("agent:main:subagent:a")
    assert "You may spawn your own subagents" in can.section("subagent_context").text
    leaf = Inspector(ws, scenario={"depth": 1}).session("agent:main:subagent:a")
    assert "leaf worker at depth 2 of 2" in leaf.section("subagent_context").text
    shallow = Inspector(make_workspace({}, name="w2")).session("agent:main:subagent:a")
    assert "Spawning" not in shallow.section("subagent_context").text


# -- per-agent workspaces ------------------------------------------------------------------


def test_agent_workspace_override_is_read_for_that_agent(make_workspace):
    ws = make_workspace(
        {"AGENTS.md": "main agents", "other/AGENTS.md": "coder agents"},
        config={"agents": {"list": [{"id": "main"}, {"id": "coder", "workspace": "./other"}]}},
    )
    s = Inspector(ws).session("agent:coder:subagent:z")
    assert s.workspace == str(ws / "other")
    assert "coder agents" in s.system_prompt and "main agents" not in s.system_prompt


def test_missing_agent_workspace_is_reported(make_workspace):
    """OpenClaw makes an agent's folder on its first run there and writes its templates
    (unless skipBootstrap): a folder not there yet is news, not an error."""
    agents = {"list": [{"id": "coder", "workspace": "/nope"}]}
    ws = make_workspace({}, config={"agents": agents})
    s = Inspector(ws).session("agent:coder:main")
    [note] = [d for d in s.diagnostics if d.code == "workspace-missing"]
    assert (note.path, note.severity) == ("/nope", "info")
    assert "does not exist yet" in note.message and "first run" in note.message
    assert s.file("AGENTS.md").status == "first-run"
    skip = {**agents, "defaults": {"skipBootstrap": True}}
    ws = make_workspace({}, config={"agents": skip}, name="skip")
    s = Inspector(ws).session("agent:coder:main")
    [note] = [d for d in s.diagnostics if d.code == "workspace-missing"]
    assert "skipBootstrap" in note.message
    assert s.file("AGENTS.md").status == "missing"


# -- profiles ------------------------------------------------------------------------------


def test_goclaw_plan_profile(make_workspace):
    ws = make_workspace({"AGENTS.md": "agents", "SOUL.md": "soul", "TOOLS.md": "tools"})
    insp = Inspector(ws, scenario={"profile": "goclaw-plan", "task": "Research X"})
    main = insp.session()
    assert main.system_prompt.startswith("You are a personal assistant running inside GoClaw.")
    assert main.section("safety") is not None
    assert main.section("file:AGENTS.md").heading == "## AGENTS.md"
    assert main.file("MEMORY.md").status == "missing"
    assert "If SOUL.md is present, embody its persona and tone." in main.system_prompt
    sub = insp.session("agent:main:spawn:abc123")
    assert sub.kind == "subagent"
    assert sub.system_prompt.startswith("You are a worker agent spawned to complete a specific")
    assert sub.section("safety") is None
    assert sub.sections[-1].heading == "## Task"
    assert sub.sections[-1].text == "## Task\nResearch X"
    assert "session=agent:main:spawn:abc123" in sub.section("runtime").text
    assert "\n\n## Runtime" in sub.system_prompt


def test_user_profile_file(tmp_path: Path, make_workspace):
    text = (
        Path(__file__).parent.parent / "src/ctxscope/runtimes/profiles/openclaw-2026.2.yaml"
    ).read_text()
    text = text.replace("name: openclaw-2026.2", "name: mine").replace(
        "subagent: [AGENTS.md, TOOLS.md]", "subagent: [AGENTS.md, SOUL.md]"
    )
    prof = tmp_path / "mine.yaml"
    prof.write_text(text)
    ws = make_workspace({"AGENTS.md": "a", "SOUL.md": "s", "TOOLS.md": "t"})
    s = Inspector(ws, scenario={"profile": str(prof)}).session("agent:main:subagent:x")
    assert s.profile == "mine"
    assert s.file("SOUL.md").status == "injected"
    assert s.file("TOOLS.md").status == "excluded"
    assert not [
        d
        for d in Inspector(ws, scenario={"profile": str(prof)}).diagnostics
        if d.code == "profile-family"
    ]


def test_a_profile_of_a_family_no_runtime_has_is_named_with_its_file(
    tmp_path: Path, make_workspace
) -> None:
    """A typo in `family:` builds the sessions as OpenClaw builds them, and says so."""
    text = (
        Path(__file__).parent.parent / "src/ctxscope/runtimes/profiles/openclaw-2026.2.yaml"
    ).read_text()
    prof = tmp_path / "mine.yaml"
    prof.write_text(text.replace("family: openclaw", "family: openclw"))
    ws = make_workspace({"AGENTS.md": "a"})
    inspector = Inspector(ws, scenario={"profile": str(prof)})
    found = [d for d in inspector.diagnostics if d.code == "profile-family"]
    assert len(found) == 1 and (found[0].path, found[0].line) == (str(prof), 6)
    assert "'openclw'" in found[0].message and "goclaw, openclaw" in found[0].message
    assert inspector.session("agent:main:main").file("AGENTS.md").status == "injected"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("name: x\nsections: [{id: a, kind: bogus, modes: [full]}]\n", "kind 'bogus'"),
        ("name: x\nsections: []\n", "sections"),
        ("name: [unclosed\n", "invalid YAML"),
    ],
)
def test_bad_profile_files_name_the_problem(tmp_path: Path, text, fragment):
    prof = tmp_path / "bad.yaml"
    prof.write_text(text)
    with pytest.raises(ProfileError) as err:
        load_profile(str(prof))
    assert fragment in str(err.value) and str(prof) in str(err.value)


def test_unknown_profile_name():
    with pytest.raises(ProfileError, match="unknown profile 'nope'"):
        load_profile("nope")


def test_broken_skill_frontmatter_is_a_warning_with_its_line(make_workspace):
    ws = make_workspace(
        {
            "skills/bad/SKILL.md": "---\nname: bad\ndescription: [oops\n---\nx\n",
            "skills/good/SKILL.md": "---\nname: good\ndescription: fine\n---\nx\n",
        }
    )
    s = Inspector(ws).session()
    d = next(d for d in s.diagnostics if d.code == "skill-frontmatter")
    assert d.severity == "warning" and d.path == str(ws / "skills/bad/SKILL.md")
    assert d.message.startswith("skill frontmatter: invalid YAML")
    assert d.line == 4  # the block's end, where the parser noticed the open bracket
    assert "<name>good</name>" in s.section("skills").text  # the rest still builds
    bad = next(k for k in s.skills if k.name == "bad")
    assert not bad.listed and "no description" in bad.reason


def test_skills_without_a_description_and_the_defaults_list(make_workspace):
    files = {
        "skills/alpha/SKILL.md": "---\nname: alpha\ndescription: a\n---\n",
        "skills/beta/SKILL.md": "---\nname: beta\ndescription: b\n---\n",
        "skills/bare/SKILL.md": "---\nname: bare\n---\n",
    }
    config = {"agents": {"defaults": {"skills": ["beta"]}, "list": [{"id": "main"}]}}
    ws = make_workspace(files, config=config)
    v2 = Inspector(ws).session()  # 2026.2: the agent's own list only
    assert [k.name for k in v2.skills if k.listed] == ["alpha", "beta"]
    v9 = Inspector(ws, scenario={"profile": "openclaw-2026.9", "tools": ["read"]}).session()
    assert [k.name for k in v9.skills if k.listed] == ["beta"]
    assert "agents.defaults" in next(k for k in v9.skills if k.name == "alpha").reason
