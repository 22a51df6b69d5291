"""Which entries run, in which order, and what happens to bad entries (the resolution order)."""

from __future__ import annotations

from typing import Any

import pytest

from ctxscope.scripts import resolve_entries

D = "agents.defaults.subagents.contextScripts"


def e(id: str, **kw: Any) -> dict[str, Any]:
    return {"id": id, "uri": f"/s/{id}.sh", **kw}


def cfg(defaults: list[Any] | None = None, **agent_blocks: dict[str, Any]) -> dict[str, Any]:
    agents: list[dict[str, Any]] = [
        {"id": name, "subagents": {"contextScripts": block}} for name, block in agent_blocks.items()
    ]
    return {
        "agents": {
            "defaults": {"subagents": {"contextScripts": {"run": defaults or []}}},
            "list": agents,
        }
    }


def ids(config: dict[str, Any], requester: str = "main") -> list[str]:
    entries, diags = resolve_entries(config, requester, config_path="/c/openclaw.json")
    assert diags == []
    return [x.id for x in entries]


def test_defaults_apply_to_every_requester() -> None:
    config = cfg([e("a"), e("b")])
    assert ids(config, "main") == ["a", "b"]
    assert ids(config, "someone-unconfigured") == ["a", "b"]


def test_defaults_of_an_entry() -> None:
    (entry,), _ = resolve_entries(cfg([e("a")]), "main", config_path=None)
    assert (
        entry.format,
        entry.method,
        entry.priority,
        entry.position,
        entry.log,
        entry.error_handling,
        entry.timeout_ms,
    ) == ("arguments", "GET", 0, "append", False, "continue", 10_000)
    assert entry.source == f"{D}.run[0]"


def test_requester_ignore_removes_defaults() -> None:
    config = cfg([e("a"), e("b"), e("c")], main={"ignore": ["b"]})
    assert ids(config, "main") == ["a", "c"]


def test_requester_run_is_appended() -> None:
    config = cfg([e("a")], main={"run": [e("mine")]})
    assert ids(config, "main") == ["a", "mine"]


def test_only_the_requesters_block_applies() -> None:
    config = cfg([e("a")], main={"run": [e("main-only")]}, coder={"ignore": ["a"]})
    assert ids(config, "main") == ["a", "main-only"]
    assert ids(config, "coder") == []


def test_requester_is_matched_case_insensitively() -> None:
    config = cfg([e("a")], main={"run": [e("mine")]})
    assert ids(config, " MAIN ") == ["a", "mine"]


def test_dedupe_agent_entry_wins_and_keeps_the_first_place() -> None:
    config = cfg([e("a", uri="/default.sh"), e("b")], main={"run": [e("a", uri="/agent.sh")]})
    entries, _ = resolve_entries(config, "main", config_path=None)
    assert [(x.id, x.uri) for x in entries] == [("a", "/agent.sh"), ("b", "/s/b.sh")]
    assert entries[0].source == "agents.list[0].subagents.contextScripts.run[0]"


def test_ignore_then_same_id_from_agent_still_runs() -> None:
    config = cfg(
        [e("a", uri="/default.sh")], main={"ignore": ["a"], "run": [e("a", uri="/agent.sh")]}
    )
    entries, _ = resolve_entries(config, "main", config_path=None)
    assert [x.uri for x in entries] == ["/agent.sh"]


def test_sorted_by_priority_highest_first_stable_with_negatives() -> None:
    config = cfg(
        [
            e("low", priority=-5),
            e("zero1"),
            e("high", priority=100),
            e("zero2", priority=0),
            e("mid", priority=2.5),
        ],
        main={"run": [e("agent-high", priority=100)]},
    )
    assert ids(config) == ["high", "agent-high", "mid", "zero1", "zero2", "low"]


def test_no_config_at_all() -> None:
    assert resolve_entries({}, "main", config_path=None) == ([], [])


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"uri": "/x.sh"}, 'missing required field "id"'),
        ({"id": "x"}, 'missing required field "uri"'),
        ({"id": "", "uri": "/x.sh"}, '"id" must be a non-empty string'),
        ({"id": "x", "uri": 5}, '"uri" must be a non-empty string'),
        (e("x", format="yaml"), '"format" must be "arguments" or "json", not "yaml"'),
        (e("x", position="middle"), '"position" must be "prepend" or "append", not "middle"'),
        (e("x", log="loud"), '"log" must be false, true or "verbose", not "loud"'),
        (e("x", log=1), '"log" must be false, true or "verbose", not 1'),
        (e("x", errorHandling="retry"), '"errorHandling" must be "continue" or "stop"'),
        (e("x", priority="high"), '"priority" must be a number'),
        (e("x", timeoutMs=0), '"timeoutMs" must be a positive number'),
        (e("x", argMap=["a"]), '"argMap" must be an object'),
        (e("x", uri="ftp://host/x"), 'unsupported URI scheme "ftp://"'),
        ("just-a-string", "must be an object"),
    ],
)
def test_bad_entry_is_reported_with_its_path_and_skipped(bad: Any, message: str) -> None:
    config = cfg([e("first"), e("second"), bad, e("last")])
    entries, diags = resolve_entries(config, "main", config_path="/c/openclaw.json")
    assert [x.id for x in entries] == ["first", "second", "last"]
    assert len(diags) == 1
    diag = diags[0]
    assert diag.severity == "error"
    assert diag.path == "/c/openclaw.json"
    assert diag.message.startswith(f"{D}.run[2]: ")
    assert message in diag.message
    assert diag.message.endswith("entry skipped")


def test_bad_entry_in_agent_block_names_the_agent_path() -> None:
    config = cfg([], coder={"run": [e("ok"), {"id": "no-uri"}]})
    entries, diags = resolve_entries(config, "coder", config_path="/c/openclaw.json")
    assert [x.id for x in entries] == ["ok"]
    assert diags[0].message.startswith("agents.list[0].subagents.contextScripts.run[1]: ")


def test_unknown_field_and_unknown_variable_are_warnings() -> None:
    config = cfg([e("a", colour="red", argMap={"x": "targetAgentId", "y": "nope"})])
    entries, diags = resolve_entries(config, "main", config_path=None)
    assert [x.id for x in entries] == ["a"]
    assert entries[0].arg_map == (("x", "targetAgentId"), ("y", ""))
    assert sorted(d.severity for d in diags) == ["warning", "warning"]
    text = " | ".join(d.message for d in diags)
    assert 'unknown field "colour"' in text
    assert f'{D}.run[0].argMap.y: unknown spawn variable "nope"' in text


def test_run_and_ignore_of_the_wrong_type() -> None:
    config = {
        "agents": {
            "defaults": {"subagents": {"contextScripts": {"run": {"id": "a"}}}},
            "list": [{"id": "main", "subagents": {"contextScripts": {"ignore": "a"}}}],
        }
    }
    entries, diags = resolve_entries(config, "main", config_path=None)
    assert entries == []
    assert [d.message.split(":")[0] for d in diags] == [
        f"{D}.run",
        "agents.list[0].subagents.contextScripts.ignore",
    ]
