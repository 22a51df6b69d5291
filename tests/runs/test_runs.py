"""`ctxscope runs` on real and hand-made session stores.

`data/openclaw-agent-2026.9.6.sqlite.gz` is the store the real OpenClaw 2026.9.6 gateway left
after a wire capture of the sample (`tests/openclaw/wirecapture.py`: a main turn that spawned
one child, labelled `wire`), copied whole (gzipped here). The 2026.2 `sessions.json` with
reports is built in 2026.2.19's writer shape (its `SessionEntry` / `SessionSystemPromptReport`
types): that release records no report for `openclaw agent` runs, the only turns a capture
drives (the store its gateway really left is held in `test_runs_2026_2.py`)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxscope import Inspector, output
from ctxscope.diff import compare_specs
from ctxscope.diff.causes import CHANGED
from ctxscope.diff.runlist import list_runs
from ctxscope.runs import parse_duration, read_state, recorded_run
from ctxscope.runs.recorded import RecordedRun, run_time
from ctxscope.runs.store import SCHEMA_VERSION
from ctxscope.tui.widgets import runs_panel
from tests.runs.stores import (
    CHILD,
    MAIN,
    RECORDED_AT,
    add,
    listing,
    real_state,
    real_writer,
    report_2026_2,
    what_rows_say,
    workspace,
    writer,
)
from tests.runs.stores import verdict as compare


def test_real_store_is_a_tree_with_the_recorded_figures(tmp_path: Path) -> None:
    state = real_state(tmp_path)
    before = listing(state)
    view = list_runs(Inspector(workspace(tmp_path)), state=state)
    assert [(r.run.session_key, r.level) for r in view.rows] == [(MAIN, 0), (CHILD, 1)]
    main, child = view.rows[0].run, view.rows[1].run
    assert main.figure("systemPrompt", "chars") == 57036
    assert main.generated_at == RECORDED_AT
    assert [f.name for f in main.files()] == [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "MEMORY.md",
    ]
    assert main.files()[-1].truncated and main.files()[-1].injected_chars == 19999
    assert (child.spawned_by, child.spawn_depth, child.label) == (MAIN, 1, "wire")
    assert child.app_version == "2026.9.6"
    # every file is as the run had it; what differs is named as ctxscope's own gap
    for row in view.rows:
        assert row.comparison is not None
        assert {f["status"] for f in row.comparison.files} == {"same"}
        causes = {d.item: d.cause for d in row.comparison.differences}
        assert causes.pop("workspace") == "config"  # the capture ran in another folder
        assert set(causes.values()) == {"gap"}
        assert "modelling gap in ctxscope" in row.comparison.summary
    assert listing(state) == before  # nothing written, not even a -wal or -shm


def test_editing_a_file_after_the_run_names_it(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / "SOUL.md").write_text((ws / "SOUL.md").read_text() + "\nBe brief.\n")
    view = list_runs(Inspector(ws), state=real_state(tmp_path))
    main = view.rows[0].comparison
    assert main is not None
    soul = [d for d in main.differences if d.item == "file:SOUL.md"]
    assert soul and soul[0].cause == "changed-since-run"
    assert "changed since the run" in soul[0].why
    assert "SOUL.md changed since the run" in main.summary
    # the child never had SOUL.md: nothing changed for it
    assert all(d.cause != "changed-since-run" for d in view.rows[1].comparison.differences)


def test_a_file_only_the_run_had_is_looked_for_where_its_workspace_is_now(
    tmp_path: Path,
) -> None:
    """The run's workspace was another folder (the workspace moved since): a file the run
    had and today's prediction does not list is looked for at its place in today's
    workspace, not at the path the run recorded."""
    ws = workspace(tmp_path)
    session = Inspector(ws).session(MAIN)
    before = RECORDED_AT / 1000 - 60
    for name in ("NOTES.md", "PLAN.md"):
        (ws / name).write_text("kept\n")
        os.utime(ws / name, (before, before))
    (ws / "PLAN.md").write_text("kept, edited\n")
    os.utime(ws / "PLAN.md", (before + 120, before + 120))  # edited after the run

    def had(name: str) -> dict[str, Any]:
        return {
            "name": name,
            "path": f"/moved/away/ws/{name}",
            "missing": False,
            "rawChars": 5,
            "injectedChars": 5,
            "truncated": False,
        }

    report = {
        "generatedAt": RECORDED_AT,
        "workspaceDir": "/moved/away/ws",
        "injectedWorkspaceFiles": [had("NOTES.md"), had("PLAN.md"), had("GONE.md")],
    }
    made = compare(RecordedRun(MAIN, "main", "store", "sqlite", report=report), session)
    status = {f["name"]: f["status"] for f in made.files}
    why = {d.item: d.why for d in made.differences}
    assert status["NOTES.md"] == "differs"
    assert why["file:NOTES.md"].startswith("the run had NOTES.md, ctxscope's prediction does not")
    assert status["PLAN.md"] == "changed"
    assert why["file:PLAN.md"].startswith(
        "changed since the run (5 chars recorded, 13 now): modified"
    )
    assert why["file:GONE.md"] == "deleted since the run"


def test_a_file_only_the_run_had_is_measured_through_the_given_stat_and_reader(
    tmp_path: Path,
) -> None:
    """The comparison reads no file itself: a file only the run had is looked at through the
    `stat` and measured through the `read` it is given (the file is not on this disk)."""
    session = Inspector(workspace(tmp_path)).session(MAIN)
    path = str(tmp_path / "elsewhere" / "PLAN.md")
    report = {
        "generatedAt": RECORDED_AT,
        "injectedWorkspaceFiles": [
            {
                "name": "PLAN.md",
                "path": path,
                "missing": False,
                "rawChars": 5,
                "injectedChars": 5,
                "truncated": False,
            }
        ],
    }
    seen: list[str] = []

    def stat(where: str) -> os.stat_result:
        seen.append(where)
        return os.stat_result((0o100644, 0, 0, 1, 0, 0, 9, 0, RECORDED_AT // 1000 - 60, 0))

    def read(where: str) -> bytes | None:
        seen.append(where)
        return "é twelve!".encode()

    run = RecordedRun(MAIN, "main", "store", "sqlite", report=report)
    made = compare(run, session, stat=stat, read=read)
    why = {d.item: d.why for d in made.differences}
    assert why["file:PLAN.md"] == "changed since the run (5 chars recorded, 9 now)"
    assert seen == [path, path]


def test_a_copied_workspace_whose_files_have_the_runs_sizes_is_unchanged(tmp_path: Path) -> None:
    """A copy (`cp -r`, a checkout, a backup) gives every file a new modification time: the
    files whose sizes now are the ones the run recorded are `same`, and the prompt's
    difference is not put on them; `diff --from run:` agrees."""
    state, ws = real_state(tmp_path), workspace(tmp_path)
    for path in ws.rglob("*"):
        os.utime(path)  # touched now, long after the run
    view = list_runs(Inspector(ws), state=state, session=MAIN)
    main = view.rows[0].comparison
    assert main is not None
    assert {f["name"]: f["status"] for f in main.files} == {
        name: "same" for name in ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md")
    }
    assert all(d.cause != CHANGED for d in main.differences)
    assert "changed since the run" not in main.summary
    shown = run_cli(str(ws), "--state", str(state), "--session", MAIN)
    assert shown.returncode == 0, shown.stderr
    files = shown.stdout.split("\nFiles\n", 1)[1].split("\n\n", 1)[0]
    assert " same" in files and "changed" not in files
    assert "changed since the run" not in shown.stdout
    result = compare_specs(ws, f"run:{MAIN}", state=state)
    assert result.sessions[0].files == []
    assert not any("changed since the run" in n for n in result.notes)


def test_a_tool_the_policy_now_denies_is_put_on_the_policy(tmp_path: Path) -> None:
    """The run was sent `process`; the config denies it now: the tool policy says so with
    its key's line, not a modelling gap."""
    ws = workspace(tmp_path)
    config = json.loads((ws / "openclaw.json").read_text())
    config["tools"] = {"deny": ["process"]}
    (ws / "openclaw.json").write_text(json.dumps(config, indent=2))
    line = next(
        n
        for n, text in enumerate((ws / "openclaw.json").read_text().splitlines(), 1)
        if '"deny"' in text
    )
    main = list_runs(Inspector(ws), state=real_state(tmp_path), session=MAIN).rows[0].comparison
    assert main is not None
    tools = [d for d in main.differences if d.item == "tools"]
    assert [d.cause for d in tools] == ["policy"]
    assert tools[0].why == (
        f"tool policy: the run was sent process, denied by tools now "
        f"(tools.deny (openclaw.json:{line}))"
    )
    assert "tool policy" in main.summary


def test_a_model_the_config_changed_is_named_with_its_key(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    config = json.loads((ws / "openclaw.json").read_text())
    config["agents"]["defaults"]["model"]["primary"] = "wire/other-model"
    (ws / "openclaw.json").write_text(json.dumps(config, indent=2))
    line = next(
        n
        for n, text in enumerate((ws / "openclaw.json").read_text().splitlines(), 1)
        if '"primary"' in text
    )
    main = list_runs(Inspector(ws), state=real_state(tmp_path), session=MAIN).rows[0].comparison
    assert main is not None
    (model,) = [d for d in main.differences if d.item == "model"]
    assert (model.cause, model.why) == (
        "config",
        "config change: the run used wire/wire-model, ctxscope predicts wire/other-model "
        f"(agents.defaults.model.primary (openclaw.json:{line}))",
    )


def test_config_change_is_named(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    config = json.loads((ws / "openclaw.json").read_text())
    config["agents"]["defaults"]["bootstrapMaxChars"] = 10000
    (ws / "openclaw.json").write_text(json.dumps(config))
    main = list_runs(Inspector(ws), state=real_state(tmp_path)).rows[0].comparison
    assert main is not None
    memory = next(d for d in main.differences if d.item == "file:MEMORY.md")
    assert memory.cause == "config"
    assert any("bootstrapMaxChars was 20,000, now 10,000" in d.why for d in main.differences)


def test_latest_turn_is_read_from_the_wal_and_nothing_changes(tmp_path: Path) -> None:
    """A writer in another process (as the gateway is) holds the WAL open with a turn not
    yet merged: the reader and a listing see that turn, and no file of the state folder
    changes (not the -wal, not the -shm); once the writer has merged and gone, no -wal/-shm
    appears."""
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import json, sqlite3, sys\n"
            f"con = sqlite3.connect({str(db)!r})\n"
            "con.execute('pragma journal_mode=wal'); con.execute('pragma wal_autocheckpoint=0')\n"
            "row = con.execute('select entry_json from session_nodes where session_key=?',"
            f" ({MAIN!r},)).fetchone()\n"
            "entry = json.loads(row[0]); entry['systemPromptReport']['generatedAt'] += 1000\n"
            # compact and marked valid, as OpenClaw writes it
            "con.execute('update session_nodes set entry_json=?, entry_valid=1"
            " where session_key=?',"
            f" (json.dumps(entry, separators=(',', ':')), {MAIN!r}))\n"
            "con.commit(); print('ready', flush=True); sys.stdin.readline(); con.close()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        assert Path(f"{db}-wal").exists()
        before = listing(state)
        run = recorded_run(MAIN, state=state)
        assert run is not None and run.generated_at == RECORDED_AT + 1000
        # a listing too, which reads the entries' text in one transaction
        listed = {r.session_key: r for r in read_state(state, whole=False).runs}
        assert listed[MAIN].generated_at == RECORDED_AT + 1000
        assert listed[MAIN].figure("systemPrompt", "chars") == run.figure("systemPrompt", "chars")
        assert listing(state) == before
    finally:
        assert writer.stdin is not None
        writer.stdin.write("\n")
        writer.stdin.close()
        writer.wait(30)
    assert not Path(f"{db}-wal").exists()
    before = listing(state)
    run = recorded_run(MAIN, state=state)
    assert run is not None and run.generated_at == RECORDED_AT + 1000
    assert listing(state) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["openclaw-agent.sqlite"]


def _edit(db: Path, sql: str, *params: Any) -> None:
    con = sqlite3.connect(db)
    con.execute(sql, params)
    con.commit()
    con.close()


def test_corrupt_entry_is_named_and_the_rest_is_read(tmp_path: Path) -> None:
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    _edit(db, "update session_nodes set entry_json='{\"oops' where session_key=?", CHILD)
    read = read_state(state)
    assert [r.session_key for r in read.runs if r.report] == [MAIN]
    (problem,) = read.problems
    assert problem.path == str(db) and CHILD in problem.message
    assert "corrupt entry_json" in problem.message


def test_newer_schema_is_said_and_still_read(tmp_path: Path) -> None:
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    _edit(db, "update schema_meta set schema_version=?, app_version='2027.1.0'", SCHEMA_VERSION + 5)
    read = read_state(state)
    assert {r.session_key for r in read.runs} == {MAIN, CHILD}
    (problem,) = read.problems
    assert problem.severity == "warning" and problem.path == str(db)
    assert f"version {SCHEMA_VERSION + 5}, written by OpenClaw 2027.1.0" in problem.message


def test_corrupt_store_is_named_and_other_agents_still_read(tmp_path: Path) -> None:
    state = real_state(tmp_path)
    bad = state / "agents" / "coder" / "agent" / "openclaw-agent.sqlite"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not a database at all" * 100)
    read = read_state(state)
    assert {r.session_key for r in read.runs} == {MAIN, CHILD}
    (problem,) = read.problems
    assert problem.path == str(bad) and problem.severity == "error"


def test_empty_store_and_missing_state(tmp_path: Path) -> None:
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    _edit(db, "delete from session_nodes")
    read = read_state(state)
    assert read.runs == [] and read.problems == [] and read.stores == [str(db)]
    missing = read_state(tmp_path / "nowhere")
    assert missing.problems[0].code == "runs-no-state"
    assert missing.problems[0].path == str(tmp_path / "nowhere")


def test_sessions_json_of_2026_2_and_session_store_template(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    stores = tmp_path / "stores"
    (stores / "coder").mkdir(parents=True)
    at = int(time.time() * 1000)
    data = {
        "agent:coder:main": {
            "sessionId": "s1",
            "updatedAt": at,
            "systemPromptReport": report_2026_2("agent:coder:main", ws, at),
        },
        "agent:coder:subagent:x": {
            "sessionId": "s2",
            "updatedAt": at + 5,
            "spawnedBy": "agent:coder:main",
            "spawnDepth": 1,
            "label": "review",
        },
    }
    (stores / "coder" / "sessions.json").write_text(json.dumps(data))
    config = {
        "session": {"store": str(stores / "{agentId}" / "sessions.json")},
        "agents": {"list": [{"id": "coder"}]},
    }
    (tmp_path / "state").mkdir()
    read = read_state(tmp_path / "state", config)
    assert [(r.session_key, r.store_kind) for r in read.runs] == [
        ("agent:coder:main", "json"),
        ("agent:coder:subagent:x", "json"),
    ]
    assert read.runs[0].figure("systemPrompt", "hash") is None
    assert (read.runs[1].spawned_by, read.runs[1].label, read.runs[1].report) == (
        "agent:coder:main",
        "review",
        None,
    )


def test_thousands_of_sessions(tmp_path: Path) -> None:
    state, _db, con, entry = real_writer(tmp_path)
    rows = []
    for n in range(3000):
        key = f"agent:main:subagent:{n:08d}"
        entry["systemPromptReport"]["generatedAt"] = RECORDED_AT + n
        rows.append((key, "s", json.dumps(entry), 1, n, MAIN, "x"))
    add(con, rows)
    view = list_runs(Inspector(workspace(tmp_path)), state=state, session=MAIN)
    assert len(view.rows) == 3002
    assert view.rows[0].run.session_key == MAIN
    # the children in the order they ran (the real child ran 5 s after its parent)
    assert [r.run.session_key for r in view.rows[1:3]] == [
        "agent:main:subagent:00000000",
        "agent:main:subagent:00000001",
    ]
    assert view.rows[-1].run.session_key == CHILD
    # one prediction per shape, its size moved by each key's length
    sizes = {r.comparison.predicted_prompt_chars for r in view.rows[1:-1] if r.comparison}
    assert len(sizes) == 1
    child = view.rows[-1].comparison
    assert child is not None and child.predicted_prompt_chars is not None
    step = len(CHILD) - len("agent:main:subagent:00000000")
    assert (child.predicted_prompt_chars - sizes.pop()) % step == 0


def test_sessions_that_differ_by_their_own_hash_and_id_share_one_comparison(
    tmp_path: Path,
) -> None:
    """Real sessions each have their own prompt hash (the prompt names the session key) and
    session id: a listing, which compares sizes, still makes one comparison for all the
    children of one shape, and each row says what reading its report whole says."""
    state, _db, con, entry = real_writer(tmp_path)
    report = entry["systemPromptReport"]
    rows = []
    for n in range(200):
        key = f"agent:main:subagent:{n:08d}"
        report["generatedAt"] = RECORDED_AT + n
        report["sessionId"] = entry["sessionId"] = f"id-{n}"
        report["systemPrompt"]["hash"] = f"{n:064x}"
        rows.append((key, f"id-{n}", json.dumps(entry), 1, n, MAIN, "x"))
    add(con, rows)
    inspector = Inspector(workspace(tmp_path))
    view = list_runs(inspector, state=state, limit=None)
    children = [r for r in view.rows if r.run.session_key.startswith("agent:main:subagent:0")]
    assert len(children) == 200
    # the first child's own (the prediction is built for its key), and one the others share
    assert len({id(r._comparison) for r in children}) == 2
    again = list_runs(inspector, state=state, whole=True, limit=None)
    whole = {r.run.session_key: r for r in again.rows}
    for row in children:
        again = whole[row.run.session_key]
        assert row.comparison == again.comparison
        assert row.run.figure("systemPrompt", "chars") == again.run.figure("systemPrompt", "chars")


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(10**12), max_value=253402300799999))
def test_a_run_time_is_the_utc_second_gmtime_gives(ms: int) -> None:
    want = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms / 1000)) if ms else "-"
    assert run_time(ms) == want


def test_durations() -> None:
    assert parse_duration("90") == 90
    assert parse_duration("15m") == 900
    assert parse_duration("2h") == 7200
    assert parse_duration("7d") == 7 * 86400
    for bad in ("", "x", "-1h", "3y"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", "runs", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_cli_json_text_and_errors(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    _edit(db, "update session_nodes set label=? where session_key=?", "\x1b]52;c;aGk=\x07x", CHILD)
    done = run_cli(str(ws), "--state", str(state), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    first, second = data["sessions"]
    assert set(first) >= {
        "session_key",
        "agent_id",
        "spawned_by",
        "spawn_depth",
        "label",
        "generated_at",
        "recorded",
        "comparison",
    }
    assert first["recorded"]["systemPrompt"]["chars"] == 57036
    assert second["spawned_by"] == MAIN and second["spawn_depth"] == 1
    text = run_cli(str(ws), "--state", str(state))
    assert text.returncode == 0
    assert "\x1b" not in text.stdout and "␛]52;c;aGk=" in text.stdout
    assert f"└─ {CHILD}" in text.stdout
    one = run_cli(str(ws), "--state", str(state), "--session", MAIN, "--format", "markdown")
    assert one.returncode == 0 and "## Files" in one.stdout and "MEMORY.md" in one.stdout
    missing = run_cli(str(ws), "--state", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and str(tmp_path / "nowhere") in missing.stderr
    assert "Traceback" not in missing.stderr
    unknown = run_cli(str(ws), "--state", str(state), "--session", "agent:main:nope")
    assert unknown.returncode == 2 and "agent:main:nope" in unknown.stderr
    assert run_cli(str(ws), "--state", str(state), "--since", "soon").returncode == 2


def test_a_listing_reads_the_figures_in_sqlite_and_agrees_with_the_whole_reports(
    tmp_path: Path,
) -> None:
    """A listing takes each session's figures out of its entry in SQLite and shares one
    comparison among the sessions of one shape; every row agrees with what reading each
    report whole gives, across kinds (a cron key is not a subagent's), across a file
    changed between two runs (each run naming its own time), and with a malformed and a
    non-object entry named."""
    state = real_state(tmp_path)
    ws = workspace(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    con, entry = writer(db)
    rows = []
    for n, key in enumerate(
        [
            *(f"agent:main:subagent:{n:04d}" for n in range(4)),
            "agent:main:cron:nightly",
            "agent:main:cron:weekly",
            'agent:main:subagent:"quoted"\\',
        ]
    ):
        entry["systemPromptReport"]["generatedAt"] = RECORDED_AT + 2_000_000 * n
        entry["label"] = f"label {n}"
        rows.append((key, f"s{n}", json.dumps(entry), 1, n, MAIN, None))
    rows.append(("agent:main:subagent:broken", "b", '{"oops', 1, 9, MAIN, None))
    rows.append(("agent:main:subagent:array", "a", "[1, 2]", 1, 9, MAIN, None))
    rows.append(("agent:main:subagent:text", "t", '"{}"', 1, 9, MAIN, None))
    rows.append(("agent:main:subagent:bare", "e", " {}", 1, 9, MAIN, None))  # no report yet
    add(con, rows)
    # AGENTS.md changed between the second and third of those runs (their records, copied,
    # still say its old size: a change found by its size, dated for the runs before it)
    (ws / "AGENTS.md").write_text((ws / "AGENTS.md").read_text() + "\nEdited.\n")
    at = (RECORDED_AT + 3_000_000) / 1000
    os.utime(ws / "AGENTS.md", (at, at))
    before = listing(state)
    inspector = Inspector(ws)
    light = list_runs(inspector, state=state)
    whole = list_runs(inspector, state=state, whole=True)
    assert listing(state) == before
    assert not any(r.run.whole for r in light.rows if r.run.problem is None)
    assert all(r.run.whole for r in whole.rows)

    assert what_rows_say(light) == what_rows_say(whole)
    every = sorted(r.session_key for r in read_state(state).runs)  # each entry read whole
    assert sorted(r.run.session_key for r in light.rows) == every
    assert [str(d) for d in light.problems] == [str(d) for d in whole.problems]
    assert {d.message.split(": ")[0] for d in light.problems} == {
        "session agent:main:subagent:broken",
        "session agent:main:subagent:array",
        "session agent:main:subagent:text",
    }
    bare = next(r for r in light.rows if r.run.session_key == "agent:main:subagent:bare")
    assert bare.run.problem is None and bare.run.report is None
    comparisons = {r.run.session_key: r.comparison for r in light.rows}
    cron, sub = comparisons["agent:main:cron:nightly"], comparisons["agent:main:subagent:0000"]
    assert cron is not None and sub is not None
    assert cron.predicted_prompt_chars != sub.predicted_prompt_chars
    changed = {
        key: next(d.why for d in c.differences if d.item == "file:AGENTS.md")
        for key, c in comparisons.items()
        if c and any(d.item == "file:AGENTS.md" and d.cause == CHANGED for d in c.differences)
    }
    assert set(changed) == {key for key, c in comparisons.items() if c is not None}
    dated = {key for key, why in changed.items() if ": modified " in why}
    assert dated == {MAIN, CHILD, "agent:main:subagent:0000", "agent:main:subagent:0001"}


def test_one_session_shows_what_it_spawned_at_any_depth(tmp_path: Path) -> None:
    """`--session KEY` reads the session and those it spawned, however they name their
    parent (the `spawned_by` column, or only the entry's `spawnedBy`), at any depth, and
    no other: a session spawned by another root is not shown."""
    state, _db, con, entry = real_writer(tmp_path)
    rows = []
    # (key, parent in the column, parent in the entry only)
    for n, (key, column, inside) in enumerate(
        [
            ("agent:main:subagent:grandchild", CHILD, None),
            ("agent:main:subagent:great", None, "agent:main:subagent:grandchild"),
            ("agent:main:chat:other", None, None),
            ("agent:main:subagent:elsewhere", "agent:main:chat:other", None),
        ]
    ):
        entry["systemPromptReport"]["generatedAt"] = RECORDED_AT + 10_000 * (n + 1)
        entry["spawnedBy"] = inside
        rows.append((key, f"s{n}", json.dumps(entry), 1, n, column, None))
    add(con, rows)
    view = list_runs(Inspector(workspace(tmp_path)), state=state, session=MAIN.upper())
    assert [(r.run.session_key, r.level) for r in view.rows] == [
        (MAIN, 0),
        (CHILD, 1),
        ("agent:main:subagent:grandchild", 2),
        ("agent:main:subagent:great", 3),
    ]
    assert all(r.run.whole and r.comparison is not None for r in view.rows)
    one = list_runs(None, state=state, session="agent:main:subagent:grandchild")
    assert [r.run.session_key for r in one.rows] == [
        "agent:main:subagent:grandchild",
        "agent:main:subagent:great",
    ]


def test_the_command_lists_the_stores_its_config_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ctxscope runs --state DIR`: where the workspace's config (`session.store`) names
    another store than the state folder's own, that store is listed."""
    from ctxscope.cli import main

    ws = workspace(tmp_path)
    state = real_state(tmp_path)
    moved = tmp_path / "moved" / "sessions.json"
    moved.parent.mkdir()
    db = moved.parent / "openclaw-agent.sqlite"
    shutil.copyfile(state / "agents" / "main" / "agent" / "openclaw-agent.sqlite", db)
    _edit(db, "update session_nodes set label=? where session_key=?", "from-the-moved-store", CHILD)
    assert main(["runs", str(ws), "--state", str(state)]) == 0
    assert "from-the-moved-store" not in capsys.readouterr().out
    config = json.loads((ws / "openclaw.json").read_text())
    config["session"] = {"store": str(moved)}
    (ws / "openclaw.json").write_text(json.dumps(config))
    assert main(["runs", str(ws), "--state", str(state)]) == 0
    assert "from-the-moved-store" in capsys.readouterr().out


def test_a_table_without_rowids_is_listed(tmp_path: Path) -> None:
    """A hand-made store whose table has no rowids is listed."""
    db = tmp_path / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute(
        "create table session_nodes (session_key text primary key, entry_json text,"
        " updated_at int) without rowid"
    )
    entry = json.dumps({"systemPromptReport": {"model": "m", "generatedAt": RECORDED_AT}})
    con.executemany(
        "insert into session_nodes values (?,?,?)",
        [(f"agent:main:subagent:{n}", entry, n) for n in range(10)],
    )
    con.commit()
    con.close()
    read = read_state(tmp_path / "state", whole=False)
    assert not read.problems
    assert len(read.runs) == 10 and {r.figure("model") for r in read.runs} == {"m"}


def test_a_time_no_date_holds_and_a_tool_named_by_an_object_are_shown(tmp_path: Path) -> None:
    """A recorded time out of any calendar's range (two runs of one shape: one comparison
    told the other's time), and a recorded tool whose name is no text: each listed and
    shown, in every format."""
    state, _db, con, entry = real_writer(tmp_path)
    rows = []
    for n in range(2):
        key = f"agent:main:subagent:far{n}"
        entry["systemPromptReport"]["generatedAt"] = -(10**20) + n * 1000  # before any file
        rows.append((key, "s", json.dumps(entry), 1, n, MAIN, "x"))
    entry["systemPromptReport"]["generatedAt"] = RECORDED_AT
    entry["systemPromptReport"]["tools"]["entries"][0]["name"] = {"not": "text"}
    rows.append(("agent:main:subagent:oddtool", "s", json.dumps(entry), 1, 3, MAIN, "x"))
    add(con, rows)
    ws = workspace(tmp_path)
    (ws / "AGENTS.md").write_text("edited after every run\n")  # a file changed since
    inspector = Inspector(ws)
    for whole in (False, True):
        view = list_runs(inspector, state=state, whole=whole)
        far = [r for r in view.rows if r.run.session_key.startswith("agent:main:subagent:far")]
        assert len(far) == 2
        for row in far:
            assert row.comparison is not None
            why = " ".join(d.why for d in row.comparison.differences)
            assert "(no date)" in why
        odd = next(r for r in view.rows if r.run.session_key.endswith("oddtool"))
        assert odd.comparison is not None
        for fmt in ("text", "markdown", "html", "json"):
            shown = output.render(view, fmt)
            assert "(no date)" in shown or fmt == "json"
        for row in far:  # the Runs panel's row, and the run as a side of `diff`
            cells = runs_panel._cells(row, False, "bold", "dim")
            assert "(no date)" in str(cells[3])
            side = compare_specs(ws, f"run:{row.run.session_key}", state=state)
            assert side.before.endswith("(no date))")


def test_text_that_is_not_utf8_in_one_session_leaves_the_rest_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session whose entry and label hold bytes that are not UTF-8: every session is
    still read, whole and for a listing, that one's bytes shown as escapes, with a warning
    naming the store; the command's text and JSON are written."""
    from ctxscope.cli import main

    state, db, con, entry = real_writer(tmp_path)
    text = json.dumps(entry, separators=(",", ":")).replace(
        '"label":"wire"', '"label":"w\\udcffre"'
    )
    con.execute(
        "insert into session_nodes (session_key, current_session_id, entry_json,"
        " entry_valid, updated_at, spawned_by, label)"
        " values (?, 's', CAST(? AS TEXT), 1, 5, ?, CAST(? AS TEXT))",
        ("agent:main:subagent:bytes", text.encode("utf-8", "surrogateescape"), MAIN, b"la\xffbel"),
    )
    con.commit()
    con.close()
    for whole in (True, False):
        read = read_state(state, whole=whole)
        assert {r.session_key for r in read.runs} == {MAIN, CHILD, "agent:main:subagent:bytes"}
        (warning,) = read.problems
        assert warning.severity == "warning" and warning.path == str(db)
        assert "not UTF-8" in warning.message
        odd = next(r for r in read.runs if r.session_key == "agent:main:subagent:bytes")
        assert odd.label == "la\udcffbel" and odd.report is not None
    ws = workspace(tmp_path)
    assert main(["runs", str(ws), "--state", str(state)]) == 0
    out = capsys.readouterr().out
    assert "la\\udcffbel" in out and "not UTF-8" in out
    assert main(["runs", str(ws), "--state", str(state), "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {s["session_key"] for s in listed["sessions"]} >= {"agent:main:subagent:bytes"}
