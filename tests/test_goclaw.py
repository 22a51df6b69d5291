"""`--profile goclaw`: the prompt GoClaw's code builds, on generated workspaces.

`data/goclaw/builder.json` was recorded by running GoClaw's own `BuildSystemPrompt` (and the
gateway's media instructions) on the workspaces its cases describe: each section's first line
and size in code points, with the workspace path, host name, OS and time zone counted out
(sizes only; none of GoClaw's text). ctxscope must produce the same section list and sizes.
"""

from __future__ import annotations

import datetime
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxscope.api import Inspector
from ctxscope.core.model import Session
from ctxscope.runtimes.goclaw.prompt import host_os, prompt_chars
from ctxscope.runtimes.goclaw.workspace import without_front_matter

DATA = json.loads((Path(__file__).parent / "data" / "goclaw" / "builder.json").read_text())
CASES = {c["name"]: c for c in DATA["cases"]}


TODAY = datetime.date(2026, 11, 26)
"""The host's date in these tests: the daily notes a build picks never move under a test that
runs across midnight."""


@pytest.fixture(autouse=True)
def _no_home_goclaw(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setattr("ctxscope.runtimes.goclaw.workspace.host_today", lambda: TODAY)


def _dated(text: str, today: datetime.date) -> str:
    yesterday = today - datetime.timedelta(days=1)
    return text.replace("{TODAY}", today.isoformat()).replace("{YESTERDAY}", yesterday.isoformat())


def layout(root: Path, case: dict[str, Any], today: datetime.date) -> Path:
    """GoClaw's folder as the case describes it: goclaw.json, users.json, workspace/."""
    ws = root / "workspace"
    ws.mkdir(parents=True)
    for name, key in (("goclaw.json", "goclaw_json"), ("users.json", "users_json")):
        if case[key] is not None:
            (root / name).write_text(json.dumps(case[key]))
    for rel, text in case["files"].items():
        path = ws / _dated(rel, today)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    return ws


def build(ws: Path, scenario: dict[str, Any]) -> Session:
    scenario = {"profile": "goclaw", **scenario}
    subagent = scenario.pop("subagent", False)
    insp = Inspector(ws, scenario=scenario)
    return insp.spawn(run_scripts=False).child if subagent else insp.session()


def first_line(heading: str, today: datetime.date) -> str:
    yesterday = today - datetime.timedelta(days=1)
    heading = heading or "(identity line)"
    return heading.replace(today.isoformat(), "{TODAY}").replace(
        yesterday.isoformat(), "{YESTERDAY}"
    )


@pytest.mark.parametrize("name", list(CASES))
def test_sections_and_sizes_match_goclaws_builder(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    today = TODAY
    ws = layout(tmp_path / "goclaw", case, today)
    session = build(ws, case["scenario"])
    host = len(socket.gethostname()) + len(host_os()) + len(time.strftime("%Z"))
    want = [
        (
            s["first_line"],
            s["chars"] + s["workspace_paths"] * len(str(ws)) + (host if s.get("host") else 0),
        )
        for s in case["sections"]
    ]
    got = [(first_line(s.heading, today), s.chars) for s in session.sections]
    assert got == want
    joins = 2 * (len(want) - 1) - sum(1 for h, _ in want if h.startswith("## ") and ".md" in h)
    assert prompt_chars(session) == sum(c for _, c in want) + joins


def test_file_sections_carry_the_file_as_goclaw_strips_it(tmp_path: Path) -> None:
    today = TODAY
    ws = layout(
        tmp_path / "goclaw", CASES["owner with daily notes, skills and a message tool"], today
    )
    session = build(ws, {"tools": ["read"]})
    assert session.section("file:IDENTITY.md").text == "## IDENTITY.md\n\nI am bot\r\n\n"
    assert session.section("file:USER.md").text == "## USER.md\n\n   \n\n"  # whitespace kept
    assert session.section("file:BOOTSTRAP.md").text == "## BOOTSTRAP.md\n\n\n"  # empty kept
    today_note = session.section(f"file:memory/{today.isoformat()}.md")
    assert today_note.text.endswith("\n\n---\nunterminated\n\n")
    assert session.section("file:SOUL.md").chars == len("## SOUL.md\n\nsoul 🦀\n\n")  # code points
    heartbeat = session.file("HEARTBEAT.md")
    assert heartbeat.status == "not-injected" and "heartbeat" in heartbeat.reason
    assert session.file("memory/2020-01-01.md") is None  # only yesterday's and today's
    assert "HEARTBEAT.md" not in session.system_prompt


def test_injected_chars_mean_the_content_as_in_openclaw(tmp_path: Path) -> None:
    """`injected_chars` is what the file puts in the prompt (its text after GoClaw strips the
    front matter), not the `## NAME` heading around it: the same meaning as OpenClaw's."""
    today = TODAY
    case = CASES["owner with daily notes, skills and a message tool"]
    ws = layout(tmp_path / "goclaw", case, today)
    session = build(ws, {"tools": ["read"]})
    injected = [f for f in session.files if f.status == "injected"]
    assert injected
    for f in injected:
        kept = without_front_matter((ws / f.name).read_bytes().decode())
        assert (f.raw_chars, f.injected_chars) == (len(kept), len(kept)), f.name
        section = session.section(f"file:{f.name}")
        assert section.chars == len(f"## {f.name}\n\n") + len(kept) + 1
    assert session.file("BOOTSTRAP.md").injected_chars == 0  # empty: nothing but its heading


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("---\nrule\n\ntext\n---\nafter\n", "after\n"),  # a leading `---` rule: cut to the next
        ("---\nunterminated\n", "---\nunterminated\n"),  # no closing line: kept whole
        ("---\r\na: 1\r\n---\r\n\r\nbody\r\n", "body\r\n"),  # CRLF front matter
        ("---", "---"),
        ("no front matter\n---\nx\n", "no front matter\n---\nx\n"),
        ("---\na: 1\n----\n  \tbody", "-\n  \tbody"),  # the line only has to start with ---
        ("---\na: 1\n---\n \n\tbody", "body"),  # blank lines and indentation after it go
    ],
)
def test_front_matter_as_goclaw_strips_it(text: str, kept: str) -> None:
    assert without_front_matter(text) == kept


def test_memory_follows_the_users_role(tmp_path: Path) -> None:
    today = TODAY
    ws = layout(
        tmp_path / "goclaw", CASES["owner with daily notes, skills and a message tool"], today
    )
    owner = build(ws, {"tools": ["read"]})
    user = build(ws, {"tools": ["read"], "user": "bob"})
    assert owner.session_key == "primary" and owner.file("MEMORY.md").status == "injected"
    assert user.session_key == "user:bob"
    memory = user.file("MEMORY.md")
    assert memory.status == "excluded" and "memory: full" in memory.reason
    # The gateway's prompt cache loads files with memory, so the daily notes stay.
    note = user.file(f"memory/{today.isoformat()}.md")
    assert note is not None and note.status == "injected"
    role = user.section("role_instructions")
    assert role.text == "## Role Instructions\n\nOnly answer questions."
    assert owner.section("role_instructions").text == "## Role Instructions\n\nBe brief."
    assert [s.name for s in user.skills if s.listed] == ["demo"]
    plain = next(s for s in user.skills if s.name == "Plain Skill")  # named by its heading
    assert not plain.listed and "role user" in plain.reason


def test_session_keys_pick_the_user_as_the_gateway_does(tmp_path: Path) -> None:
    today = TODAY
    ws = layout(
        tmp_path / "goclaw", CASES["owner with daily notes, skills and a message tool"], today
    )
    insp = Inspector(ws, scenario={"profile": "goclaw", "user": "bob"})
    assert insp.session().session_key == "user:bob"
    primary = insp.session("primary")  # the owner's, whoever the scenario names
    assert primary.request.user.id == "alice" and primary.kind == "main"
    assert any(d.code == "goclaw-user-key" for d in primary.diagnostics)
    cron = insp.session("cron:nightly")
    assert cron.request.user.id == "alice" and cron.kind == "cron"
    assert cron.request.channel == "cron"
    group = insp.session("group:42")  # the sender: the scenario's user
    assert group.request.user.id == "bob" and group.file("MEMORY.md").status == "excluded"
    unknown = insp.session("user:nobody")
    assert unknown.section("current_user") is None
    assert any(
        d.code == "goclaw-unknown-user" and d.severity == "error" for d in unknown.diagnostics
    )
    for key in ("primary", "user:bob", "group:42", "cron:x", "agent:main:subagent:x", "abc"):
        assert insp.session(key).prompt_mode == "full"  # no key changes the prompt mode


def test_bad_goclaw_files_are_named_not_raised(tmp_path: Path) -> None:
    root = tmp_path / "goclaw"
    ws = root / "workspace"
    ws.mkdir(parents=True)
    (ws / "AGENTS.md").write_text("a\n")
    (root / "goclaw.json").write_text('{"roles": {"user": {"memory": "none"}}}')
    (root / "users.json").write_text(
        '{\n  "alice": {"role": "owner"},\n  "bob": {"role": "user",}\n}'
    )
    before = sorted(p.name for p in root.rglob("*"))
    session = build(ws, {})
    bad = next(d for d in session.diagnostics if d.code == "goclaw-json")
    assert bad.path == str(root / "users.json") and bad.line == 3 and bad.severity == "error"
    (root / "users.json").write_text(
        '{"alice": {"role": "owner"}, "eve": {"role": "admin"}, "Bad Name": {"role": "user"}}'
    )
    session = build(ws, {"user": "eve"})
    codes = {d.code: d for d in session.diagnostics}
    assert "admin" in codes["goclaw-role"].message and "skips" in codes["goclaw-role"].message
    assert "Bad Name" in codes["goclaw-user"].message
    assert codes["goclaw-unknown-user"].path == str(root / "users.json")
    assert session.request.user.id == "alice"  # eve is skipped: the owner's session
    assert sorted(p.name for p in root.rglob("*")) == before


def test_unknown_tools_are_named_and_left_out(tmp_path: Path) -> None:
    ws = layout(tmp_path / "goclaw", CASES["empty workspace"], datetime.date.today())
    session = build(ws, {"tools": ["read", "sessions_spawn", "message"]})
    assert session.request.tools == ["read", "message"]
    warn = next(d for d in session.diagnostics if d.code == "goclaw-tool")
    assert "sessions_spawn" in warn.message
    without = build(ws, {"tools": ["read"]})
    assert without.section("message_tool") is None
    assert "message" in without.absent_sections["message_tool"]


def test_spawn_says_goclaw_does_not_spawn(tmp_path: Path) -> None:
    ws = layout(
        tmp_path / "goclaw",
        CASES["owner with daily notes, skills and a message tool"],
        TODAY,
    )
    spawn = Inspector(ws, scenario={"profile": "goclaw", "task": "Research X"}).spawn()
    assert not spawn.policy.allowed
    assert "GoClaw does not spawn subagents" in spawn.policy.error
    note = next(d for d in spawn.diagnostics if d.code == "spawn-unsupported")
    assert "what-if" in note.message
    child = spawn.child
    assert child.kind == "subagent" and "what-if" in child.kind_rule
    assert [f.name for f in child.files if f.status == "injected"] == ["AGENTS.md", "TOOLS.md"]
    assert child.section("safety") is not None and child.section("task") is None
    assert child.task_message == "Research X"


def test_spawn_command_says_so(tmp_path: Path) -> None:
    ws = layout(tmp_path / "goclaw", CASES["empty workspace"], datetime.date.today())
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "spawn", str(ws), "--profile", "goclaw"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in out.stderr
    assert "GoClaw does not spawn subagents" in out.stdout + out.stderr
    assert "what-if" in out.stdout + out.stderr


def test_check_on_a_goclaw_workspace(tmp_path: Path) -> None:
    today = TODAY
    ws = layout(tmp_path / "goclaw", CASES["no daily notes, lower-case memory.md"], today)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxscope",
            "check",
            str(ws),
            "--profile",
            "goclaw",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in out.stderr
    findings = json.loads(out.stdout)["findings"]
    missing = {
        f["message"].split(":")[0] for f in findings if f["kind"] == "missing" and not f.get("info")
    }
    assert {"SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"} <= missing
    assert "MEMORY.md" not in missing  # memory.md stands in for it
    assert out.returncode != 0
    (ws / "memory.md").unlink()
    for name in ("SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "MEMORY.md"):
        (ws / name).write_text("x\n")
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "check", str(ws), "--profile", "goclaw"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_goclaw_plan_keeps_the_plan_and_says_so(tmp_path: Path) -> None:
    ws = layout(tmp_path / "goclaw", CASES["empty workspace"], datetime.date.today())
    insp = Inspector(ws, scenario={"profile": "goclaw-plan"})
    main = insp.session()
    note = next(d for d in main.diagnostics if d.code == "profile-note")
    assert "plan" in note.message and "not the GoClaw runtime" in note.message
    assert main.file("SOUL.md").status == "missing" and "[MISSING]" in main.system_prompt
    assert insp.session("agent:main:spawn:x").kind == "subagent"
    real = Inspector(ws, scenario={"profile": "goclaw"}).session()
    assert "[MISSING]" not in real.system_prompt
    assert not any(d.code == "profile-note" for d in real.diagnostics)


def test_skills_goclaw_leaves_out(tmp_path: Path) -> None:
    today = TODAY
    case = CASES["owner with daily notes, skills and a message tool"]
    ws = layout(tmp_path / "goclaw", case, today)
    skills = {s.name: s for s in build(ws, {"tools": ["read"]}).skills}
    assert "audit" in skills["risky"].reason and "curl_pipe_shell, line 5" in skills["risky"].reason
    assert skills["allowed"].listed  # flagged, but enabled in skills.entries
    assert "enabled: true" in skills["off"].reason and not skills["off"].listed
    assert "no-such-binary-xyz" in skills["nobin"].reason
    assert skills["zeta"].listed and skills["Plain Skill"].listed


def test_a_bad_audit_pattern_names_the_field(tmp_path: Path) -> None:
    from ctxscope.runtimes.profiles import ProfileError, load_profile

    text = (Path(__file__).parent.parent / "src/ctxscope/runtimes/profiles/goclaw.yaml").read_text()
    mine = tmp_path / "mine.yaml"
    mine.write_text(text.replace("env_file: '(?i)", "env_file: '(?i)(unclosed"))
    with pytest.raises(ProfileError) as err:
        load_profile(str(mine))
    assert "skill_audit.env_file" in str(err.value) and str(mine) in str(err.value)


def test_explain_gives_goclaw_remedies(tmp_path: Path) -> None:
    from ctxscope.explain import explain_file

    today = TODAY
    ws = layout(
        tmp_path / "goclaw", CASES["owner with daily notes, skills and a message tool"], today
    )
    insp = Inspector(ws, scenario={"profile": "goclaw", "user": "bob", "tools": ["read"]})
    user = insp.session()
    why = explain_file(user, "MEMORY.md", insp.inputs.profile)
    assert why is not None and why.status == "excluded"
    assert any('"memory": "full"' in r for r in why.remedies)
    child = insp.spawn(run_scripts=False).child
    why = explain_file(child, "SOUL.md", insp.inputs.profile)
    assert why is not None and why.remedies
    assert all("does not spawn subagents" in r for r in why.remedies)
