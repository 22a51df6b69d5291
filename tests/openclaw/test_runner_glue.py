"""What OpenClaw's runner adds around the prompt builder, in both modelled releases: each
class of difference found by comparing ctxscope with what the runtime sends. Facts are read
from each release's `dist/` (the region named in each test)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.core.model import Session

PROFILES = ("openclaw-2026.2", "openclaw-2026.9")


def write(root: Path, files: dict[str, str], profile: str, config: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "ctxscope.yaml").write_text(f"profile: {profile}\n", encoding="utf-8")
    if config is not None:
        (root / "openclaw.json").write_text(config, encoding="utf-8")
    return root


def session(ws: Path, key: str = "agent:main:main", **scenario: Any) -> Session:
    return Inspector(ws, scenario=scenario or None).session(key)


def chars(s: Session, section: str) -> int:
    found = s.section(section)
    assert found is not None, section
    return found.chars


# --- Workspace: the runner's reminder while BOOTSTRAP.md is loaded ---------------------------
# attempt-bootstrap-prepare.ts (2026.9) / the embedded runner (2026.2): a workspace note
# "Reminder: commit your changes in this workspace after edits." (one line) when a bootstrap
# file of the session is BOOTSTRAP.md and not missing.
REMINDER = len("Reminder: commit your changes in this workspace after edits.") + 1


@pytest.mark.parametrize("profile", PROFILES)
def test_the_workspace_section_gains_the_commit_reminder_with_bootstrap(
    profile: str, tmp_path: Path
) -> None:
    files = {"AGENTS.md": "a", "SOUL.md": "s", "IDENTITY.md": "i", "USER.md": "u"}
    without = session(write(tmp_path / "a", files, profile))
    with_boot = session(write(tmp_path / "b", {**files, "BOOTSTRAP.md": "set up"}, profile))
    assert chars(with_boot, "workspace") == chars(without, "workspace") + REMINDER
    assert "reminder to commit" in with_boot.section("workspace").rule  # type: ignore[union-attr]
    # An empty BOOTSTRAP.md is still a loaded file (not missing).
    empty = session(write(tmp_path / "c", {**files, "BOOTSTRAP.md": "  \n"}, profile))
    assert chars(empty, "workspace") == chars(without, "workspace") + REMINDER
    # A subagent never loads BOOTSTRAP.md: no reminder.
    ws = tmp_path / "b"
    sub = session(ws, "agent:main:subagent:x")
    main_len = chars(with_boot, "workspace")
    assert chars(sub, "workspace") == main_len - REMINDER


# --- 2026.9: the default heartbeat block is taken out of context files ----------------------
# system-prompt-context-files.ts: sanitizeContextFileContentForPrompt removes the default
# heartbeat prompt's block, then collapses 3+ newlines. 2026.9.6 itself turned this SOUL.md
# into "soul\n\nend".

HEARTBEAT_BLOCK = (
    "Default heartbeat prompt:\n`Read HEARTBEAT.md if it exists (workspace context). Follow it "
    "strictly. If nothing needs attention, reply HEARTBEAT_OK.`"
)


@pytest.mark.parametrize(
    ("profile", "kept"), [("openclaw-2026.2", True), ("openclaw-2026.9", False)]
)
def test_the_default_heartbeat_block_is_stripped_from_context_files(
    profile: str, kept: bool, tmp_path: Path
) -> None:
    soul = f"soul\n\n{HEARTBEAT_BLOCK}\nend"
    s = session(write(tmp_path, {"AGENTS.md": "a", "SOUL.md": soul}, profile))
    sec = s.section("file:SOUL.md")
    assert sec is not None
    body = sec.text.split("\n", 1)[1]
    assert body == (soul if kept else "soul\n\nend")
    # A block that is not the default prompt stays.
    other = "soul\n\nDefault heartbeat prompt:\n`Check the inbox; reply HEARTBEAT_OK.`"
    s = session(write(tmp_path / "b", {"AGENTS.md": "a", "SOUL.md": other}, profile))
    assert s.section("file:SOUL.md").text.endswith(other.split("\n\n", 1)[1])  # type: ignore[union-attr]


# --- 2026.2: Heartbeats quotes the heartbeat prompt for the default agent only --------------
# The embedded runner passes `heartbeatPrompt` only when the session's agent is the default
# one (resolveHeartbeatPrompt: the configured prompt trimmed, else the 170-char default); the
# builder writes "Heartbeat prompt: (configured)" otherwise.

TWO = '{"agents": {"list": [{"id": "main"}, {"id": "coder", "workspace": "."}]}}'


def test_heartbeats_quote_the_prompt_for_the_default_agent_only(tmp_path: Path) -> None:
    ws = write(tmp_path, {"AGENTS.md": "a"}, "openclaw-2026.2", TWO)
    main = chars(session(ws), "heartbeats")
    coder = session(ws, "agent:coder:main")
    assert chars(coder, "heartbeats") == main - 170 + len("(configured)")
    assert "not the default agent" in coder.section("heartbeats").rule  # type: ignore[union-attr]


def test_a_custom_heartbeat_prompt_replaces_the_default(tmp_path: Path) -> None:
    default = session(write(tmp_path / "a", {"AGENTS.md": "a"}, "openclaw-2026.2"))
    prompt = "Check the inbox; reply HEARTBEAT_OK."
    config = json.dumps({"agents": {"defaults": {"heartbeat": {"prompt": f"  {prompt} \n"}}}})
    custom = session(write(tmp_path / "b", {"AGENTS.md": "a"}, "openclaw-2026.2", config))
    assert chars(custom, "heartbeats") == chars(default, "heartbeats") - 170 + len(prompt)
    # 2026.9 has no Heartbeats section at all.
    assert (
        session(write(tmp_path / "c", {"AGENTS.md": "a"}, "openclaw-2026.9")).section("heartbeats")
        is None
    )


# --- Documentation: which docs folder the runtime names ------------------------------------
# docs-path.ts: the workspace's docs/, else the installed package's docs/; 2026.2 takes a
# folder that exists, 2026.9 only one holding docs.json. The runtime always runs from an
# install, so without one found ctxscope stands in an npm global install's path.


@pytest.fixture
def no_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxscope.runtimes.openclaw import versions

    monkeypatch.setattr(versions, "installed_openclaw", lambda: None)


@pytest.mark.parametrize(
    ("profile", "named"), [("openclaw-2026.2", True), ("openclaw-2026.9", False)]
)
def test_a_workspace_docs_folder_without_docs_json(
    profile: str, named: bool, tmp_path: Path, no_install: None
) -> None:
    ws = write(tmp_path, {"AGENTS.md": "a", "docs/guide.md": "g"}, profile)
    doc = session(ws).section("documentation")
    assert doc is not None
    assert (str(ws / "docs") in doc.rule) is named
    (ws / "docs" / "docs.json").write_text("{}")
    doc = session(ws).section("documentation")
    assert doc is not None and str(ws / "docs") in doc.rule


@pytest.mark.parametrize("profile", PROFILES)
def test_documentation_without_an_install_is_a_stand_in(
    profile: str, tmp_path: Path, no_install: None
) -> None:
    ws = write(tmp_path, {"AGENTS.md": "a"}, profile)
    doc = session(ws).section("documentation")
    assert doc is not None and "stand-in" in doc.rule
    path = "/usr/local/lib/node_modules/openclaw/docs"
    with_docs = write(tmp_path / "b", {"AGENTS.md": "a", "docs/docs.json": "{}"}, profile)
    named = session(with_docs).section("documentation")
    assert named is not None
    assert doc.chars == named.chars - len(str(with_docs / "docs")) + len(path)


# --- Runtime: without a configured model the runtime names its built-in default ------------
# 2026.2: anthropic/claude-opus-4-6 (model-selection); 2026.9: openai/gpt-6-astra (defaults),
# on the Runtime line and (2026.9) in the model identity line.


@pytest.mark.parametrize(
    ("profile", "default"),
    [("openclaw-2026.2", "anthropic/claude-opus-4-6"), ("openclaw-2026.9", "openai/gpt-6-astra")],
)
def test_the_runtime_section_without_a_configured_model(
    profile: str, default: str, tmp_path: Path
) -> None:
    ws = write(tmp_path, {"AGENTS.md": "a"}, profile)
    unset = session(ws).section("runtime")
    named = session(ws, model=default).section("runtime")
    assert unset is not None and named is not None
    assert unset.chars == named.chars
    assert f"model={default}" in unset.text and f"the runtime's default {default}" in unset.rule


# --- A nested child's requester is its parent subagent --------------------------------------
# The spawning session at depth 1 is a subagent (agent:<id>:subagent:<uuid>); the child's
# Subagent Context names it under "Requester session".


@pytest.mark.parametrize("profile", PROFILES)
def test_a_depth_two_child_names_its_parent_subagent(profile: str, tmp_path: Path) -> None:
    config = '{"agents": {"defaults": {"subagents": {"maxSpawnDepth": 3}}}}'
    ws = write(tmp_path, {"AGENTS.md": "a"}, profile, config)
    nested = Inspector(ws, scenario={"depth": 1, "task": "t"}).spawn(run_scripts=False).child
    first = Inspector(ws, scenario={"task": "t"}).spawn(run_scripts=False).child
    sec = nested.section("subagent_context")
    assert sec is not None and "requester session: agent:main:subagent:" in sec.text
    assert "requester session: agent:main:main" in first.section("subagent_context").text  # type: ignore[union-attr]
    # The same key every time (a made-up, stable id), unless the scenario names the session.
    again = Inspector(ws, scenario={"depth": 1, "task": "t"}).spawn(run_scripts=False).child

    def requester(text: str) -> str:
        return next(line for line in text.splitlines() if "requester session" in line)

    assert requester(again.section("subagent_context").text) == requester(sec.text)  # type: ignore[union-attr]


# --- Which folder an agent without its own `workspace` runs in ------------------------------
# agent-scope: 2026.2 runs the default agent in the default workspace and any other agent in
# `<state dir>/workspace-<id>`; 2026.9 runs the agent that owns the default workspace (the one
# marked default, else the only one) there, any other in `<agents.defaults.workspace>/<id>`,
# else `<state dir>/workspace-<id>`. The state dir holds openclaw.json.


def workspace_of(ins: Inspector, agent: str) -> Path:
    return Path(ins.session(f"agent:{agent}:main").workspace)


def test_2026_2_a_non_default_agent_runs_in_its_own_state_folder(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ws = write(state / "workspace", {"AGENTS.md": "a"}, "openclaw-2026.2")
    (state / "openclaw.json").write_text(
        json.dumps(
            {
                "agents": {
                    "defaults": {"workspace": "./workspace"},
                    "list": [{"id": "main"}, {"id": "coder"}],
                }
            }
        )
    )
    ins = Inspector(ws)
    assert workspace_of(ins, "main") == ws
    assert workspace_of(ins, "coder") == state / "workspace-coder"


def test_2026_9_agents_run_under_the_defaults_workspace(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ws = write(state / "workspace", {"AGENTS.md": "a"}, "openclaw-2026.9")
    (ws / "main").mkdir()
    (ws / "main" / "AGENTS.md").write_text("main's own")
    config = state / "openclaw.json"
    # agents.entries with explicit ownership: even main runs in <defaults.workspace>/main.
    config.write_text(
        '{"agents": {"ownership": "explicit", "defaults": {"workspace": "./workspace"},'
        ' "entries": {"main": {}, "coder": {}}}}'
    )
    ins = Inspector(ws)
    assert workspace_of(ins, "main") == ws / "main"
    assert workspace_of(ins, "coder") == ws / "coder"
    main = ins.session("agent:main:main").file("AGENTS.md")
    assert main is not None and main.body == "main's own"
    # One agent marked default owns the default workspace; without defaults.workspace the
    # others run in the state folder.
    config.write_text('{"agents": {"entries": {"main": {"default": true}, "coder": {}}}}')
    ins = Inspector(ws)
    assert workspace_of(ins, "main") == ws
    assert workspace_of(ins, "coder") == state / "workspace-coder"


# --- First run without an install: the release's templates stand in by their measured size ---
# workspace.ts (2026.9) / agent-scope (2026.2): ensureAgentWorkspace writes each absent file
# from docs/reference/templates before the prompt is built; the sizes are facts measured on
# each release's templates (openclaw/facts/<profile>.json), the text is not shown.
MEASURED = {
    "openclaw-2026.2": {"SOUL.md": 1664, "TOOLS.md": 850, "BOOTSTRAP.md": 1449},
    "openclaw-2026.9": {"SOUL.md": 1561, "IDENTITY.md": 1398, "BOOTSTRAP.md": 7822},
}


@pytest.mark.parametrize("profile", PROFILES)
def test_first_run_without_an_install_shows_the_measured_template_sizes(
    profile: str, tmp_path: Path, no_install: None
) -> None:
    ws = write(tmp_path, {"AGENTS.md": "a"}, profile)
    s = session(ws)
    [note] = [d for d in s.diagnostics if d.code == "first-run"]
    assert "SOUL.md" in note.message and "measured on OpenClaw 2026." in note.message
    assert "text is not shown" in note.message
    for name, chars in MEASURED[profile].items():
        f = s.file(name)
        assert f is not None and f.status == "first-run" and f.stand_in, name
        assert (f.raw_chars, f.injected_chars) == (chars, chars), name
        assert "measured stand-in" in f.reason
        section = s.section(f"file:{name}")
        assert section is not None and section.placeholder, name
        # The size the runtime sends: its heading line and the template, not the stand-in.
        assert section.chars == len(section.heading) + 1 + chars
        assert f.to_dict()["stand_in"] is True
    assert s.file("AGENTS.md").status == "injected"  # type: ignore[union-attr]
    # The workspace's own AGENTS.md is kept; nothing is written in the folder.
    assert sorted(p.name for p in ws.iterdir()) == ["AGENTS.md", "ctxscope.yaml"]
    (ws / "openclaw.json").write_text('{"agents": {"defaults": {"skipBootstrap": true}}}')
    s = session(ws)
    assert not [d for d in s.diagnostics if d.code == "first-run"]
    assert s.file("SOUL.md").status == "missing"  # type: ignore[union-attr]


def test_a_stand_in_template_over_the_limit_is_cut_as_its_text_would_be(
    tmp_path: Path, no_install: None
) -> None:
    """2026.2 cuts a template over bootstrapMaxChars to 70 % head + marker + 20 % tail: the
    same size whatever the text, so the stand-in's is known."""
    config = '{"agents": {"defaults": {"bootstrapMaxChars": 1000}}}'
    ws = write(tmp_path, {"AGENTS.md": "a"}, "openclaw-2026.2", config)
    soul = session(ws).file("SOUL.md")
    assert soul is not None and soul.raw_chars == 1664
    marker = len(
        "\n\n[...truncated, read SOUL.md for full content...]\n"
        "…(truncated SOUL.md: kept 700+200 chars of 1664)…\n\n"
    )
    assert soul.injected_chars == 700 + marker + 200


def test_an_agent_folder_not_made_yet_is_seeded_whole(tmp_path: Path, no_install: None) -> None:
    """2026.9 with explicit ownership: main runs in `<defaults.workspace>/main`, which its
    first run makes and fills with every template, BOOTSTRAP.md too (a brand-new folder)."""
    config = json.dumps(
        {
            "meta": {"lastTouchedVersion": "2026.9.6"},
            "agents": {
                "ownership": "explicit",
                "defaults": {"workspace": str(tmp_path / "ws")},
                "entries": {"main": {}, "coder": {}},
            },
        }
    )
    ws = write(tmp_path / "ws", {"README.md": "not an agent's folder"}, "openclaw-2026.9", config)
    s = session(ws)
    assert s.workspace == str(ws / "main")
    assert not [d for d in s.diagnostics if d.severity == "error"], s.diagnostics
    seeded = {f.name: f.injected_chars for f in s.files if f.status == "first-run"}
    assert seeded == {
        "AGENTS.md": 6305,
        "SOUL.md": 1561,
        "IDENTITY.md": 1398,
        "USER.md": 1136,
        "BOOTSTRAP.md": 7822,
    }
    assert not (ws / "main").exists()


# --- A folder its first run seeds whole is made a git repository ----------------------------
# workspace.ts / agent-scope: ensureGitRepo runs `git init` in a brand-new folder; the Runtime
# line then names it (`repo=`), and 2026.9's runner adds its project-memory instruction under
# `## Conversation Context` (system-prompt-params: the instruction's text without its key is
# 208 chars; the key is `path:<root>`).


@pytest.mark.parametrize("profile", PROFILES)
def test_a_new_folder_seeded_on_its_first_run_is_named_as_a_repository(
    profile: str, tmp_path: Path, no_install: None
) -> None:
    new = write(tmp_path / "new", {}, profile)
    runtime = session(new).section("runtime")
    assert runtime is not None and f"repo={new}" in runtime.text
    memory = session(new).section("conversation_context")
    if profile == "openclaw-2026.9":
        assert memory is not None
        assert memory.chars == len("## Conversation Context\n") + 208 + len(f"path:{new}")
    else:
        assert memory is None
    # A folder with the user's own files is not new; skipBootstrap writes nothing, inits none.
    mine = write(tmp_path / "mine", {"AGENTS.md": "a"}, profile)
    no_seed = '{"agents": {"defaults": {"skipBootstrap": true}}}'
    skip = write(tmp_path / "skip", {}, profile, no_seed)
    for ws in (mine, skip):
        s = session(ws)
        assert "repo=" not in s.section("runtime").text  # type: ignore[union-attr]
        assert s.section("conversation_context") is None
