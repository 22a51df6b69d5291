"""A listing of a large database read by forked children while the command loads the
workspace (`ctxscope.runs.ahead`) gives exactly what reading it in turn gives, whatever the
children did or failed to do, and leaves no process and no changed file behind."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ctxscope import crew, processes
from ctxscope.runs import ahead, read_state, store
from ctxscope.runs.ahead import ReadAhead
from tests.runs.stores import CHILD, INSERT, MAIN, add, listing, real_writer, workspace
from tests.runs.test_scan import cases, child, compact

REAL_MIN_ROWS = ahead.MIN_ROWS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


@pytest.fixture(autouse=True)
def small_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of a few rowids, in a database of any size; two children, whatever this machine's
    CPUs and the test runner's threads. The connections earlier tests left closing on
    threads of their own (`store._close_later`) are closed before each fork: a child
    forked while one holds SQLite's lock would wait for it forever (a command forks before
    any read)."""
    monkeypatch.setattr(ahead, "MIN_ROWS", 1)
    monkeypatch.setattr(ahead, "RUN_ROWS", 7)
    monkeypatch.setattr(crew, "can_fork", lambda: bool(open_fds()))
    monkeypatch.setattr(crew, "workers", lambda: 3)


def big_state(tmp: Path) -> tuple[Path, Path]:
    """The real store with 300 sessions in OpenClaw's form among the hand-made ones the
    text cannot settle (`test_scan.cases`), some rowids gone: the state folder and the
    database."""
    state, db, con, entry = real_writer(tmp)
    odd, _ = cases(entry)
    rows: list[tuple[Any, ...]] = []
    for n in range(300):
        key = f"agent:main:subagent:many{n:04d}"
        rows.append((key, f"id-{n}", compact(child(entry, key, 100 + n)), 1, n, MAIN, "x"))
        if n % 13 == 0 and odd:
            rows.append(odd.pop())
    con.executemany(INSERT, [*rows, *odd])
    con.execute("delete from session_nodes where session_key like '%many00_7'")
    con.commit()
    con.close()
    return state, db


def in_turn(state: Path) -> list[Any]:
    return read_state(state, whole=False).runs


def scans(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The runs of rowids this process scans from here on."""
    taken: list[Any] = []
    rows = store.TableScan.rows

    def spy(self: store.TableScan, bounds: Any = None) -> Any:
        taken.append(bounds)
        return rows(self, bounds)

    monkeypatch.setattr(store.TableScan, "rows", spy)
    return taken


def queued(started: ReadAhead, db: Path) -> int:
    """How many runs still wait in the database's pipe."""
    out = fcntl.ioctl(started.started[str(db)].queue, termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", out)[0])


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_childrens_rows_are_the_rows_read_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, db = big_state(tmp_path)
    expected = in_turn(state)
    before = listing(state)
    started = ReadAhead.start([db])
    children = [c.pid for c in started.started[str(db)].children]
    assert len(children) == 2
    deadline = time.monotonic() + 60
    while queued(started, db) and time.monotonic() < deadline:  # the children took them all
        time.sleep(0.01)
    taken = scans(monkeypatch)
    read = read_state(state, whole=False, reader=started.reader)
    assert [b for b in taken if b is not None] == []  # every run was a child's
    assert read.runs == expected
    assert [r.session_key for r in read.runs] == [r.session_key for r in expected]
    assert {r.session_key for r in read.runs} >= {MAIN, CHILD, "agent:main:subagent:inarray"}
    assert all(gone(pid) for pid in children)
    assert listing(state) == before


def test_runs_a_child_took_and_never_sent_mean_a_read_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Children that take runs and end without a word (here: every run they can take),
    and children killed wherever they were: the command reads the table in turn."""
    state, db = big_state(tmp_path)
    expected = in_turn(state)

    def took_and_ended(self: Any, out: Any) -> None:
        for _ in crew.taken(self.queue):
            pass
        os._exit(1)

    work = ahead._Database._work
    monkeypatch.setattr(ahead._Database, "_work", took_and_ended)
    started = ReadAhead.start([db])
    monkeypatch.setattr(ahead._Database, "_work", work)
    taken = scans(monkeypatch)
    read = read_state(state, whole=False, reader=started.reader)
    assert read.runs == expected
    assert None in taken  # the whole table, in turn

    started = ReadAhead.start([db])
    for child_process in started.started[str(db)].children:
        os.kill(child_process.pid, signal.SIGKILL)  # wherever it was
    assert read_state(state, whole=False, reader=started.reader).runs == expected


def test_a_child_that_fails_means_a_read_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child whose scan raises (here on its third run) sends what it did before; the
    command reads the table in turn, and the listing is whole."""
    state, db = big_state(tmp_path)
    expected = in_turn(state)
    rows = store.TableScan.rows
    done: list[Any] = []

    def failing(self: store.TableScan, bounds: Any = None) -> Any:
        done.append(bounds)
        if len(done) == 3:
            raise sqlite3.OperationalError("disk I/O error")
        return rows(self, bounds)

    monkeypatch.setattr(store.TableScan, "rows", failing)  # the children's copy
    started = ReadAhead.start([db])
    monkeypatch.setattr(store.TableScan, "rows", rows)
    assert read_state(state, whole=False, reader=started.reader).runs == expected


def test_a_database_the_command_does_not_read_has_its_children_stopped(tmp_path: Path) -> None:
    _state, db = big_state(tmp_path)
    started = ReadAhead.start([db])
    children = [c.pid for c in started.started[str(db)].children]
    started.close()
    assert started.started == {}
    assert all(gone(pid) for pid in children)


def test_no_children_where_reading_in_turn_is_what_it_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, db = big_state(tmp_path)
    # a gateway at work (a -wal): one moment of it, read in one transaction
    wal = Path(f"{db}-wal")
    wal.write_bytes(b"")
    assert ReadAhead.start([db]).started == {}
    wal.unlink()
    # a small database
    monkeypatch.setattr(ahead, "MIN_ROWS", 10_000)
    assert ReadAhead.start([db]).started == {}
    monkeypatch.setattr(ahead, "MIN_ROWS", 1)
    # a process that may not fork (another thread), or has one CPU to give
    monkeypatch.setattr(crew, "can_fork", lambda: False)
    assert ReadAhead.start([db]).started == {}
    monkeypatch.setattr(crew, "can_fork", lambda: bool(open_fds()))
    monkeypatch.setattr(crew, "workers", lambda: 1)
    assert ReadAhead.start([db]).started == {}
    # a store that is no database, and a table OpenClaw's form does not fit
    monkeypatch.setattr(crew, "workers", lambda: 2)
    assert ReadAhead.start([state / "agents" / "main" / "sessions" / "sessions.json"]).started == {}
    con = sqlite3.connect(db)
    con.execute("alter table session_nodes rename column entry_valid to valid")
    con.commit()
    con.close()
    assert ReadAhead.start([db]).started == {}


def test_a_database_changed_since_the_children_started_is_read_in_turn(
    tmp_path: Path,
) -> None:
    """A gateway started meanwhile and wrote a turn (a -wal appeared): the children's rows,
    read from the file as it was, are not used; the listing shows the turn."""
    state, db = big_state(tmp_path)
    started = ReadAhead.start([db])
    gateway = sqlite3.connect(db)
    try:
        gateway.execute("pragma journal_mode=wal")
        gateway.execute("pragma wal_autocheckpoint=0")
        gateway.execute("update session_nodes set label='later' where session_key=?", (CHILD,))
        gateway.commit()
        read = read_state(state, whole=False, reader=started.reader)
        assert read.runs == in_turn(state)
        assert {r.session_key: r.label for r in read.runs}[CHILD] == "later"
    finally:
        gateway.close()


def test_the_command_lists_the_same_with_children_and_without(tmp_path: Path) -> None:
    """`ctxscope runs` as a user runs it, on a store over `MIN_ROWS` sessions: the same
    answer with children (where this machine has a CPU for one) and in turn
    (`CTXSCOPE_WORKERS=1`), and nothing in the state folder changes."""
    state, _db, con, entry = real_writer(tmp_path)
    rows = []
    for n in range(REAL_MIN_ROWS):
        parent = f"agent:main:chat:{n // 100:03d}"
        key = parent if n % 100 == 0 else f"agent:main:subagent:{n:05d}"
        made = child(entry, key, n)
        made["spawnedBy"] = None if key == parent else parent
        rows.append((key, f"id-{n}", compact(made), 1, n, made["spawnedBy"], "x"))
    con.executemany(INSERT, rows)
    con.commit()
    con.close()
    ws = workspace(tmp_path)
    before = listing(state)
    outputs = []
    for workers in ("1", "2"):
        env = {k: v for k, v in os.environ.items() if k != "OPENCLAW_STATE_DIR"}
        env["CTXSCOPE_WORKERS"] = workers
        done = subprocess.run(
            [sys.executable, "-m", "ctxscope", "runs", str(ws), "--state", str(state)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count("agent:main:subagent:") == REAL_MIN_ROWS - REAL_MIN_ROWS // 100 + 1
    assert listing(state) == before


def test_a_turn_written_and_merged_after_the_children_read_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gateway started after the children had read the database, wrote a turn and
    stopped (merging its -wal into the file and deleting it) before the command read it:
    the file is no longer the one the children read, and the listing shows the turn, as a
    read in turn made now does."""
    state, db = big_state(tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    work = ahead._Database._work

    class Marked:
        def __init__(self, out: Any) -> None:
            self.out = out

        def write(self, data: bytes) -> int:
            (marks / str(os.getpid())).touch()  # done reading
            return int(self.out.write(data))

    monkeypatch.setattr(ahead._Database, "_work", lambda self, out: work(self, Marked(out)))
    started = ReadAhead.start([db])
    children = {str(c.pid) for c in started.started[str(db)].children}
    deadline = time.monotonic() + 60
    while {p.name for p in marks.iterdir()} != children and time.monotonic() < deadline:
        time.sleep(0.01)
    assert queued(started, db) == 0  # the children read every run
    gateway = sqlite3.connect(db)
    gateway.execute("pragma journal_mode=wal")
    gateway.execute("update session_nodes set label='later' where session_key=?", (CHILD,))
    gateway.commit()
    gateway.close()
    assert not Path(f"{db}-wal").exists()
    read = read_state(state, whole=False, reader=started.reader)
    assert {r.session_key: r.label for r in read.runs}[CHILD] == "later"
    assert read.runs == in_turn(state)


def test_an_interrupt_while_the_children_start_leaves_none_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C between two forks: the child already forked is stopped and reaped, and the
    interrupt goes on to the command (which says it was interrupted)."""
    _state, db = big_state(tmp_path)
    fork = crew.Forked.start
    forked: list[int] = []

    def interrupted(role: str, work: Any) -> Any:
        if forked:
            raise KeyboardInterrupt
        child_process = fork(role, work)
        assert child_process is not None
        forked.append(child_process.pid)
        return child_process

    monkeypatch.setattr(crew.Forked, "start", interrupted)
    fds = sorted(os.listdir("/proc/self/fd"))
    with pytest.raises(KeyboardInterrupt):
        ReadAhead.start([db])
    assert forked
    assert all(gone(pid) for pid in forked)
    assert sorted(os.listdir("/proc/self/fd")) == fds


def test_an_entry_only_a_lenient_json_reader_takes_is_listed_as_in_turn(
    tmp_path: Path,
) -> None:
    """An entry that is no strict JSON (a trailing comma, which SQLite 3.42 and later reads
    as JSON5) in a run a child reads, and a malformed one in another run: its row says what
    a read in turn says, and what reading it whole says (the entry is corrupt), whichever
    process read its run and whatever the other runs hold."""
    state, db = big_state(tmp_path)
    con = sqlite3.connect(db)
    (last,) = con.execute("select max(rowid) from session_nodes").fetchone()
    key = "agent:main:subagent:lenient"
    text = compact(child({"systemPromptReport": {"systemPrompt": {}}}, key, 1))
    con.execute(
        "insert into session_nodes (rowid, session_key, current_session_id, entry_json,"
        " entry_valid, updated_at, spawned_by, label) values (?,?,?,?,?,?,?,?)",
        (last + 100, key, "id-1", text[:-1] + ",}", 1, 1, MAIN, "x"),
    )
    con.commit()
    con.close()
    expected = read_state(state, whole=False)
    whole = read_state(state)
    read = read_state(state, whole=False, reader=ReadAhead.start([db]).reader)
    assert read.runs == expected.runs
    assert [str(d) for d in read.problems] == [str(d) for d in expected.problems]
    lenient = [str(d) for d in whole.problems if key in str(d)]
    assert lenient
    assert [str(d) for d in read.problems if key in str(d)] == lenient


def renumbered(db: Path, rowid: Any) -> None:
    """The database's rows given the rowids `rowid(n)`, n = 0, 1, … in their order."""
    con = sqlite3.connect(db)
    old = [r for (r,) in con.execute("select rowid from session_nodes order by rowid")]
    away = 2 * 10**15
    con.execute("update session_nodes set rowid = rowid - ?", (away,))  # out of the way first
    for n, was in enumerate(old):
        con.execute("update session_nodes set rowid = ? where rowid = ?", (rowid(n), was - away))
    con.commit()
    con.close()


def open_fds() -> list[str]:
    """This process's file descriptors, once the connections closed on threads of their
    own (`store._close_later`) are."""
    for thread in threading.enumerate():
        if thread.name.endswith("(close)"):
            thread.join(10)
    return sorted(os.listdir("/proc/self/fd"))


def same_with_children(state: Path, db: Path, taken: int = 0) -> None:
    """The listing with children is the listing read in turn, problems and all, and no
    child and no file descriptor is left behind (`taken`: once the children have taken
    this many runs)."""
    expected = read_state(state, whole=False)
    before = listing(state)
    fds = open_fds()
    started = ReadAhead.start([db])
    children = [c.pid for c in started.started[str(db)].children]
    assert children
    runs = len(started.started[str(db)].runs)
    deadline = time.monotonic() + 60
    while queued(started, db) > runs - taken and time.monotonic() < deadline:
        time.sleep(0.01)
    read = read_state(state, whole=False, reader=started.reader)
    assert read.runs == expected.runs
    assert [str(d) for d in read.problems] == [str(d) for d in expected.problems]
    assert all(gone(pid) for pid in children)
    assert open_fds() == fds
    assert listing(state) == before


@pytest.mark.parametrize(
    "rowid",
    [
        lambda n: 1 if n == 0 else 10**12 + n,  # two rowids far apart: runs mostly empty
        lambda n: n * 37 - 5000,  # sparse, negative ones first
        lambda n: {0: -(2**63), 1: 2**63 - 1}.get(n, n),  # SQLite's lowest and highest
    ],
    ids=["far-apart", "sparse-negative", "extremes"],
)
def test_rowids_anywhere_give_the_listing_read_in_turn(tmp_path: Path, rowid: Any) -> None:
    state, db = big_state(tmp_path)
    renumbered(db, rowid)
    same_with_children(state, db)


def test_a_damaged_database_gives_the_listing_and_problems_read_in_turn(
    tmp_path: Path,
) -> None:
    """Text that is not UTF-8 (read again with escapes, with a warning) in a run a child
    takes, a newer schema, and then a page overwritten: what a read in turn says, each."""
    state, db = big_state(tmp_path)
    con = sqlite3.connect(db)
    con.execute(
        "update session_nodes set label = CAST(X'ff6162' AS TEXT) where rowid ="
        " (select rowid from session_nodes order by rowid limit 1 offset 150)"
    )
    con.execute("update schema_meta set schema_version = ?", (store.SCHEMA_VERSION + 1,))
    con.commit()
    con.close()
    same_with_children(state, db)
    data = bytearray(db.read_bytes())
    size = int.from_bytes(data[16:18], "big") or 65536
    middle = len(data) // size // 2
    data[middle * size : (middle + 1) * size] = b"\xff" * size
    db.write_bytes(bytes(data))
    same_with_children(state, db)
    assert "corrupt session database" in str(read_state(state, whole=False).problems)


def test_an_interrupt_while_the_command_reads_leaves_no_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, db = big_state(tmp_path)
    fds = open_fds()
    started = ReadAhead.start([db])
    children = [c.pid for c in started.started[str(db)].children]

    def interrupted(self: crew.Forked) -> bytes:
        raise KeyboardInterrupt

    # Ctrl-C while the command waits for a child's rows (it always does, whichever runs
    # the children took)
    monkeypatch.setattr(crew.Forked, "receive", interrupted)
    with pytest.raises(KeyboardInterrupt):
        read_state(state, whole=False, reader=started.reader)
    assert all(gone(pid) for pid in children)
    assert open_fds() == fds


def ended(pid: int) -> bool:
    """`pid` is gone, or a zombie (reaped here when it is this process's: a subreaper
    adopts orphans)."""
    state = processes.stat(pid)
    if state is not None and state.state == "Z" and state.ppid == os.getpid():
        os.waitpid(pid, 0)
    return state is None or state.state == "Z"


def test_children_end_with_a_command_that_was_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command killed outright (SIGKILL, or SIGTERM, which Python does not catch) runs no
    cleanup: its children, at work on runs it will never want, end with it."""
    _state, db = big_state(tmp_path)
    stuck, never = os.pipe()  # a run that never ends: a read of a pipe no one writes
    monkeypatch.setattr(ahead._Database, "_work", lambda self, out: os.read(stuck, 1))
    told, tell = os.pipe()
    open_fds()  # no connection closing on another thread
    command = os.fork()
    if command == 0:
        try:
            started = ReadAhead.start([db])
            pids = [c.pid for c in started.started[str(db)].children]
            os.write(tell, (" ".join(map(str, pids)) + "\n").encode())
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(tell)
    with os.fdopen(told) as said:
        children = [int(p) for p in said.readline().split()]
    os.close(stuck)
    os.close(never)
    assert children
    os.kill(command, signal.SIGKILL)
    os.waitpid(command, 0)
    deadline = time.monotonic() + 10
    while not all(ended(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.01)
    left = [pid for pid in children if not ended(pid)]
    for pid in left:  # not to outlive the test either
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_entries_whose_text_and_sqlite_differ_are_listed_as_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries OpenClaw does not write, of a shape its entries share: another report keyed
    `systemPromptReport` before the entry's own, with another `generatedAt`. Read in
    turn, the first entry of the shape (OpenClaw's) settles the shape for them all; a child
    whose first entry of it is such an entry would settle it otherwise: its rows are not
    used, and the listing is the one read in turn. (One child, which takes the first run
    only; the command takes the others, each starting with such an entry.)"""
    monkeypatch.setattr(crew, "workers", lambda: 2)
    state, db, con, entry = real_writer(tmp_path)
    rows: list[tuple[Any, ...]] = []
    for n in range(100):
        key = f"agent:main:subagent:many{n:04d}"
        rows.append((key, f"id-{n}", compact(child(entry, key, 100 + n)), 1, n, MAIN, "x"))
    for n in range(14):
        key = f"agent:main:subagent:twice{n:02d}"
        text = compact(child(entry, key, 600 + n))
        other = json.loads(text)["systemPromptReport"]
        other["generatedAt"] = 1
        report = '"systemPromptReport":'
        text = text.replace(report, report + compact(other) + "," + report, 1)
        rows.insert(7 * n + 5, (key, f"id-t{n}", text, 1, n, MAIN, "x"))  # a run's first
    add(con, rows)
    taken = crew.taken
    command = os.getpid()

    def first_only(queue: int) -> Any:
        for at, run in enumerate(taken(queue)):
            yield run
            if at == 0 and os.getpid() != command:
                return

    monkeypatch.setattr(crew, "taken", first_only)
    same_with_children(state, db, taken=1)


def test_the_children_are_shared_out_among_the_databases(tmp_path: Path) -> None:
    """One child per other CPU in all (here two), given to the databases in turn: a third
    database is read in turn, and every agent's listing is the one read in turn."""
    state, db = big_state(tmp_path)
    dbs = [db]
    for agent in ("ops", "zeta"):
        other = state / "agents" / agent / "agent" / db.name
        other.parent.mkdir(parents=True)
        shutil.copyfile(db, other)
        con = sqlite3.connect(other)  # the agent's own sessions
        con.execute(
            "update session_nodes set session_key = replace(session_key, 'agent:main:', ?),"
            " spawned_by = replace(spawned_by, 'agent:main:', ?)",
            (f"agent:{agent}:", f"agent:{agent}:"),
        )
        con.commit()
        con.close()
        dbs.append(other)
    expected = in_turn(state)
    started = ReadAhead.start(dbs)
    children = {path: len(d.children) for path, d in started.started.items()}
    assert sum(children.values()) == 2
    assert str(dbs[2]) not in children
    read = read_state(state, whole=False, reader=started.reader)
    assert read.runs == expected
    assert {r.agent_id for r in read.runs} == {"main", "ops", "zeta"}
