"""A listing shows the newest sessions (`--limit N`, a screenful by default; `--all`), the
sessions they were spawned by whatever their age, and how many it leaves out; `--since` picks
by the time each entry was written. On the real 2026.9.6 store with sessions added in its
shape, and on a 2026.2 `sessions.json`."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ctxscope import Inspector
from ctxscope.diff.runlist import list_runs
from ctxscope.runs import SCREENFUL, read_newest, read_state
from tests.runs.stores import CHILD, MAIN, RECORDED_AT, add, listing, real_writer, workspace

NOW = RECORDED_AT + 10_000_000  # ms: the sessions below are written after the real ones


def many(tmp_path: Path, count: int) -> tuple[Path, list[str]]:
    """The real store with `count` sessions more: a chat session every tenth, each of the
    others spawned by the chat session before it; written one second apart, oldest first.
    Returns the state folder and the keys added, oldest first."""
    state, _db, con, entry = real_writer(tmp_path)
    rows, keys = [], []
    parent = MAIN
    for n in range(count):
        if n % 10 == 0:
            key = parent = f"agent:main:chat:{n:05d}"
            spawned_by = None
        else:
            key, spawned_by = f"agent:main:subagent:{n:05d}", parent
        entry["systemPromptReport"]["generatedAt"] = NOW + 1000 * n
        entry["spawnedBy"] = spawned_by
        rows.append((key, f"s{n}", json.dumps(entry), 1, NOW + 1000 * n, spawned_by, "x"))
        keys.append(key)
    add(con, rows)
    return state, keys


def cli(*args: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", "runs", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_newest_sessions_are_listed_with_their_parents_and_the_rest_counted(
    tmp_path: Path,
) -> None:
    state, keys = many(tmp_path, 995)
    before = listing(state)
    view = list_runs(Inspector(workspace(tmp_path)), state=state, limit=3)
    shown = [(r.run.session_key, r.level) for r in view.rows]
    # the three newest, under the chat session that spawned them (older than the three)
    assert shown == [
        ("agent:main:chat:00990", 0),
        ("agent:main:subagent:00992", 1),
        ("agent:main:subagent:00993", 1),
        ("agent:main:subagent:00994", 1),
    ]
    assert all(r.comparison is not None for r in view.rows)
    total = len(keys) + 2  # the real main session and its child
    assert (view.limit, view.not_shown) == (3, total - 4)
    assert view.to_dict()["not_shown"] == total - 4 and view.to_dict()["limit"] == 3
    assert listing(state) == before  # nothing in the state folder changed

    every = list_runs(None, state=state, limit=None)
    assert len(every.rows) == total and every.not_shown == 0
    assert list_runs(None, state=state).not_shown == total - SCREENFUL - 1


def test_a_parent_at_any_depth_is_read_by_its_key(tmp_path: Path) -> None:
    state, _db, con, entry = real_writer(tmp_path)
    entry["systemPromptReport"]["generatedAt"] = NOW
    deeper = "agent:main:subagent:grandchild"
    add(con, [(deeper, "g", json.dumps(entry), 1, NOW, CHILD, "deep")])
    read = read_newest(state, limit=1)
    assert [r.session_key for r in read.runs] == [deeper, CHILD, MAIN]  # newest, its parents
    assert read.not_shown == 0  # the two older ones are shown, as its parents
    view = list_runs(None, state=state, limit=1)
    assert [(r.run.session_key, r.level) for r in view.rows] == [
        (MAIN, 0),
        (CHILD, 1),
        (deeper, 2),
    ]


def test_since_picks_by_the_time_written_and_keeps_the_parents(tmp_path: Path) -> None:
    state, keys = many(tmp_path, 30)
    now = (NOW + 1000 * 29) / 1000  # the newest session's time, in seconds
    view = list_runs(None, state=state, since=4.5, now=now)
    assert (
        [r.run.session_key for r in view.rows]
        == [
            "agent:main:chat:00020",  # older than 4.5 s: shown as the parent
            *keys[25:],
        ]
    )
    assert view.not_shown == 0
    # the same as a WHERE on the whole listing
    every = list_runs(None, state=state, since=4.5, now=now, limit=None)
    assert [r.run.session_key for r in every.rows] == [r.run.session_key for r in view.rows]


def test_the_command_says_how_many_are_not_shown(tmp_path: Path) -> None:
    state, _keys = many(tmp_path, 125)
    ws = workspace(tmp_path)
    text = cli(ws, "--state", state)
    assert text.returncode == 0, text.stderr
    left = 127 - SCREENFUL - 1  # chat:00070 shown beyond the newest, as their parent
    assert f"{left} older sessions not shown" in text.stdout
    assert "--all for every one" in text.stdout
    data = json.loads(cli(ws, "--state", state, "--limit", "5", "--format", "json").stdout)
    assert next(s["session_key"] for s in data["sessions"]) == "agent:main:chat:00120"
    assert len(data["sessions"]) == 5 and data["not_shown"] == 122 and data["limit"] == 5
    every = json.loads(cli(ws, "--state", state, "--all", "--format", "json").stdout)
    assert len(every["sessions"]) == 127 and every["not_shown"] == 0
    assert every["limit"] is None
    bad = cli(ws, "--state", state, "--limit", "0")
    assert bad.returncode == 2 and "--limit" in bad.stderr
    both = cli(ws, "--state", state, "--limit", "5", "--all")
    assert both.returncode == 2


def test_an_agents_newest_are_its_own(tmp_path: Path) -> None:
    state, _db, con, entry = real_writer(tmp_path)
    entry["spawnedBy"] = None
    rows = []
    for n in range(20):
        agent = "coder" if n % 2 else "main"
        key = f"agent:{agent}:subagent:{n:03d}"
        rows.append((key, "s", json.dumps(entry), 1, NOW + n, None, None))
    add(con, rows)
    read = read_newest(state, limit=3, agent="coder")
    assert {r.session_key for r in read.runs} == {
        "agent:coder:subagent:019",
        "agent:coder:subagent:017",
        "agent:coder:subagent:015",
    }
    assert read.not_shown == 7


def test_sessions_json_newest_and_a_key_both_stores_hold_counted_once(tmp_path: Path) -> None:
    state, _db, con, _entry = real_writer(tmp_path)
    con.close()
    path = state / "agents" / "main" / "sessions" / "sessions.json"
    path.parent.mkdir(parents=True)
    sessions = {f"agent:main:chat:{n}": {"updatedAt": NOW + n, "label": f"j{n}"} for n in range(8)}
    sessions[MAIN] = {"updatedAt": 1, "label": "the database's is the one"}
    path.write_text(json.dumps(sessions))
    read = read_newest(state, limit=2)
    assert {r.session_key for r in read.runs} == {"agent:main:chat:7", "agent:main:chat:6"}
    assert read.not_shown == 8  # 6 more of the file's, and the database's 2 (MAIN once)
    every = read_newest(state, limit=None)
    assert len(every.runs) == 10 and every.not_shown == 0
    main = next(r for r in every.runs if r.session_key == MAIN)
    assert main.store.endswith(".sqlite")
    assert {r.session_key for r in every.runs} == {r.session_key for r in read_state(state).runs}


def test_the_default_listing_of_thousands_reads_only_the_newest(tmp_path: Path) -> None:
    """A store of 3,000 sessions whose older entries are all corrupt: the default listing
    never reads them (no problem said), `--all` names each."""
    state, _db, con, entry = real_writer(tmp_path)
    rows = [(f"agent:main:chat:{n:05d}", "s", '{"oops', 1, n, None, None) for n in range(3000)]
    entry["spawnedBy"] = None
    rows += [
        (f"agent:main:chat:new{n}", "s", json.dumps(entry), 1, NOW + n, None, None)
        for n in range(SCREENFUL)
    ]
    add(con, rows)
    began = time.perf_counter()
    read = read_newest(state)
    assert time.perf_counter() - began < 5
    assert not read.problems and len(read.runs) == SCREENFUL
    assert read.not_shown == 3002
    assert len(read_newest(state, limit=None).problems) == 3000


def test_every_session_is_kept_for_the_next_listing_while_the_database_stays(
    tmp_path: Path,
) -> None:
    """`--all` keeps its listing in the cache folder, keyed by the database's identity: the
    next `--all` gives the same rows from it, a gateway's write (here through WAL, as a
    running gateway writes) is seen at once, a cache file that is not one is as if missing,
    and nothing in the state folder changes."""
    state, keys = many(tmp_path, 40)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    ws = workspace(tmp_path)

    def every() -> list[Any]:
        data = json.loads(cli(ws, "--state", state, "--all", "--format", "json").stdout)
        return [(s["session_key"], s["label"], s["updated_at"]) for s in data["sessions"]]

    def light() -> list[Any]:
        view = list_runs(None, state=state, limit=None, cache=True)
        return [
            (r.run.session_key, r.run.label, r.run.figure("systemPrompt", "chars"))
            for r in view.rows
        ]

    before = listing(state)
    first = light()
    kept = list((Path(os.environ["CTXSCOPE_CACHE_DIR"]) / "runs-listings").glob("*.json"))
    assert len(kept) == 1
    assert (
        light()
        == first
        == [
            (r.run.session_key, r.run.label, r.run.figure("systemPrompt", "chars"))
            for r in list_runs(None, state=state, limit=None).rows
        ]
    )
    assert len(every()) == 42
    assert listing(state) == before
    con = sqlite3.connect(db)
    con.execute("pragma journal_mode=wal")
    con.execute("update session_nodes set label='moved' where session_key=?", (keys[-1],))
    con.commit()
    assert "moved" in {label for _, label, _ in light()}
    con.close()
    kept[0].write_text('{"version": 1, "identity": "no"')
    assert {label for _, label, _ in light()} >= {"moved", "x"}
