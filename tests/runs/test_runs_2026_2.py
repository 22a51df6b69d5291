"""`ctxscope runs` on the `sessions.json` the real OpenClaw 2026.2.19 gateway left after a wire
capture of the sample (`tests/openclaw/wirecapture.py`: an `openclaw agent` turn of the main
agent that spawned a child labelled `wire`; the first spawn attempt, made before the capture
approved the device scope upgrade, left a bare child entry). 2026.2.19 records no
`systemPromptReport` for such turns: every session is listed, none with a report."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from ctxscope import Inspector
from ctxscope.output import render
from ctxscope.runs import list_runs
from ctxscope.runs.store import read_state
from tests.conftest import SAMPLE

STORE = Path(__file__).parent / "data" / "sessions-2026.2.19.json.gz"


def state_of(tmp: Path) -> Path:
    sessions = tmp / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_bytes(gzip.decompress(STORE.read_bytes()))
    return tmp / "state"


def test_the_real_2026_2_store_lists_the_spawn_tree_without_reports(tmp_path: Path) -> None:
    state = state_of(tmp_path)
    before = (state / "agents/main/sessions/sessions.json").read_bytes()
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    view = list_runs(Inspector(ws), state=state)
    rows = [(r.level, r.run.session_key, r.run.spawned_by, r.run.label) for r in view.rows]
    main = "agent:main:main"
    spawned = [key for _, key, parent, label in rows if parent == main and label == "wire"]
    assert len(spawned) == 1 and spawned[0].startswith("agent:main:subagent:")
    assert (1, spawned[0], main, "wire") in rows and (0, main, None, None) in rows
    # The spawn the device scope upgrade held back names no parent: a root of its own.
    assert {level for level, key, _, _ in rows if key not in (main, spawned[0])} == {0}
    assert all(row.run.report is None and row.comparison is None for row in view.rows)
    lines = render(view, "text").splitlines()
    for key in (main, spawned[0]):
        [line] = [line for line in lines if key in line]
        assert line.rstrip().endswith("no report recorded")
    # The model the child's entry names (its report-less run's), where the main's names none.
    [child_line] = [line for line in lines if spawned[0] in line]
    assert " wire/wire-model " in child_line
    shown = json.loads(render(view, "json"))
    assert [s["recorded"] for s in shown["sessions"]] == [None] * len(rows)
    assert (state / "agents/main/sessions/sessions.json").read_bytes() == before
    assert sorted(p.name for p in (state / "agents/main/sessions").iterdir()) == ["sessions.json"]


def test_the_real_2026_2_store_reads_every_entry(tmp_path: Path) -> None:
    read = read_state(state_of(tmp_path))
    data = json.loads(gzip.decompress(STORE.read_bytes()))
    assert sorted(r.session_key for r in read.runs) == sorted(data)
    assert [r.store_kind for r in read.runs] == ["json"] * len(data)
    assert read.problems == []
