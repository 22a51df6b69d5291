"""Hostile session stores and runtime folders: a store is data. A store that would run
forever is not read (a view) or stopped (a deadline); a bad entry is one diagnostic naming
its store and key while the rest lists; what the runtime package names is read only when it
is a regular file of bounded size; nothing hangs, nothing crashes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxscope.runs import database, read_state
from tests.runs.stores import CHILD, INSERT, MAIN, real_writer, workspace
from tests.test_hostile import as_unprivileged, open_folder  # noqa: F401 (a fixture)


def cli(*args: Any, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The command, which must end in `timeout` seconds (a hang fails the test)."""
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


ENDLESS = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
    "SELECT 'agent:other:s' || i AS session_key, '{}' AS entry_json FROM n"
)


def other_database(state: Path) -> sqlite3.Connection:
    db = state / "agents" / "other" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    return sqlite3.connect(db)


def test_a_view_over_an_endless_query_is_not_read(tmp_path: Path) -> None:
    state, _, con, _ = real_writer(tmp_path)
    con.close()
    ws = workspace(tmp_path)
    other = other_database(state)
    other.execute(f"CREATE VIEW session_nodes AS {ENDLESS}")
    other.execute("CREATE VIEW schema_meta AS SELECT 1 AS schema_version, 'x' AS app_version")
    other.commit()
    other.close()
    listed = cli("runs", ws, "--state", state)
    assert listed.returncode == 0, listed.stderr
    assert "table session_nodes is a view, not a table: not read" in listed.stdout
    assert MAIN in listed.stdout
    one = cli("runs", ws, "--state", state, "--session", MAIN)
    assert one.returncode == 0, one.stderr
    for command in (["diff", ws, "--from"], ["check", ws, "--against"]):
        out = cli(*command, f"run:{MAIN}", "--state", state)
        assert out.returncode in (0, 1), out.stderr
        assert "internal error" not in out.stderr


def test_a_read_past_its_deadline_is_stopped_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, db, con, _ = real_writer(tmp_path)
    con.executemany(
        INSERT, [(f"agent:main:subagent:{n}", "s", "{}", 1, n, MAIN, None) for n in range(50_000)]
    )
    con.commit()
    con.close()
    monkeypatch.setattr(database, "READ_SECONDS", 0)
    read = read_state(state)
    (problem,) = read.problems
    assert problem.path == str(db)
    assert (
        problem.message
        == "cannot read the session database: reading it took more than 0 s: stopped"
    )


def deep(n: int = 100_000) -> str:
    return "[" * n + "]" * n


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (deep(), "nested too deeply to read"),
        ("NaN", "NaN is no JSON value"),
        ("Infinity", "Infinity is no JSON value"),
    ],
    ids=["deep", "nan", "infinity"],
)
def test_a_bad_database_entry_is_one_diagnostic_and_the_rest_lists(
    tmp_path: Path, entry: str, why: str
) -> None:
    state, db, con, child = real_writer(tmp_path)
    text = json.dumps(child)
    if entry in ("NaN", "Infinity"):
        bad = text.replace('"spawnDepth": 1', f'"spawnDepth": {entry}', 1)
        assert bad != text
    else:
        bad = entry
    con.execute("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", (bad, CHILD))
    con.commit()
    con.close()
    ws = workspace(tmp_path)
    for whole in (True, False):
        read = read_state(state, whole=whole)
        (problem,) = read.problems
        assert problem.path == str(db) and CHILD in problem.message and why in problem.message
        assert any(r.session_key == MAIN and r.report for r in read.runs)
    text_out = cli("runs", ws, "--state", state)
    assert text_out.returncode == 0, text_out.stderr
    assert MAIN in text_out.stdout and why in text_out.stdout
    json_out = cli("runs", ws, "--state", state, "--format", "json")
    assert json_out.returncode == 0, json_out.stderr
    data = json.loads(json_out.stdout, parse_constant=lambda name: pytest.fail(name))
    assert MAIN in {s["session_key"] for s in data["sessions"]}


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        (deep(), "nested too deeply to read"),
        ('{"spawnDepth": NaN}', "NaN is no JSON value"),
        ('{"updatedAt": -Infinity}', "-Infinity is no JSON value"),
    ],
    ids=["deep", "nan", "infinity"],
)
def test_a_bad_sessions_json_entry_is_one_diagnostic_and_the_rest_lists(
    tmp_path: Path, entry: str, why: str
) -> None:
    path = tmp_path / "state" / "agents" / "main" / "sessions" / "sessions.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        '{"agent:main:main": {"updatedAt": 5, "label": "ok, \\"quoted\\" [x]"},\n'
        f' "agent:main:bad": {entry},\n'
        ' "agent:main:after": {"label": "}]"}}'
    )
    read = read_state(tmp_path / "state")
    (problem,) = read.problems
    assert problem.path == str(path)
    assert (
        problem.message.startswith("session agent:main:bad: corrupt entry")
        and why in problem.message
    )
    assert [r.session_key for r in read.runs] == [
        "agent:main:main",
        "agent:main:bad",
        "agent:main:after",
    ]
    assert read.runs[0].label == 'ok, "quoted" [x]' and read.runs[2].label == "}]"


def test_text_that_is_not_utf8_in_a_key_and_a_blob_entry_is_read(tmp_path: Path) -> None:
    state, _, con, child = real_writer(tmp_path)
    text = json.dumps(child).encode()
    con.execute(
        "INSERT INTO session_nodes (session_key, current_session_id, entry_json, entry_valid,"
        " updated_at, spawned_by, label)"
        " VALUES (CAST(? AS TEXT), 's', CAST(? AS TEXT), 1, 5, ?, 'x')",
        (b"agent:main:subagent:\xff\xfe", text, MAIN),
    )
    con.commit()
    con.close()
    other = other_database(state)
    other.execute("CREATE TABLE session_nodes (session_key, entry_json)")
    other.execute(
        "INSERT INTO session_nodes VALUES (?, ?)",
        ("agent:other:blob", text.replace(b'"wire"', b'"w\xffre"')),
    )
    other.commit()
    other.close()
    ws = workspace(tmp_path)
    for fmt in ("text", "json", "markdown"):
        out = cli("runs", ws, "--state", state, "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert "agent:other:blob" in out.stdout
        assert "subagent:\\udcff\\udcfe" in out.stdout


def test_a_loop_of_links_in_the_agents_folder_hides_no_other_store(tmp_path: Path) -> None:
    state, _, con, _ = real_writer(tmp_path)
    con.close()
    agents = state / "agents"
    for n in range(12):
        path = agents / f"a{n:02d}" / "sessions" / "sessions.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({f"agent:a{n:02d}:main": {"updatedAt": n}}))
    for name in ("loop", "zloop", "0loop"):
        (agents / name).symlink_to(name)
    read = read_state(state)
    keys = {r.session_key for r in read.runs}
    assert {f"agent:a{n:02d}:main" for n in range(12)} | {MAIN, CHILD} <= keys
    named = sorted(p.path for p in read.problems)
    assert named == sorted(str(agents / n) for n in ("loop", "zloop", "0loop"))
    assert all("not read: Too many levels of symbolic links" in p.message for p in read.problems)


def test_an_unreadable_agents_folder_is_named(open_folder: Path) -> None:  # noqa: F811
    state = open_folder / "state"
    (state / "agents" / "main" / "sessions").mkdir(parents=True)
    (state / "agents" / "main" / "sessions" / "sessions.json").write_text("{}")
    for folder in (state, state / "agents" / "main", state / "agents" / "main" / "sessions"):
        folder.chmod(0o755)
    (state / "agents").chmod(0o000)
    ws = open_folder / "ws"
    ws.mkdir()
    ws.chmod(0o755)
    out = as_unprivileged("runs", str(ws), "--state", str(state))
    assert out.returncode == 0, out.stderr
    assert f"{state / 'agents'}: error: cannot list the agents: Permission denied" in out.stdout
    assert "internal error" not in out.stderr


@pytest.mark.parametrize("kind", ["fifo", "zero", "deep"])
def test_a_runtime_package_json_that_is_no_file_never_hangs(tmp_path: Path, kind: str) -> None:
    state, _, con, _ = real_writer(tmp_path)
    con.close()
    ws = workspace(tmp_path)
    runtime = tmp_path / "runtime"
    (runtime / "dist").mkdir(parents=True)
    package = runtime / "package.json"
    if kind == "fifo":
        os.mkfifo(package)
        why = "not a regular file"
    elif kind == "zero":
        package.symlink_to("/dev/zero")
        why = "not a regular file"
    else:
        package.write_text('{"name": "openclaw", "a": ' + deep() + "}")
        why = "nested too deeply to read"
    where = f"({package}: "
    for command in (["render", ws], ["runs", ws, "--state", state]):
        required = cli(*command, "--exact", "--runtime", runtime)
        assert required.returncode == 2, required.stderr
        assert where in required.stderr and why in required.stderr
        auto = cli(*command, "--exact=auto", "--runtime", runtime)
        assert auto.returncode == 0, auto.stderr
        assert where in auto.stderr and why in auto.stderr


def test_runs_exact_that_cannot_run_exits_2_as_render_does(tmp_path: Path) -> None:
    state, _, con, _ = real_writer(tmp_path)
    con.close()
    ws = workspace(tmp_path)
    empty = tmp_path / "no-runtime"
    empty.mkdir()
    for command in (["render", ws], ["runs", ws, "--state", state]):
        out = cli(*command, "--exact", "--runtime", empty)
        assert out.returncode == 2, (command, out.stderr)
        assert out.stdout == ""
        assert f"exact mode unavailable: --runtime {empty}: no `openclaw` package" in out.stderr


def test_a_number_no_float_holds_is_one_diagnostic_and_json_output_stays_json(
    tmp_path: Path,
) -> None:
    """`1e999` is JSON by its grammar but no float holds it (Python reads it as infinity,
    which JSON output cannot write): the entry is named, the rest lists."""
    state, _, con, child = real_writer(tmp_path)
    text = json.dumps(child)
    bad = text.replace('"promptChars": ', '"promptChars": 1e999, "was": ', 1)
    assert bad != text
    con.execute("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", (bad, CHILD))
    con.commit()
    con.close()
    ws = workspace(tmp_path)
    for extra in ([], ["--session", CHILD]):
        out = cli("runs", ws, "--state", state, "--format", "json", *extra)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout, parse_constant=lambda name: pytest.fail(name))
        said = [d["message"] for d in data["diagnostics"]]
        said += [s["problem"]["message"] for s in data["sessions"] if s["problem"]]
        assert any(CHILD in m and "1e999" in m for m in said), said
    listed = cli("runs", ws, "--state", state, "--format", "json")
    assert MAIN in {s["session_key"] for s in json.loads(listed.stdout)["sessions"]}


def test_a_sessions_json_cut_short_in_a_long_string_is_named_in_bounded_memory(
    tmp_path: Path,
) -> None:
    """OpenClaw stopped while writing (or the disk filled): the file ends inside a long
    string. Finding where each entry ends must not take memory by the string's length
    many times over (a 40 MB string took 4.7 GB): read under a 1.5 GB address-space cap."""
    path = tmp_path / "state" / "agents" / "main" / "sessions" / "sessions.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        '{"agent:main:main": {"label": "ok"},\n "agent:main:cut": {"x": "' + "y" * 40_000_000
    )
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))\n"
        "from pathlib import Path\n"
        "from ctxscope.runs import read_state\n"
        "read = read_state(Path(sys.argv[1]))\n"
        "print([p.message for p in read.problems])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "state")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "corrupt session store" in done.stdout
