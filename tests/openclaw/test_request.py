"""The whole request a session's model gets (system prompt, tools, messages), checked against
what OpenClaw 2026.9.6 was measured sending for the sample (`data/wire/*.json`: sizes, tool
names, message kinds and a hash of the subagent's normalised first message; no runtime
prose)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.core.model import Session
from ctxscope.runtimes.openclaw.request import runtime_shell
from tests.conftest import SAMPLE
from tests.openclaw.wirecapture import TASK, write_capture_config
from tests.openclaw.wirecases import mismatches, values

WIRE = Path(__file__).parent / "data" / "wire" / "openclaw-2026.9.6-sample.json"


def wire() -> dict[str, Any]:
    return json.loads(WIRE.read_text(encoding="utf-8"))


_MACHINE = re.compile(r"\b(host|os|node|shell)=[^|\n]*?(?=( \| |\n|$))")
_IDS = re.compile(
    r"<uuid:\d+>|⟨session id⟩|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)


def normalised(text: str) -> str:
    """A first user message with its time, ids and the gateway machine's fields written
    alike (the capture's normalisation, and ctxscope's `⟨…⟩` stand-ins)."""
    text = re.sub(r"^\[[^\]]*\] ", "[<time>] ", text)
    text = _IDS.sub("<id>", text)
    return _MACHINE.sub(lambda m: f"{m.group(1)}=<machine>", text)


def captured_workspace(tmp_path: Path, **extra: Any) -> Path:
    """The sample as the capture ran it: the capture's gateway config (a model served over
    the `openai-completions` transport, UTC, bootstrapMaxChars 20000) and BOOTSTRAP.md
    gone (the runtime deleted it before the first turn)."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    (ws / "BOOTSTRAP.md").unlink()
    write_capture_config(ws, extra)
    return ws


def prompt_chars(session: Session) -> int:
    """The prompt's size as sent: each section's (a runtime placeholder's measured size),
    joined by newlines."""
    return sum(s.chars for s in session.sections) + len(session.sections) - 1


def sessions(ws: Path) -> dict[str, Session]:
    report = Inspector(ws).report(run_scripts=False)
    assert report.child is not None
    return {"main": report.requester, "subagent": report.child}


@pytest.mark.parametrize(
    ("case", "extra"),
    [("tool_search_on", {}), ("tool_search_off", {"tools": {"toolSearch": False}})],
)
def test_tools_and_messages_match_what_the_runtime_sent(
    tmp_path: Path, case: str, extra: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/bin/bash")  # the capture's gateway found a shell
    measured = wire()["cases"][case]
    for kind, session in sessions(captured_workspace(tmp_path, **extra)).items():
        sent = measured[kind]
        request = session.wire
        assert request is not None, kind
        assert [t.name for t in request.tools] == sent["tools"], kind
        assert abs(request.tool_schema_chars - sent["tool_schema_chars"]) <= (
            0.02 * sent["tool_schema_chars"]
        ), kind
        assert [(m.role, m.kind) for m in request.messages] == [
            (m["role"], m["kind"]) for m in sent["messages"]
        ], kind
        assert request.messages[1].chars == sent["messages"][1]["chars"], kind
        if sent["first_message_sha256"]:
            text = normalised(request.messages[0].text)
            assert hashlib.sha256(text.encode()).hexdigest() == sent["first_message_sha256"], text


def test_the_relocated_runtime_line_leaves_the_prompt_for_the_first_message(
    tmp_path: Path,
) -> None:
    ws = captured_workspace(tmp_path)
    relocated = sessions(ws)["subagent"]
    config = json.loads((ws / "openclaw.json").read_text(encoding="utf-8"))
    config["models"]["providers"]["wire"]["api"] = "anthropic-messages"
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    kept = sessions(ws)["subagent"]
    assert relocated.wire is not None and kept.wire is not None
    line = next(ln for ln in relocated.system_prompt.splitlines() if ln.startswith("Runtime: "))
    # The line leaves with its own newline and the two the builder writes around it; the
    # runner's attempt markers are sent either way.
    markers = relocated.wire.plan.attempt_chars
    assert markers == kept.wire.plan.attempt_chars > 0
    assert relocated.wire.system_prompt_chars == prompt_chars(relocated) - len(line) - 3 + markers
    assert kept.wire.system_prompt_chars == prompt_chars(kept) + markers
    assert "\n\nRuntime: agent=main | session=agent:main:subagent:" in (
        relocated.wire.messages[0].text
    )
    assert "Runtime:" not in kept.wire.messages[0].text


@pytest.mark.parametrize(
    ("environ", "shell"),
    [
        ({"SHELL": "/usr/bin/zsh"}, "zsh"),
        ({"SHELL": "/bin/bash", "OPENCLAW_SHELL": "/opt/fish"}, "fish"),
        ({"SHELL": "/usr/sbin/nologin", "BASH_VERSION": "5.2"}, "bash"),
        ({"SHELL": "/bin/false"}, None),
        ({}, None),
    ],
)
def test_the_runtime_names_the_shell_it_finds(environ: dict[str, str], shell: str | None) -> None:
    assert runtime_shell(environ) == shell


def test_the_runtime_line_leaves_out_a_shell_it_cannot_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = captured_workspace(tmp_path)
    for var in ("SHELL", "OPENCLAW_SHELL", "BASH_VERSION", "ZSH_VERSION"):
        monkeypatch.delenv(var, raising=False)
    without = sessions(ws)["subagent"].wire
    monkeypatch.setenv("SHELL", "/bin/bash")
    with_shell = sessions(ws)["subagent"].wire
    assert without is not None and with_shell is not None
    assert "shell=" not in without.messages[0].text
    assert with_shell.messages[0].text.endswith(" | shell=bash")


def test_the_runtime_line_counts_this_machine_and_ids_at_their_real_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The moved `Runtime:` line names this machine as a gateway here would (host without
    `.local`, system, release and Node's name of the CPU) and counts the session id at a
    UUID's 36 chars and Node's version at 8; the output says so."""
    import platform
    import socket

    from ctxscope.cli import main

    monkeypatch.setattr(socket, "gethostname", lambda: "build-box.local")
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    monkeypatch.setattr(platform, "release", lambda: "6.1.0-test")
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    monkeypatch.setenv("SHELL", "/bin/zsh")
    child = sessions(captured_workspace(tmp_path))["subagent"]
    assert child.wire is not None
    message = child.wire.messages[0]
    assert " | host=build-box | os=Linux 6.1.0-test (arm64) | node=⟨node⟩ | " in message.text
    assert "sessionId=⟨session id⟩" in message.text
    stood_for = len("⟨session id⟩") + len("⟨node⟩")
    assert message.chars == len(message.text) - stood_for + 36 + 8
    assert child.wire.plan.machine == (("host", 9), ("os", 24), ("node", 8), ("shell", 3))
    main(["render", str(tmp_path / "ws"), "--session-key", child.session_key])
    out = capsys.readouterr().out
    assert "counted with this machine's host, os, shell; the session id at a UUID's 36" in out


def test_token_totals_count_the_tools_and_messages(tmp_path: Path) -> None:
    on = sessions(captured_workspace(tmp_path))["main"]
    assert on.wire is not None
    assert on.tokens.tools == on.wire.tool_tokens > 1000
    assert on.tokens.total == on.tokens.system + on.tokens.tools + on.tokens.messages
    off = sessions(captured_workspace(tmp_path / "off", tools={"toolSearch": False}))["main"]
    # Tool Search off sends all 55 tools' schemas: ten times the tokens.
    assert off.tokens.tools > 10 * on.tokens.tools - 2000
    assert off.tokens.total - off.tokens.system - off.tokens.messages == off.tokens.tools


def test_tool_policy_and_subagent_rules_shape_the_tools(tmp_path: Path) -> None:
    ws = captured_workspace(tmp_path, tools={"toolSearch": False, "deny": ["browser", "group:web"]})
    by_kind = sessions(ws)
    main = {t.name for t in by_kind["main"].wire.tools}
    child = {t.name for t in by_kind["subagent"].wire.tools}
    assert {"browser", "web_search", "web_fetch"}.isdisjoint(main | child)
    assert {"openclaw", "ask_user", "secrets"} <= main
    assert {"openclaw", "ask_user", "secrets"}.isdisjoint(child)


def test_json_carries_the_request(tmp_path: Path) -> None:
    ws = captured_workspace(tmp_path)
    data = Inspector(ws).report(run_scripts=False).to_dict()
    request = data["child"]["request"]
    assert set(request) >= {
        "system_prompt_chars",
        "tool_schema_chars",
        "tools",
        "messages",
        "total_chars",
        "tokens",
    }
    assert request["tokens"] == data["child"]["tokens"]["total"] or request["tokens"] > 0
    assert (
        request["tool_schema_chars"]
        == wire()["cases"]["tool_search_on"]["subagent"]["tool_schema_chars"]
    )
    assert request["messages"][0] == {
        "role": "user",
        "kind": "task",
        "chars": request["messages"][0]["chars"],
        "tokens": request["messages"][0]["tokens"],
    }
    assert "stand-in" in request["tools_source"]


def test_openclaw_2026_2_sends_its_own_catalog(tmp_path: Path) -> None:
    measured = json.loads(WIRE.with_name("openclaw-2026.2.19-sample.json").read_text())
    sent = measured["cases"]["default"]["main"]
    ws = captured_workspace(tmp_path, meta={"lastTouchedVersion": "2026.2.19"})
    (ws / "ctxscope.yaml").write_text("profile: openclaw-2026.2\n", encoding="utf-8")
    main = Inspector(ws).session()
    assert main.wire is not None
    assert [t.name for t in main.wire.tools] == sent["tools"]
    assert abs(main.wire.tool_schema_chars - sent["tool_schema_chars"]) <= (
        0.02 * sent["tool_schema_chars"]
    )
    assert [(m.role, m.kind) for m in main.wire.messages] == [
        (m["role"], m["kind"]) for m in sent["messages"]
    ]
    # No Tool Search, no internal-context message, the Runtime line stays in the prompt.
    assert main.wire.deferred == ()
    assert main.wire.system_prompt_chars == prompt_chars(main)


def test_check_budget_counts_the_whole_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxscope.cli import main

    probe = sessions(captured_workspace(tmp_path / "probe", tools={"toolSearch": False}))
    biggest = max(s.tokens.system + s.tokens.task for s in probe.values())
    # The prompts and first messages fit the window; with the 55 tools' schemas they do not.
    window = biggest + 500
    ws = captured_workspace(tmp_path, tools={"toolSearch": False})
    config = json.loads((ws / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["defaults"]["contextTokens"] = window
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    assert main(["check", str(ws), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    budget = [f for f in findings if f["kind"] == "budget"]
    assert budget and all("(prompt, tools and messages)" in f["message"] for f in budget)
    assert f"{window:,}-token context window" in budget[0]["message"]
    assert main(["check", str(ws), "--allow", "budget", "--allow", "truncated"]) == 0


def test_every_format_shows_the_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ctxscope.cli import main

    ws = captured_workspace(tmp_path)
    main(["render", str(ws)])
    text = capsys.readouterr().out
    assert "\nRequest\n" in text
    assert "tools" in text and "12 sent, 46 deferred (Tool Search on); 6,113 schema chars" in text
    assert "user message · internal-context" in text
    assert "deferred (listed in the prompt, fetched through tool_search): agents_list" in text
    assert "stand-in:" in text
    tokens = next(ln for ln in text.splitlines() if ln.startswith("tokens "))
    assert re.search(r"system [\d,]+ \+ tools [\d,]+ \+ messages [\d,]+ = ", tokens), tokens
    main(["render", str(ws), "--format", "markdown"])
    markdown = capsys.readouterr().out
    assert "## Request" in markdown and "| tool schemas |" in markdown
    main(["spawn", str(ws), "--format", "html"])
    html = capsys.readouterr().out
    assert html.count("<h3>Request</h3>") == 2


def test_the_context_map_counts_the_whole_request(tmp_path: Path) -> None:
    from ctxscope.core.contextmap import context_map

    for session in sessions(captured_workspace(tmp_path)).values():
        cats = context_map(session)
        used = sum(c.tokens for c in cats if c.kind != "free")
        assert used == session.tokens.total
        by_kind = {c.kind: c for c in cats}
        assert by_kind["schemas"].tokens == session.tokens.tools > 0
        assert by_kind["task"].label == "messages"
        assert by_kind["task"].tokens == session.tokens.messages


def test_the_skills_section_counts_the_runtime_s_own_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxscope.runtimes.openclaw.toolcatalog import STAND_IN_PACKAGE

    state = tmp_path / "state"
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    measured = wire()["skills_section"]
    ws = captured_workspace(tmp_path)
    for session in sessions(ws).values():
        skills = session.section("skills")
        assert skills is not None, session.session_key
        package = session.request.package or STAND_IN_PACKAGE
        # The same section with this machine's folders in the skills' locations.
        expected = (
            measured["chars"]
            + measured["package_skills"] * (len(package) - measured["package_path_chars"])
            + measured["state_skills"] * (len(str(state)) - measured["state_path_chars"])
            + measured["workspace_skills"] * (len(str(ws)) - measured["workspace_path_chars"])
        )
        assert abs(skills.chars - expected) <= 0.01 * expected, (skills.chars, expected)
        assert "22 skills of the runtime and its plugins: add-model-provider" in skills.text


def test_a_skills_allowlist_and_a_workspace_skill_of_the_same_name_apply_to_them(
    tmp_path: Path,
) -> None:
    ws = captured_workspace(tmp_path)
    listed = sessions(ws)["main"].section("skills")
    assert listed is not None
    config = json.loads((ws / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["list"] = [{"id": "main", "default": True, "skills": ["weather"]}]
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    only = sessions(ws)["main"].section("skills")
    assert only is not None and "1 skills of the runtime and its plugins: weather⟩" in only.text
    assert only.chars < listed.chars / 5
    (ws / "skills" / "weather").mkdir()
    (ws / "skills" / "weather" / "SKILL.md").write_text(
        "---\nname: weather\ndescription: Our own forecast.\n---\n", encoding="utf-8"
    )
    own = sessions(ws)["main"].section("skills")
    assert own is not None and "of the runtime and its plugins" not in own.text
    assert "<name>weather</name>" in own.text


@pytest.mark.parametrize(
    ("case", "extra"),
    [("tool_search_on", {}), ("tool_search_off", {"tools": {"toolSearch": False}})],
)
def test_the_prompt_agrees_section_by_section_with_what_the_runtime_sent(
    tmp_path: Path, case: str, extra: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system prompt within 1 % and each section within 2 % of what 2026.9.6 sent for the
    sample, main and subagent (the machine's folders counted apart: no install is found
    here, so the package's path is the stand-in's)."""
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "scratch" / "state"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    monkeypatch.setenv("npm_config_prefix", str(tmp_path / "no-npm"))
    measured = wire()["cases"][case]
    for kind, session in sessions(captured_workspace(tmp_path, **extra)).items():
        assert mismatches(session, measured[kind], values(tmp_path)) == [], kind


def test_openclaw_2026_2_prompt_agrees_section_by_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system prompt within 1 % and each section within 2 % of what the 2026.2.19 gateway
    sent for the sample, main and subagent (its CLI turn ran on its default channel,
    whatsapp; the gateway machine's Runtime fields are not counted)."""
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "scratch" / "state"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    monkeypatch.setenv("npm_config_prefix", str(tmp_path / "no-npm"))
    measured = json.loads(WIRE.with_name("openclaw-2026.2.19-sample.json").read_text())
    ws = captured_workspace(tmp_path, meta={"lastTouchedVersion": "2026.2.19"})
    (ws / "ctxscope.yaml").write_text(
        f"profile: openclaw-2026.2\nchannel: whatsapp\ntask: {json.dumps(TASK)}\nlabel: wire\n",
        encoding="utf-8",
    )
    for kind, session in sessions(ws).items():
        sent = measured["cases"]["default"][kind]
        assert mismatches(session, sent, values(tmp_path)) == [], kind


def listed_tools(session: Session) -> list[str]:
    """The tools ctxscope's Tooling section lists (its `- name: …` lines)."""
    tooling = session.section("tooling")
    assert tooling is not None
    return re.findall(r"^- ([a-z_]+):", tooling.text, flags=re.M)


def test_the_sample_s_tooling_section_lists_the_tools_it_sends() -> None:
    """The sample as shipped: its Tooling section lists the tools sent beside the prompt, the
    ones the 2026.2.19 gateway sent for it, at the size of the Tooling section it sent."""
    measured = json.loads(WIRE.with_name("openclaw-2026.2.19-sample.json").read_text())
    sent = measured["cases"]["default"]["main"]
    wire_tooling = next(s for s in sent["sections"] if s["heading"] == "## Tooling")
    main = Inspector(SAMPLE).session()
    assert main.wire is not None
    assert [t.name for t in main.wire.tools] == sent["tools"]
    assert sorted(listed_tools(main)) == sorted(sent["tools"])
    tooling = main.section("tooling")
    assert tooling is not None
    assert abs(tooling.chars - wire_tooling["chars"]) <= 0.02 * wire_tooling["chars"]


def test_the_scenario_s_tools_are_the_tools_listed_and_sent(tmp_path: Path) -> None:
    """A scenario listing tools (`--tools`, `tools:`) is a what-if for both: the Tooling
    section lists them and no other tool's schema is sent; the policy still applies."""
    ws = captured_workspace(tmp_path, meta={"lastTouchedVersion": "2026.2.19"})
    (ws / "ctxscope.yaml").write_text(
        "profile: openclaw-2026.2\ntools: [exec, read, memory_get, sessions_send]\n",
        encoding="utf-8",
    )
    report = Inspector(ws).report(run_scripts=False)
    for session in (report.requester, report.child):
        assert session is not None and session.wire is not None
        sent = [t.name for t in session.wire.tools]
        assert sorted(listed_tools(session)) == sorted(sent), session.session_key
    assert [t.name for t in report.requester.wire.tools] == [
        "read",
        "exec",
        "sessions_send",
        "memory_get",
    ]
    # A subagent never gets memory_get or sessions_send (2026.2).
    assert report.child is not None and report.child.wire is not None
    assert [t.name for t in report.child.wire.tools] == ["read", "exec"]


@pytest.mark.parametrize(
    ("zone", "prefix"),
    [
        ("Asia/Tokyo", "[Thu 2026-01-15 21:30 GMT+9] "),
        ("Asia/Kolkata", "[Thu 2026-01-15 18:00 GMT+5:30] "),
        ("Europe/London", "[Thu 2026-01-15 12:30 GMT] "),
        ("America/New_York", "[Thu 2026-01-15 07:30 EST] "),
        ("UTC", "[Thu 2026-01-15 12:30 UTC] "),
    ],
)
def test_the_time_prefix_names_the_zone_as_the_runtime_does(zone: str, prefix: str) -> None:
    """Node's `en-US` short zone names: a US zone's abbreviation, UTC, else the offset."""
    import datetime

    from ctxscope.runtimes.openclaw.request import time_prefix

    now = datetime.datetime(2026, 1, 15, 12, 30, tzinfo=datetime.UTC)
    assert time_prefix(zone, now) == prefix
