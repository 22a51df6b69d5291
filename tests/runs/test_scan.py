"""A listing finds each session's figures in its entry's text (`ctxscope.runs.scan`) where
OpenClaw wrote it in its own form, and leaves every other entry to SQLite's JSON functions:
either way each row says what reading the entry whole says."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.diff.runlist import list_runs
from ctxscope.runs import read_state, store
from tests.runs.stores import (
    CHILD,
    MAIN,
    RECORDED_AT,
    add,
    real_writer,
    what_rows_say,
    workspace,
)


def compact(entry: Any) -> str:
    """An entry as OpenClaw writes it (`JSON.stringify`)."""
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


def child(entry: dict[str, Any], key: str, n: int) -> dict[str, Any]:
    """The real child's entry made another session's: its own key, id, time and hash."""
    made = copy.deepcopy(entry)
    report = made["systemPromptReport"]
    report["sessionKey"] = key
    report["sessionId"] = made["sessionId"] = f"id-{n}"
    report["generatedAt"] = RECORDED_AT + 1000 * n
    report["systemPrompt"]["hash"] = f"{n:064x}"
    return made


def moved(entry: dict[str, Any], name: str, after: str) -> dict[str, Any]:
    """`entry` with its key `name` moved to just after `after`."""
    value = entry[name]
    out: dict[str, Any] = {}
    for key, item in entry.items():
        if key != name:
            out[key] = item
        if key == after:
            out[name] = value
    return out


def cases(entry: dict[str, Any]) -> tuple[list[tuple[Any, ...]], set[str]]:
    """Rows (as `INSERT` takes them) of sessions in OpenClaw's form and of sessions the
    text cannot settle, and the keys of the latter."""
    rows: list[tuple[Any, ...]] = []
    left: set[str] = set()

    def put(
        key: str, made: Any, *, text: str | None = None, valid: int = 1, **columns: Any
    ) -> None:
        n = len(rows)
        spawned_by = columns.get("spawned_by", MAIN)
        label = columns.get("label", "wire")
        sid = made.get("sessionId", "x") if isinstance(made, dict) else "x"
        rows.append((key, sid, text or compact(made), valid, n, spawned_by, label))

    def unsettled(key: str, made: Any, **kwargs: Any) -> None:
        put(key, made, **kwargs)
        left.add(key)

    base = "agent:main:subagent:"
    for n in range(3):
        put(f"{base}plain{n}", child(entry, f"{base}plain{n}", n))
    made = child(entry, f"{base}nodepth", 3)
    del made["spawnDepth"]
    put(f"{base}nodepth", made)
    made = child(entry, "agent:main:cron:nightly", 4)  # a top-level session, as a main is
    for name in ("spawnDepth", "spawnedBy", "label"):
        del made[name]
    put("agent:main:cron:nightly", made, spawned_by=None, label=None)
    made = child(entry, f"{base}nullparent", 5)
    made["spawnedBy"] = None
    put(f"{base}nullparent", made, spawned_by=None)
    made = child(entry, f"{base}nohash", 6)
    del made["systemPromptReport"]["systemPrompt"]["hash"]
    put(f"{base}nohash", made)
    made = child(entry, f"{base}unicode", 7)
    made["systemPromptReport"]["workspaceDir"] = '/tmp/wörk ☃ "q"'
    made["systemPromptReport"]["injectedWorkspaceFiles"][0]["name"] = "AGENTS ☃.md"
    put(f"{base}unicode", made)
    # the entry's requester where the column has none: SQLite reads it from the entry
    made = child(entry, f"{base}parentinentry", 8)
    unsettled(f"{base}parentinentry", made, spawned_by=None)
    made = child(entry, f"{base}labelinentry", 9)
    unsettled(f"{base}labelinentry", made, label=None)
    unsettled(f"{base}otherkey", child(entry, f"{base}someoneelse", 10))
    # another report nested before the entry's own (in OpenClaw's order, its fields before
    # the report): the entry's own is the one read
    made = child(entry, f"{base}nestedbefore", 11)
    nested = copy.deepcopy(made["systemPromptReport"])
    nested["model"] = "nested-model"
    made["delivery"] = {"kind": "none", "systemPromptReport": nested}
    put(f"{base}nestedbefore", made)
    made = child(entry, f"{base}deepdepth", 12)
    made = moved(made, "spawnDepth", "delivery")  # past a nested value
    made["delivery"] = {"spawnDepth": 7}
    unsettled(f"{base}deepdepth", made)
    made = child(entry, f"{base}reordered", 13)
    made["systemPromptReport"] = moved(made["systemPromptReport"], "tools", "currentTurn")
    unsettled(f"{base}reordered", made)
    made = child(entry, f"{base}providerfirst", 14)
    made["systemPromptReport"] = moved(made["systemPromptReport"], "source", "provider")
    unsettled(f"{base}providerfirst", made)
    unsettled(f"{base}pending", child(entry, f"{base}pending", 15), valid=0)
    made = child(entry, f"{base}spaced", 16)
    unsettled(f"{base}spaced", made, text=json.dumps(made))
    unsettled(f"{base}broken", {}, text='{"oops')
    unsettled(f"{base}array", {}, text="[1,2]")
    unsettled(f"{base}noreport", {"sessionId": "s", "updatedAt": 1})
    # after sessions of the same shape, entries whose text alone would give that shape's
    # figures: a listed field after the current turn (a report without one went before),
    made = child(entry, f"{base}nomodel", 17)
    model = made["systemPromptReport"].pop("model")
    put(f"{base}nomodel", made)
    made = child(entry, f"{base}modellast", 20)
    del made["systemPromptReport"]["model"]
    made["systemPromptReport"]["model"] = model
    unsettled(f"{base}modellast", made)
    # a report under a key that only ends in `systemPromptReport` (an escaped quote),
    made = child(entry, f"{base}escapedkey", 18)
    made = {'x"systemPromptReport' if k == "systemPromptReport" else k: v for k, v in made.items()}
    unsettled(f"{base}escapedkey", made)
    # and an entry that is no object
    made = child(entry, f"{base}inarray", 19)
    del made["spawnDepth"]
    unsettled(f"{base}inarray", [made])
    return rows, left


def test_a_listing_finds_openclaws_entries_in_their_text_and_leaves_the_rest_to_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, db, con, entry = real_writer(tmp_path)
    rows, left = cases(entry)
    add(con, rows)
    keys = {row[0] for row in rows}
    con = sqlite3.connect(db)
    rowids = dict(con.execute("select session_key, rowid from session_nodes").fetchall())
    con.close()
    sent: list[int] = []
    listed_rows = store._listed_rows

    def spy(con: Any, uri: str, picked: str, where: str, params: Any) -> Any:
        if params:
            sent.extend(json.loads(params[0]))
        return listed_rows(con, uri, picked, where, params)

    monkeypatch.setattr(store, "_listed_rows", spy)
    inspector = Inspector(workspace(tmp_path))
    light = list_runs(inspector, state=state)
    monkeypatch.setattr(store, "_listed_rows", listed_rows)
    whole = list_runs(inspector, state=state, whole=True)
    # the two real sessions are in OpenClaw's form too
    assert {k for k, r in rowids.items() if r in sent} == left
    assert {r.run.session_key for r in light.rows} == keys | {MAIN, CHILD}

    assert what_rows_say(light) == what_rows_say(whole)
    assert [str(d) for d in light.problems] == [str(d) for d in whole.problems]
    by_key = {r.run.session_key: r.run for r in light.rows}
    assert by_key["agent:main:subagent:parentinentry"].spawned_by == MAIN
    assert by_key["agent:main:subagent:deepdepth"].spawn_depth == 1
    assert by_key["agent:main:subagent:unicode"].figure("workspaceDir") == '/tmp/wörk ☃ "q"'
    assert by_key["agent:main:cron:nightly"].depth == 0
    assert by_key["agent:main:subagent:nestedbefore"].figure("model") == "wire-model"
    assert by_key["agent:main:subagent:nomodel"].figure("model") is None
    assert by_key["agent:main:subagent:modellast"].figure("model") == "wire-model"
    assert by_key["agent:main:subagent:escapedkey"].report is None
    assert by_key["agent:main:subagent:inarray"].problem is not None


def test_a_shape_sqlite_reads_otherwise_is_left_to_sqlite(tmp_path: Path) -> None:
    """The first entry of each shape is read by SQLite too: where its figures differ from
    the text's (here a field written twice, which SQLite reads first and Python last), the
    sessions of that shape are listed as SQLite reads them."""
    state, _db, con, entry = real_writer(tmp_path)
    rows = []
    for n in range(3):
        key = f"agent:main:subagent:twice{n}"
        text = compact(child(entry, key, n)).replace(
            '"model":"wire-model"', '"model":"first","model":"wire-model"'
        )
        rows.append((key, f"id-{n}", text, 1, n, MAIN, "x"))
    add(con, rows)
    light = read_state(state, whole=False)
    models = {r.session_key: r.figure("model") for r in light.runs}
    assert [models[f"agent:main:subagent:twice{n}"] for n in range(3)] == ["first"] * 3
    assert models[CHILD] == "wire-model"
