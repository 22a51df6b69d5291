"""Config files, scenario files and the workspace now as sides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.diff import Base, SideError, compare_specs, parse_side

CONFIG = {
    "meta": {"lastTouchedVersion": "2026.9.6"},
    "agents": {
        # skipBootstrap: the folders as they are (no first-run template cut by the limits).
        "defaults": {"subagents": {"maxSpawnDepth": 2}, "skipBootstrap": True},
        "list": [
            {"id": "main", "default": True, "subagents": {"allowAgents": ["coder"]}},
            {"id": "coder", "workspace": "./coder"},
        ],
    },
}


@pytest.fixture
def ws(make_workspace) -> Path:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {
            "AGENTS.md": "# Agents\n" + "Follow the house rules.\n" * 40,
            "SOUL.md": "# Soul\nCalm.\n",
            "coder/AGENTS.md": "# Coder\nWrite tests.\n",
            "ctxscope.yaml": "requester: main\ntarget: coder\ntask: Fix CI\n",
        },
        config=CONFIG,
    )
    tight = json.loads(json.dumps(CONFIG))
    tight["agents"]["defaults"]["bootstrapMaxChars"] = 300
    (ws / "tight.json").write_text(json.dumps(tight))
    return ws


def session(result, key: str):  # type: ignore[no-untyped-def]
    return next(s for s in result.sessions if s.session_key == key)


def test_a_config_file_that_cuts_a_file(ws: Path):
    result = compare_specs(ws, "now", str(ws / "tight.json"))
    assert result.after.startswith("config ")
    main = session(result, "agent:main:main")
    agents = next(f for f in main.files if f.name == "AGENTS.md")
    assert agents.cut and not agents.lost
    assert "300-char limit" in agents.why
    assert main.delta < 0
    # The coder agent's own workspace is unaffected by the size of main's AGENTS.md.
    assert not session(result, "agent:coder:main").files


def test_a_scenario_file_whose_depth_forbids_the_spawn(ws: Path):
    deep = ws.parent / "deep.yaml"
    deep.write_text("requester: main\ntarget: coder\ntask: Fix CI\ndepth: 2\n")
    result = compare_specs(ws, "now", f"scenario:{deep}")
    child = next(s for s in result.sessions if s.role == "child")
    assert child.allowed == (True, False)
    depth = next(p for p in child.policy if p.check == "depth")
    assert depth.before == "ok" and depth.after.startswith("fails: sessions_spawn is not allowed")


def test_a_scenario_file_that_spawns_another_agent_pairs_the_children(ws: Path):
    other = ws.parent / "self.yaml"
    other.write_text("requester: main\ntarget: main\ntask: Fix CI\n")
    result = compare_specs(ws, "now", str(other))
    child = next(s for s in result.sessions if s.role == "child")
    assert child.session_key == "agent:main:subagent:diff"
    assert child.before_key == "agent:coder:subagent:diff"
    assert [s.role for s in result.sessions].count("child") == 1


def test_the_same_side_twice_changes_nothing(ws: Path):
    result = compare_specs(ws, "now", ".")
    assert not any(s.changed for s in result.sessions)
    assert len(result.sessions) == 3  # main, coder, the spawned child


def test_forced_kinds_name_what_is_wrong(ws: Path):
    base = Base(ws)
    with pytest.raises(SideError, match=r"config:nope\.json: no such file"):
        parse_side("config:nope.json", base)
    with pytest.raises(SideError, match="not a bundled profile"):
        parse_side("profile:openclaw-1999", base)
    assert parse_side("openclaw-2026.2", base).overrides["profile"] == "openclaw-2026.2"
    assert parse_side(str(ws / "openclaw.json"), base).kind == "config"


def test_a_broken_config_side_names_its_file(ws: Path):
    from ctxscope.runtimes.openclaw.config import ConfigError

    bad = ws.parent / "bad.json"
    bad.write_text("{ agents: [")
    with pytest.raises(ConfigError) as caught:
        compare_specs(ws, "now", f"config:{bad}")
    assert caught.value.diagnostic.path == str(bad)


def test_a_scenario_file_that_does_not_parse_is_named_with_its_line(ws: Path):
    bad = ws.parent / "bad.yaml"
    bad.write_text("requester: main\ntarget: [coder\n")
    result = compare_specs(ws, "now", f"scenario:{bad}")
    [note] = result.notes
    assert note.startswith(f"scenario {bad}: {bad}:3:1: error: invalid YAML")


def test_the_requesters_are_paired_across_runtimes_that_name_them_differently(ws: Path):
    result = compare_specs(ws, "openclaw-2026.9", "goclaw")
    first = result.sessions[0]
    assert (first.session_key, first.before_key) == ("primary", "agent:main:main")
    assert first.before is not None and first.after is not None
    assert "agent:main:main" not in [s.session_key for s in result.sessions]


def test_a_new_kind_of_side_is_one_resolver_function(ws: Path, monkeypatch: pytest.MonkeyPatch):
    """A side whose sessions come from elsewhere (as a recorded run's would) builds itself."""
    import ctxscope
    from ctxscope.diff import RESOLVERS, SideBuild, SideSource

    recorded = ctxscope.inspect(ws).requester  # stands for a session read from a record

    def kept(value: str, base: Base, forced: bool) -> SideSource | None:
        if not forced:
            return None
        return SideSource(
            value,
            "kept",
            f"kept {value}",
            base.workspace,
            build=lambda side, **_: SideBuild(
                side.label,
                {recorded.session_key: recorded},
                requester_key=recorded.session_key,
            ),
        )

    monkeypatch.setitem(RESOLVERS, "kept", kept)
    (ws / "SOUL.md").write_text("# Soul\nCalm, and kind.\n")
    result = compare_specs(ws, "kept:yesterday", "now")
    assert result.before == "kept yesterday"
    main = result.sessions[0]
    assert main.session_key == "agent:main:main"
    assert [f.name for f in main.files] == ["SOUL.md"]
    assert {s.session_key: s.before is None for s in result.sessions[1:]} == {
        "agent:coder:main": True,
        "agent:coder:subagent:diff": True,
    }
