"""Config discovery, JSON5/YAML parsing, and errors that name file, line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.config import ConfigError, discover_config, load_config
from ctxscope.scenario import load_scenario

JSON5 = """{
  // comments, unquoted keys and trailing commas, as real openclaw.json files have
  agents: {
    defaults: { bootstrapMaxChars: 1234, },
    list: [ { id: 'main', }, ],
  },
}
"""


def test_json5_config_parses(make_workspace):
    ws = make_workspace({}, config=JSON5)
    cfg = Inspector(ws).config
    assert cfg.defaults["bootstrapMaxChars"] == 1234
    assert cfg.path == str(ws / "openclaw.json")


def test_discovery_order(tmp_path: Path):
    ws = tmp_path / "home" / "workspace"
    ws.mkdir(parents=True)
    assert discover_config(ws) is None
    (tmp_path / "home" / "openclaw.json").write_text("{}")
    assert discover_config(ws) == tmp_path / "home" / "openclaw.json"
    (ws / "openclaw.yaml").write_text("{}")
    assert discover_config(ws) == ws / "openclaw.yaml"
    (ws / "openclaw.json5").write_text("{}")
    assert discover_config(ws) == ws / "openclaw.json5"
    (ws / "openclaw.json").write_text("{}")
    assert discover_config(ws) == ws / "openclaw.json"
    assert discover_config(ws, tmp_path / "x.json") == tmp_path / "x.json"


def test_parent_folder_config_like_dot_openclaw(tmp_path: Path):
    root = tmp_path / ".openclaw"
    ws = root / "workspace"
    ws.mkdir(parents=True)
    (root / "openclaw.json").write_text("{agents: {defaults: {contextTokens: 1000}}}")
    assert Inspector(ws).session().context_window == 1000


def test_yaml_config(make_workspace):
    ws = make_workspace({})
    (ws / "openclaw.yaml").write_text("agents:\n  defaults:\n    contextTokens: 777\n")
    assert Inspector(ws).session().context_window == 777


def test_no_config_is_fine(make_workspace):
    insp = Inspector(make_workspace({}))
    assert insp.config.path is None and insp.config.agent_ids() == ["main"]


def test_malformed_json5_names_file_line_column(make_workspace):
    ws = make_workspace({}, config="{\n  agents: {\n    list: [\n  }\n}\n")
    with pytest.raises(ConfigError) as err:
        Inspector(ws)
    d = err.value.diagnostic
    assert d.path == str(ws / "openclaw.json")
    assert d.line == 4 and d.column is not None
    assert str(d).startswith(f"{ws / 'openclaw.json'}:4:")


def test_a_json5_error_at_a_line_break_is_one_readable_line(make_workspace):
    ws = make_workspace({}, config='{\n  "a": "unterminated\n}\n')
    with pytest.raises(ConfigError) as err:
        Inspector(ws)
    text = str(err.value.diagnostic)
    assert "\n" not in text and "\r" not in text
    assert text.endswith("invalid JSON5: Unexpected line break"), text
    assert err.value.diagnostic.line == 2


def test_malformed_yaml_names_file_line_column(make_workspace):
    ws = make_workspace({})
    (ws / "openclaw.yaml").write_text("agents:\n  defaults: [1, 2\n  list: x\n")
    with pytest.raises(ConfigError) as err:
        Inspector(ws)
    assert err.value.diagnostic.path == str(ws / "openclaw.yaml")
    assert err.value.diagnostic.line is not None


def test_config_must_be_an_object(make_workspace):
    with pytest.raises(ConfigError, match="must be an object"):
        Inspector(make_workspace({}, config="[1, 2]"))


def test_unknown_keys_and_bad_values_warn_with_lines(make_workspace):
    text = (
        '{\n  "agents": {\n    "defaults": {"bootstrapMaxChars": "lots"},\n'
        '    "list": [{"id": "main", "colour": "blue",\n'
        '              "subagents": {"allowAgent": ["x"]}}]\n  }\n}\n'
    )
    insp = Inspector(make_workspace({}, config=text))
    by_code = {}
    for d in insp.diagnostics:
        by_code.setdefault(d.code, []).append(d)
    unknown = {d.message: d.line for d in by_code["config-unknown-key"]}
    assert unknown["unknown key 'colour' in agents.list[0] (ignored)"] == 4
    assert unknown["unknown key 'allowAgent' in agents.list[0].subagents (ignored)"] == 5
    assert by_code["config-value"][0].line == 3
    # The bad value falls back to the default limit: the first run's AGENTS.md is whole.
    agents = insp.session().file("AGENTS.md")
    assert agents.status == "first-run" and agents.injected_chars == agents.raw_chars


def test_invalid_agent_id_is_an_error_diagnostic(make_workspace):
    insp = Inspector(make_workspace({}, config={"agents": {"list": [{"id": "Bad Id!"}]}}))
    assert any(d.code == "config-agent-id" and d.severity == "error" for d in insp.diagnostics)


def test_unreadable_config_path(tmp_path: Path, make_workspace):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "nope.json", None)
    ws = make_workspace({})
    with pytest.raises(ConfigError, match="cannot read config"):
        Inspector(ws, config=tmp_path / "missing.json")


def test_scenario_file_and_overrides(make_workspace):
    ws = make_workspace(
        {
            "ctxscope.yaml": "requester: main\ntarget: coder\ntask: Do it\n"
            "depth: 1\ntools: [read, exec]\nbogus: 1\n"
        }
    )
    scenario, diags = load_scenario(ws)
    assert scenario.target == "coder" and scenario.depth == 1
    assert scenario.tools == ["read", "exec"]
    assert any("bogus" in d.message for d in diags)
    insp = Inspector(ws, scenario={"task": "Other", "depth": None})
    assert insp.scenario.task == "Other" and insp.scenario.depth == 1


def test_broken_scenario_file_is_a_diagnostic_not_a_crash(make_workspace):
    ws = make_workspace({"ctxscope.yaml": "task: [unclosed\n"})
    insp = Inspector(ws)
    d = next(d for d in insp.diagnostics if d.code == "scenario-parse")
    assert d.path == str(ws / "ctxscope.yaml") and d.line is not None


@pytest.mark.parametrize(
    ("config", "line", "column"),
    [
        ("{\n  agents: {\n    defaults: { a: 1,, b: 2 },\n  },\n}\n", 3, 22),
        ('{\n  "a": 1,,\n}\n', 2, 10),
        ("{\n  a: 1,\n  // a comment\n  ,\n}\n", 4, 3),
        ("{ a: 1, /* gone */ , }\n", 1, 20),
        ("{,}\n", 1, 2),
        ("[1,,2]\n", 1, 4),  # the parser names this comma itself
    ],
)
def test_a_json5_comma_too_many_is_named_at_its_own_column(make_workspace, config, line, column):
    ws = make_workspace({}, config=config)
    with pytest.raises(ConfigError) as err:
        Inspector(ws)
    d = err.value.diagnostic
    assert (d.line, d.column) == (line, column), str(d)
    assert config.split("\n")[line - 1][column - 1] == ","
    assert d.message.endswith('Unexpected ","'), d.message
