"""A recorded run as a side of `ctxscope diff` (`--from run:KEY`): the real store the
OpenClaw 2026.9.6 gateway left (`tests/runs/data`), and hand-made stores for what can go
wrong."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxscope.cli import main
from ctxscope.diff import SideError, compare_specs
from tests.runs.stores import (
    CHILD,
    MAIN,
    RECORDED_AT,
    listing,
    real_state,
    report_2026_2,
    workspace,
)

DB = Path("agents") / "main" / "agent" / "openclaw-agent.sqlite"


def diff(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def recorded(state: Path, key: str) -> dict[str, Any]:
    con = sqlite3.connect(state / DB)
    try:
        (entry,) = con.execute(
            "select entry_json from session_nodes where session_key = ?", (key,)
        ).fetchone()
    finally:
        con.close()
    report: dict[str, Any] = json.loads(entry)["systemPromptReport"]
    return report


def test_an_edit_since_the_run_is_named_with_its_recorded_and_current_size(tmp_path: Path):
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    soul = ws / "SOUL.md"
    soul.write_text(soul.read_text() + "\nAnswer in one short paragraph unless asked.\n")
    before = listing(state)
    result = compare_specs(ws, f"run:{MAIN}", state=state)
    assert listing(state) == before  # the store is only read
    assert result.before.startswith(f"run {MAIN} (2026-11-26 04:25 UTC)")
    assert result.runtime_before == "OpenClaw 2026.9.6 (recorded)"
    # the run's session, and only it, is compared
    (main_diff,) = result.sessions
    assert main_diff.session_key == MAIN
    # only the edited file: not the files the run did not inject and still are not
    # (TOOLS.md, HEARTBEAT.md, the absent BOOTSTRAP.md), not MEMORY.md cut alike
    (change,) = main_diff.files
    assert change.name == "SOUL.md"
    assert change.before is not None and change.after is not None
    assert (change.before["status"], change.before["injected_chars"]) == ("injected", 1079)
    assert change.after["status"] == "injected"
    assert change.after["injected_chars"] == len(soul.read_text().rstrip())
    assert change.after["tokens"] - change.before["tokens"] > 0
    grown = change.after["raw_chars"]
    assert (
        f"injected whole; changed since the run (1,079 chars recorded, {grown:,} now): modified"
        in change.why
    )
    # a record has no section texts: nothing is said to be removed
    assert main_diff.sections == [] and main_diff.not_recorded == ("sections",)
    # tokens: the record's chars, estimated; the same tools on both sides
    report = recorded(state, MAIN)
    tools = sum(
        math.ceil((len(t["name"]) + t["summaryChars"] + t["schemaChars"]) / 4)
        for t in report["tools"]["entries"]
    )
    turn = report["currentTurn"]
    messages = math.ceil((turn["promptChars"] + turn["runtimeContextChars"]) / 4)
    assert main_diff.before == {
        "prompt_chars": 57036,
        "system": math.ceil(57036 / 4),
        "tools": tools,
        "messages": messages,
        "total": math.ceil(57036 / 4) + tools + messages,
        "context_window": 200000,
    }
    assert main_diff.estimated == (True, True)
    assert main_diff.after["system"] == math.ceil(main_diff.after["prompt_chars"] / 4)
    assert main_diff.tools == []
    assert any("not recorded" in n and "estimate" in n for n in result.notes)
    # the gap between the record and today's model is said, so it is not taken for an edit
    assert any("skill(s) ctxscope does not" in n for n in result.notes)
    # how much of the prompt's change the edit accounts for, in the words `runs` uses
    moved = 57_036 - main_diff.after["prompt_chars"]
    assert any(
        f"the prompt differs ({moved:+,} chars in the record): SOUL.md changed since the run, "
        f"which accounts for"
        in n
        and f"of the {abs(moved):,} chars" in n
        for n in result.notes
    )


def test_tokens_beside_a_run_are_counted_one_way_and_move_with_the_chars(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """The record holds chars: the side beside it is counted chars/4 too (not by the
    script-aware estimate), so fewer prompt chars never read as more prompt tokens; the
    method is said."""
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    result = compare_specs(ws, f"run:{MAIN}", state=state)
    (main_diff,) = result.sessions
    before, after = main_diff.before, main_diff.after
    assert before is not None and after is not None
    assert after["prompt_chars"] < before["prompt_chars"]  # the record's prompt is longer
    assert after["system"] < before["system"]
    for side in (before, after):
        assert side["system"] == math.ceil(side["prompt_chars"] / 4)
    code, out, _ = diff(capsys, str(ws), "--from", f"run:{MAIN}", "--state", str(state))
    assert code == 0
    assert "counted chars/4 on both sides" in out


def test_a_tool_the_config_now_denies_is_lost_and_a_subagent_run_compares_alone(tmp_path: Path):
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    config = json.loads((ws / "openclaw.json").read_text())
    config["tools"] = {"deny": ["process"]}
    (ws / "openclaw.json").write_text(json.dumps(config))
    result = compare_specs(ws, f"run:{CHILD}", state=state)
    (child,) = result.sessions
    assert child.session_key == CHILD
    assert [(t.name, t.change) for t in child.tools] == [("process", "lost")]
    assert child.files == []  # the child had AGENTS.md only, and still has it whole
    # the other way round: the record is the after side
    back = compare_specs(ws, "now", f"run:{CHILD}", state=state)
    assert [(t.name, t.change, t.why) for t in back.sessions[0].tools] == [
        ("process", "gained", "")
    ]
    assert back.sessions[0].estimated == (True, True)


def test_two_runs_compared_pair_their_sessions(tmp_path: Path):
    state = real_state(tmp_path)
    result = compare_specs(workspace(tmp_path), f"run:{MAIN}", f"run:{CHILD}", state=state)
    (pair,) = result.sessions
    assert (pair.before_key, pair.session_key) == (MAIN, CHILD)
    lost = {f.name for f in pair.files if f.lost}
    assert lost == {"SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"}
    # a key as typed in another case finds the run (2026.9 keys sessions lower-cased)
    typed = compare_specs(workspace(tmp_path / "again"), f"run:{MAIN.upper()}", state=state)
    assert [s.session_key for s in typed.sessions] == [MAIN]


def test_every_format_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    (ws / "SOUL.md").write_text((ws / "SOUL.md").read_text() + "\nBe brief.\n")
    spec = f"run:{MAIN}"
    code, out, _ = diff(capsys, str(ws), "--from", spec, "--state", str(state))
    assert code == 0
    assert "≈16,512" in out and "not recorded" in out and "estimate" in out
    assert "SOUL.md  injected 1,079 ch  injected 1,090 ch" in out
    code, out, _ = diff(capsys, str(ws), "--from", spec, "--state", str(state), "--format", "json")
    data = json.loads(out)
    (entry,) = data["sessions"]
    assert entry["estimate"] == {"before": True, "after": True}
    assert entry["token_counting"].startswith("chars/4 on both sides")
    assert entry["not_recorded"] == ["sections"]
    assert [f["name"] for f in entry["files"]] == ["SOUL.md"]
    for fmt, mark in (("markdown", "| SOUL.md |"), ("html", "<td>SOUL.md</td>")):
        code, out, _ = diff(capsys, str(ws), "--from", spec, "--state", str(state), "--format", fmt)
        assert code == 0 and mark in out and "not recorded" in out
    # --session defaults to the run's key; another key is refused
    code, _, err = diff(
        capsys, str(ws), "--from", spec, "--state", str(state), "--session", "agent:coder:main"
    )
    assert code == 2 and MAIN in err and "agent:coder:main" in err


def test_the_state_folder_is_found_beside_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """Without --state: $OPENCLAW_STATE_DIR, else the config's folder when it holds an
    agent's session store, else ~/.openclaw."""
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    assert diff(capsys, str(ws), "--from", f"run:{MAIN}")[0] == 0
    monkeypatch.delenv("OPENCLAW_STATE_DIR")
    (state / "openclaw.json").write_text((ws / "openclaw.json").read_text())
    code, out, _ = diff(
        capsys, str(ws), "--from", f"run:{MAIN}", "--config", str(state / "openclaw.json")
    )
    assert code == 0 and "run agent:main:main" in out
    # the sample's own agents/ holds agent workspaces, no store: ~/.openclaw is looked in
    code, _, err = diff(capsys, str(ws), "--from", f"run:{MAIN}")
    assert code == 2 and str(tmp_path / "home" / ".openclaw") in err
    assert str(ws / DB) not in err


def store_2026_2(folder: Path, ws: Path) -> Path:
    """A 2026.2 `sessions.json`: a chat-driven main turn with a report, a subagent without."""
    store = folder / "agents" / "main" / "sessions" / "sessions.json"
    store.parent.mkdir(parents=True)
    store.write_text(
        json.dumps(
            {
                MAIN: {
                    "sessionId": "s1",
                    "updatedAt": 1,
                    "systemPromptReport": report_2026_2(MAIN, ws, 1),
                },
                "agent:main:subagent:x": {"sessionId": "s2", "updatedAt": 2, "spawnedBy": MAIN},
            }
        )
    )
    return store


@pytest.mark.parametrize(
    "case", ["no-state", "no-store", "no-key", "no-report", "corrupt", "not-a-key"]
)
def test_no_usable_record_is_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
):
    ws = workspace(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    key, names = "agent:main:subagent:x", [str(state)]
    if case == "no-state":
        state.rmdir()
    elif case == "no-store":
        names = [str(state / DB), key]
    elif case in ("no-key", "no-report"):
        store = store_2026_2(state, ws)
        key = "agent:main:cron:nightly" if case == "no-key" else key
        names = [str(store), key] + (["no systemPromptReport"] if case == "no-report" else [])
    elif case == "corrupt":
        (state / DB).parent.mkdir(parents=True)
        (state / DB).write_bytes(b"not a database at all" * 100)
        names = [str(state / DB), "corrupt", key]
    else:
        key, names = "main", ["not a session key"]
    code, out, err = diff(capsys, str(ws), "--from", f"run:{key}", "--state", str(state))
    assert (code, out) == (2, "")
    for name in names:
        assert name in err
    assert "Traceback" not in err
    if case == "no-report":
        # the record that exists is read, the same store, with its figures
        result = compare_specs(ws, f"run:{MAIN}", state=state)
        assert result.runtime_before == "OpenClaw 2026.2 (recorded in sessions.json)"
        # the release of the record's store format beside the one run now, named
        assert any(
            "runtime version change: OpenClaw 2026.2 recorded the run" in n for n in result.notes
        )
        assert result.sessions[0].before["prompt_chars"] == 31000  # type: ignore[index]
        assert any("its messages are not recorded" in n for n in result.notes)


def test_a_side_error_is_raised_in_the_api(tmp_path: Path):
    with pytest.raises(SideError, match="no OpenClaw state folder"):
        compare_specs(workspace(tmp_path), f"run:{MAIN}", state=tmp_path / "nowhere")


def test_check_against_a_run_fails_on_a_file_lost_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    argv = ["check", str(ws), "--against", f"run:{MAIN}", "--state", str(state), "--format", "json"]
    assert main(argv) == 0  # nothing lost, cut or over budget since the run
    capsys.readouterr()
    (ws / "SOUL.md").unlink()
    assert main(argv) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["kind"], f["scope"]) for f in findings] == [("lost", MAIN)]
    assert findings[0]["message"].startswith("SOUL.md: injected at run agent:main:main")
    assert main([*argv, "--allow", "lost"]) == 0


def test_the_command_line_exit_code_and_message(tmp_path: Path):
    """The whole process: a missing record is exit 2 with the store and key, no traceback."""
    state = real_state(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxscope",
            "diff",
            str(workspace(tmp_path)),
            "--from",
            "run:agent:main:subagent:gone",
            "--state",
            str(state),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert str(state / DB) in done.stderr and "agent:main:subagent:gone" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_app_pins_a_subagent_run_beside_the_subagent_pane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A spawned session's run is the subagent pane's before side (the main pane has none);
    a run of a session neither pane shows is refused with the command that compares it."""
    from ctxscope import Inspector
    from ctxscope.tui.pinned import against_pinned, pin_side, pinned_delta, session_diffs
    from ctxscope.tui.render import session_blocks

    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    state = str(real_state(tmp_path))
    ws = workspace(tmp_path)
    # the run's child was main's own subagent: the scenario spawns main too
    inspector = Inspector(ws, scenario={"target": "main", "child_id": "pin"})
    report = inspector.report(run_scripts=False)
    requester = report.requester.session_key
    pinned = pin_side(inspector, {}, f"run:{CHILD}", state=state, requester=requester)
    assert (pinned.pane, pinned.main) == ("child", None)
    assert pinned.child is not None and pinned.child.session_key == CHILD

    agents = ws / "AGENTS.md"
    agents.write_text(agents.read_text() + "\nRun the tests before you answer.\n")
    (ws / "BOOTSTRAP.md").write_text("# Bootstrap\nSay hello.\n")
    later = RECORDED_AT / 1000 + 600  # after the run, whatever this machine's clock says
    for path in (agents, ws / "BOOTSTRAP.md"):
        os.utime(path, (later, later))
    inspector.reload()
    report = inspector.report(run_scripts=False)
    main, child = report.requester, report.spawn.child
    text = pinned_delta(pinned, main, child)
    assert "AGENTS.md 2,032 → " in text and "changed since the run" in text
    # both sides counted chars/4, as `ctxscope diff --from run:` counts them
    after = session_diffs(pinned, main, child)["child"].after
    assert after is not None and after["system"] == math.ceil(after["prompt_chars"] / 4)
    assert f"child ≈{pinned.child.tokens.total:,} tok recorded → ≈{after['total']:,}" in text
    assert "main: no before side" in text
    assert against_pinned(pinned, "main", main, session_blocks(main)) == session_blocks(main)
    marked = {
        b.key: b.mark
        for b in against_pinned(pinned, "child", child, session_blocks(child))
        if b.mark
    }
    assert marked["file:AGENTS.md"] == "changed"
    assert all(key.startswith("file:") for key in marked)

    # against the main session's run: a file it did not have is `+`, one it had and the
    # pane lacks a one-line `−` stand-in where the run had it (skipBootstrap: the runtime
    # writes no template in its place)
    config = json.loads((ws / "openclaw.json").read_text())
    config["agents"]["defaults"]["skipBootstrap"] = True
    (ws / "openclaw.json").write_text(json.dumps(config))
    (ws / "USER.md").unlink()
    inspector.reload()
    main = inspector.report(run_scripts=False).requester
    pinned = pin_side(inspector, {}, f"run:{MAIN}", state=state, requester=requester)
    blocks = against_pinned(pinned, "main", main, session_blocks(main))
    marked = {b.key: b.mark for b in blocks if b.mark}
    assert marked == {
        "file:BOOTSTRAP.md": "gained",
        "lost:file:USER.md": "lost",
        "file:AGENTS.md": "changed",
    }
    keys = [b.key for b in blocks]
    assert keys.index("lost:file:USER.md") == keys.index("file:IDENTITY.md") + 1
    stand_in = blocks[keys.index("lost:file:USER.md")]
    assert stand_in.body == "" and "1,153 ch in the run" in stand_in.metrics
    assert "USER.md no longer in the prompt" in pinned_delta(pinned, main, None)

    with pytest.raises(SideError, match=f"diff --from run:{MAIN}"):
        pin_side(inspector, {}, f"run:{MAIN}", state=state, requester="agent:coder:main")


def test_a_limit_the_config_sets_is_the_same_cause_for_runs_and_diff(tmp_path: Path):
    """The config sets a bootstrap limit other than the run's: `runs` and `diff --from run:`
    put the run's difference on that key, with both values and its line, in the same words."""
    from ctxscope import Inspector
    from ctxscope.diff.runlist import list_runs

    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    config = json.loads((ws / "openclaw.json").read_text())
    config["agents"]["defaults"]["bootstrapMaxChars"] = 10000
    (ws / "openclaw.json").write_text(json.dumps(config, indent=2))
    listed = list_runs(Inspector(ws), state=state, session=MAIN).rows[0].comparison
    assert listed is not None
    (limit,) = [d.why for d in listed.differences if d.item == "limits"]
    assert limit.startswith(
        "config change: bootstrapMaxChars was 20,000, now 10,000 (openclaw.json:"
    )
    result = compare_specs(ws, f"run:{MAIN}", state=state)
    assert any(n.endswith(f"beside the workspace now: {limit}") for n in result.notes)


def test_diff_and_runs_give_one_verdict_for_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """One question, one answer: after an edit since the run, `diff --from run:KEY` judges
    the run with the very verdict `runs --session KEY` gives (the same causes, the same file
    rows), because both ask the one comparison."""
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    soul = ws / "SOUL.md"
    soul.write_text(soul.read_text() + "\nOne more line since the run.\n")
    code, out, err = diff(
        capsys, str(ws), "--from", f"run:{MAIN}", "--state", str(state), "--format", "json"
    )
    assert code == 0, err
    (session,) = json.loads(out)["sessions"]
    assert (
        main(["runs", str(ws), "--state", str(state), "--session", MAIN, "--format", "json"]) == 0
    )
    listed = json.loads(capsys.readouterr().out)["sessions"][0]["comparison"]
    assert session["verdict"] == listed
    causes = {d["item"]: d["cause"] for d in listed["differences"]}
    assert causes["file:SOUL.md"] == "changed-since-run"
    assert [r["name"] for r in listed["files"] if r["status"] == "changed"] == ["SOUL.md"]
