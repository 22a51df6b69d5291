"""Values a config takes from the environment (`${NAME}`) never reach output: in every format,
`Report.to_dict()` and diagnostics each reads `⟨$NAME⟩` unless `--show-env NAME` (or
`show_env=`) allows it, while the engine goes on using the real values."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.core.secrets import EnvMask
from ctxscope.runtimes.openclaw.configread import substitute_env
from tests.test_cli import ctxscope

SECRETS = {
    "GITHUB_TOKEN": "ghp_Live0wnerSecret",
    "OPENAI_API_KEY": "sk-live-OpenAiSecret",
    "DB_PASSWORD": "pw-live-DbSecret",
}
CONFIG = {
    "commands": {"ownerAllowFrom": ["${GITHUB_TOKEN}"]},
    "agents": {
        "defaults": {
            "model": {"primary": "p/${OPENAI_API_KEY}"},
            "subagents": {"allowAgents": ["*"]},
        },
        "list": [{"id": "main"}, {"id": "coder", "subagents": {"model": "p/${DB_PASSWORD}"}}],
    },
}
SPAWN = ("--target", "coder", "--child-id", "x", "--task", "Review")
MARKS = ("⟨$GITHUB_TOKEN⟩", "p/⟨$OPENAI_API_KEY⟩", "p/⟨$DB_PASSWORD⟩")


@pytest.fixture
def env_ws(make_workspace, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    ws: Path = make_workspace({"AGENTS.md": "# Rules\nBe brief."}, config=CONFIG)
    return ws


def leaked(text: str, names: tuple[str, ...] = tuple(SECRETS)) -> list[str]:
    """The variables whose value shows in `text`, in any case."""
    return [n for n in names if SECRETS[n].lower() in text.lower()]


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_spawn_masks_every_value_from_the_environment(env_ws: Path, fmt: str) -> None:
    out = ctxscope("spawn", env_ws, *SPAWN, "--format", fmt)
    assert out.returncode == 0, out.stderr
    assert leaked(out.stdout + out.stderr) == []
    for mark in MARKS:  # each says which variable it was
        assert mark in out.stdout, mark
    assert "model=p/⟨$OPENAI_API_KEY⟩" in out.stdout  # the Runtime line of the prompt text
    assert "from your owner: ⟨$GITHUB_TOKEN⟩" in out.stdout
    if fmt == "json":
        data = json.loads(out.stdout)
        assert data["model"]["value"] == "p/⟨$DB_PASSWORD⟩"
        assert any(d["code"] == "config-env-masked" for d in data["requester"]["diagnostics"])


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_render_masks_the_prompt_and_says_why(env_ws: Path, fmt: str) -> None:
    out = ctxscope("render", env_ws, "--format", fmt)
    assert out.returncode == 0, out.stderr
    assert leaked(out.stdout + out.stderr) == []
    assert "⟨$GITHUB_TOKEN⟩" in out.stdout and "p/⟨$OPENAI_API_KEY⟩" in out.stdout
    assert "--show-env NAME" in out.stdout  # the note: masked, and how to show one


def test_show_env_shows_that_variable_only(env_ws: Path) -> None:
    for fmt in ("text", "json"):
        out = ctxscope("spawn", env_ws, *SPAWN, "--format", fmt, "--show-env", "OPENAI_API_KEY")
        assert out.returncode == 0, out.stderr
        assert leaked(out.stdout) == ["OPENAI_API_KEY"]
        assert f"p/{SECRETS['OPENAI_API_KEY']}" in out.stdout
        assert "⟨$GITHUB_TOKEN⟩" in out.stdout and "p/⟨$DB_PASSWORD⟩" in out.stdout
    both = ctxscope("render", env_ws, "--show-env", "GITHUB_TOKEN", "--show-env", "OPENAI_API_KEY")
    assert leaked(both.stdout) == ["GITHUB_TOKEN", "OPENAI_API_KEY"]


def test_counts_and_semantics_are_those_of_the_real_values(env_ws: Path) -> None:
    masked = json.loads(ctxscope("spawn", env_ws, *SPAWN, "--format", "json").stdout)
    allowed = ["--show-env", "GITHUB_TOKEN", "--show-env", "OPENAI_API_KEY"]
    real = json.loads(
        ctxscope(
            "spawn", env_ws, *SPAWN, "--format", "json", *allowed, "--show-env", "DB_PASSWORD"
        ).stdout
    )
    for side in ("requester", "child"):
        assert masked[side]["tokens"] == real[side]["tokens"]
        assert [(s["id"], s["chars"], s["tokens"]) for s in masked[side]["sections"]] == [
            (s["id"], s["chars"], s["tokens"]) for s in real[side]["sections"]
        ]
    assert real["model"]["value"] == f"p/{SECRETS['DB_PASSWORD']}"
    assert masked["model"] == {
        "value": "p/⟨$DB_PASSWORD⟩",
        "source": real["model"]["source"],  # the same rung won
    }


def test_the_api_masks_to_dict_and_builds_on_the_real_values(env_ws: Path) -> None:
    scenario = {"target": "coder", "child_id": "x"}
    report = Inspector(env_ws, scenario=scenario).report(run_scripts=False)
    assert report.spawn is not None and report.child is not None
    assert report.spawn.model.value == f"p/{SECRETS['DB_PASSWORD']}"  # what the child runs on
    assert report.child.model == f"p/{SECRETS['DB_PASSWORD']}"
    text = json.dumps(report.to_dict(), ensure_ascii=False)
    assert leaked(text) == [] and all(mark in text for mark in MARKS)
    shown = report.shown()
    assert shown.spawn is not None and shown.child is not None
    assert shown.spawn.model.value == "p/⟨$DB_PASSWORD⟩"
    assert [s.chars for s in shown.child.sections] == [s.chars for s in report.child.sections]
    assert leaked(report.requester.system_prompt) == ["GITHUB_TOKEN", "OPENAI_API_KEY"]
    opened = Inspector(env_ws, scenario=scenario, show_env=["DB_PASSWORD"])
    text = json.dumps(opened.report(run_scripts=False).to_dict(), ensure_ascii=False)
    assert leaked(text) == ["DB_PASSWORD"]


def test_markers_keep_their_place_after_masking(make_workspace, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A truncated file holding a value from the environment: the truncation marker's offsets
    follow the shorter shown text."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRETS["OPENAI_API_KEY"])
    body = f"key {SECRETS['OPENAI_API_KEY']} here\n" + "x" * 3000 + "\nend"
    ws = make_workspace(
        {"AGENTS.md": body},
        config={
            "agents": {
                "defaults": {"bootstrapMaxChars": 500, "model": {"primary": "${OPENAI_API_KEY}"}}
            }
        },
    )
    report = Inspector(ws).report(run_scripts=False)
    real = report.requester.section("file:AGENTS.md")
    shown = report.shown().requester.section("file:AGENTS.md")
    assert real is not None and shown is not None and real.markers
    assert "key ⟨$OPENAI_API_KEY⟩ here" in shown.text and leaked(shown.text) == []
    assert [shown.text[m.start : m.end] for m in shown.markers] == [
        real.text[m.start : m.end] for m in real.markers
    ]
    assert shown.chars == real.chars and shown.tokens == real.tokens


def test_mistyped_values_from_the_environment_are_not_echoed(make_workspace, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DB_PASSWORD", "Not A Valid Id " + SECRETS["DB_PASSWORD"])
    monkeypatch.setenv("OPENAI_API_KEY", SECRETS["OPENAI_API_KEY"])
    ws = make_workspace(
        {"AGENTS.md": "x"},
        config={
            "agents": {
                "defaults": {"bootstrapMaxChars": "${OPENAI_API_KEY}"},
                "list": [{"id": "main"}, {"id": "${DB_PASSWORD}"}],
            }
        },
    )
    for args in (("render", ws), ("spawn", ws), ("check", ws), ("check", ws, "--format", "json")):
        out = ctxscope(*args)
        assert out.returncode in (0, 1), out.stderr
        assert leaked(out.stdout + out.stderr) == []
    text = ctxscope("render", ws).stdout
    assert 'bootstrapMaxChars must be a non-negative integer, not "⟨$OPENAI_API_KEY⟩"' in text
    assert 'agents.list[1].id "⟨$DB_PASSWORD⟩" is not a valid agent id' in text
    failing = json.loads(ctxscope("check", ws, "--format", "json").stdout)["findings"]
    assert any("⟨$DB_PASSWORD⟩" in f["message"] for f in failing)


def test_a_long_string_in_a_diagnostic_is_never_partly_echoed(make_workspace) -> None:  # type: ignore[no-untyped-def]
    secret = "sk-" + "A1b2C3d4" * 10
    ws = make_workspace({"AGENTS.md": "x"}, config={"agents": {"list": [{"id": secret}]}})
    out = ctxscope("render", ws)
    assert secret[:20] not in out.stdout
    assert f"a string of {len(secret)} characters is not a valid agent id" in out.stdout


def test_short_values_are_masked_where_they_stand_alone_only() -> None:
    done = substitute_env(
        {"a": "${N}", "b": "x-${N}-y", "c": "${LONGER}"}, {"N": "7", "LONGER": "s3cr"}
    )
    mask = EnvMask(done.made)
    assert mask.text("7") == "⟨$N⟩"
    assert mask.text("x-7-y") == "x-⟨$N⟩-y"
    assert mask.text("depth 7/17 at model s3cr") == "depth 7/17 at model ⟨$LONGER⟩"
    assert EnvMask(done.made, show=["N", "LONGER"]).text("7 s3cr") == "7 s3cr"
    assert not EnvMask(done.made, show=["N", "LONGER"])


def test_verbose_script_log_masks_plural_token_keys_not_counts(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {"AGENTS.md": "x", "s.sh": "#!/bin/sh\necho done\n"},
        config={
            "gateway": {
                "auth": {
                    "authTokens": ["tok-auth-1"],
                    "refreshTokens": "tok-refresh-2",
                    "accessTokens": {"github": "tok-access-3"},
                    "tokens": ["tok-plain-4"],
                }
            },
            "agents": {
                "defaults": {
                    "contextTokens": 64000,
                    "subagents": {
                        "contextScripts": {
                            "run": [
                                {
                                    "id": "s",
                                    "uri": "./s.sh",
                                    "log": "verbose",
                                    "argMap": {"config": "cfg"},
                                }
                            ]
                        }
                    },
                }
            },
        },
    )
    script = ws / "s.sh"
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    for fmt in ("text", "json", "markdown"):
        out = ctxscope("spawn", ws, "--trust", "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert "tok-" not in out.stdout
        if fmt != "json":  # JSON carries results, not log lines
            assert "[context-script] s command: ./s.sh" in out.stdout
            assert '"authTokens": "***"' in out.stdout and '"tokens": ["***"]' in out.stdout
            assert '"contextTokens": 64000' in out.stdout


def test_spawn_carries_config_diagnostics_in_every_format(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {"AGENTS.md": "x"}, config={"agents": {"list": [{"id": "main", "colour": 1}]}}
    )
    message = "unknown key 'colour' in agents.list[0] (ignored)"
    for fmt in ("text", "markdown", "html"):
        out = ctxscope("spawn", ws, "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert message in out.stdout.replace("&#x27;", "'"), fmt
    data = json.loads(ctxscope("spawn", ws, "--format", "json").stdout)
    found = [d for d in data["requester"]["diagnostics"] if d["message"] == message]
    assert found and found[0]["path"] == str(ws / "openclaw.json") and found[0]["line"] == 1


def test_no_environment_in_the_config_leaves_output_alone(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "x"}, config={"agents": {"list": [{"id": "main"}]}})
    report = Inspector(ws).report(run_scripts=False)
    assert report.shown() is report
    assert "⟨$" not in json.dumps(report.to_dict(), ensure_ascii=False)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_diff_and_check_against_mask_every_value_from_the_environment(
    env_ws: Path, fmt: str
) -> None:
    # Now the roster has an agent whose id comes from a variable: its session is new.
    before = env_ws / "before.json"
    before.write_text(json.dumps(CONFIG), encoding="utf-8")
    now = json.loads(json.dumps(CONFIG))
    now["agents"]["list"].append({"id": "${DB_PASSWORD}"})
    (env_ws / "openclaw.json").write_text(json.dumps(now), encoding="utf-8")
    args = ("--from", str(before), "--target", "coder", "--format", fmt)
    out = ctxscope("diff", env_ws, *args)
    assert out.returncode == 0, out.stderr
    assert leaked(out.stdout + out.stderr) == []
    assert "⟨$DB_PASSWORD⟩" in out.stdout  # the new agent's session, named by its variable
    shown = ctxscope("diff", env_ws, *args, "--show-env", "DB_PASSWORD")
    assert leaked(shown.stdout) == ["DB_PASSWORD"]
    guard = ctxscope("check", env_ws, "--against", str(before), "--format", fmt)
    assert leaked(guard.stdout + guard.stderr) == []


def test_spawn_never_prints_a_secret_by_its_key_its_shape_its_url_or_a_mistyped_arg_map(
    make_workspace,  # type: ignore[no-untyped-def]
) -> None:
    """Secrets the config holds as plain text: plural key names, credential-shaped values under
    plain keys, a URL script's password and token, and argMap values of the wrong kind, each
    reaching a verbose log line, a script's error or a diagnostic."""
    secrets = ("k-plural-one", "sk-ant-api03-ShapedSecretValue01", "pw-in-url", "t-in-query")
    secrets += ("sk-argmap-literal", "v-argmap-object")
    run = [
        {
            "id": "s",
            "uri": "./s.sh",
            "log": "verbose",
            "argMap": {
                "config": "cfg",
                "apiKey": "sk-argmap-literal",  # a secret pasted where a variable name goes
                "token": {"value": "v-argmap-object"},
            },
        },
        {
            "id": "u",
            "uri": "http://hook:pw-in-url@127.0.0.1:9/ctx?token=t-in-query&room=ops",
            "log": "verbose",
            "timeoutMs": 2000,
        },
    ]
    ws = make_workspace(
        {"AGENTS.md": "x", "s.sh": "#!/bin/sh\necho done\n"},
        config={
            "gateway": {"apiKeys": ["k-plural-one"], "owner": secrets[1], "reserveTokens": 512},
            "agents": {"defaults": {"subagents": {"contextScripts": {"run": run}}}},
        },
    )
    script = ws / "s.sh"
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    for fmt in ("text", "json", "markdown"):
        out = ctxscope("spawn", ws, "--trust", "--format", fmt)
        assert out.returncode == 0, out.stderr
        said = out.stdout + out.stderr
        assert [s for s in secrets if s in said] == []
        assert "argMap.apiKey: unknown spawn variable a string of 17 characters" in said
        assert "argMap.token: unknown spawn variable an object" in said
        assert "http://hook:***@127.0.0.1:9/ctx?token=***&room=ops" in said
        if fmt != "json":  # JSON carries results, not log lines
            assert '"apiKeys": "***"' in said and '"reserveTokens": 512' in said
