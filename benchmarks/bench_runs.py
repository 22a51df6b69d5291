"""Benchmark: `ctxscope runs` over a state folder of 10,000 recorded sessions, whole process.

    .venv/bin/python benchmarks/bench_runs.py [--runs N] [--sessions N]

The store is the real one the OpenClaw 2026.9.6 gateway left after a wire capture
(`tests/runs/data`), with N sessions added in its shape: a main session per 100, each with
99 children it spawned, every entry a copy of the real child's (its whole report: files,
skills, tools) but for what is each run's own: its key, session id, time and prompt hash
(the prompt names the session key). Each command runs once first so Python's bytecode
cache exists. Prints JSON: min / median / max wall time in milliseconds and the median CPU
time (user + system: what the command costs on a shared machine) of the default listing (the
newest screenful and their parents), of `--all` (every session) and of one session; the floor
on this machine (`FLOOR`: each entry's text and columns taken into Python, in a bare
interpreter) with `--all`'s ratio to it (`--all` timed with the listing its warm-up run
kept in the benchmark's own cache folder), the targets, and the default listing's stages timed
in one process (`STAGES`).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "tests" / "runs" / "data" / "openclaw-agent-2026.9.6.sqlite.gz"
CHILD = "agent:main:subagent:d4e4a2e4-1ba0-48c1-b6be-7fbb47e480bb"
TARGET_MS = 50
"""The default listing, in one process (`STAGES`: read, list and render together)."""
ALL_TARGET_MS = 300


def write_state(folder: Path, sessions: int) -> Path:
    """A state folder whose main agent's store holds `sessions` more sessions."""
    db = db_of(folder / "state")
    db.parent.mkdir(parents=True)
    db.write_bytes(gzip.decompress(STORE.read_bytes()))
    con = sqlite3.connect(db)
    row = con.execute("select entry_json from session_nodes where session_key=?", (CHILD,))
    entry = json.loads(row.fetchone()[0])
    # the schema's triggers use functions this SQLite may lack; the rows are what matter
    for (name,) in con.execute("select name from sqlite_master where type='trigger'").fetchall():
        con.execute(f'drop trigger "{name}"')
    rows = []
    report = entry["systemPromptReport"]
    for n in range(sessions):
        parent = f"agent:main:chat:{n // 100:05d}"
        key = parent if n % 100 == 0 else f"agent:main:subagent:{n:032d}"
        report["generatedAt"] += 1000
        report["sessionKey"] = key
        # as on real runs: each prompt names its session, so each has its own hash and id
        report["systemPrompt"]["hash"] = hashlib.sha256(key.encode()).hexdigest()
        report["sessionId"] = entry["sessionId"] = f"{n:08d}-0000-4000-8000-000000000000"
        entry["spawnedBy"] = None if key == parent else parent
        entry["spawnDepth"] = 0 if key == parent else 1
        rows.append(
            (
                key,
                entry["sessionId"],
                json.dumps(entry, separators=(",", ":")),  # as OpenClaw writes it
                1,
                report["generatedAt"],
                entry["spawnedBy"],
                "x",
            )
        )
    con.executemany(
        "insert into session_nodes (session_key, current_session_id, entry_json, entry_valid,"
        " updated_at, spawned_by, label) values (?,?,?,?,?,?,?)",
        rows,
    )
    con.commit()
    con.execute("pragma journal_mode=delete")
    con.close()
    return folder / "state"


def db_of(state: Path) -> Path:
    return state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


# Python writes its bytecode cache on the first run (as an installed ctxscope has one), even
# where the shell sets PYTHONDONTWRITEBYTECODE.
ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in ("PYTHONDONTWRITEBYTECODE", "OPENCLAW_STATE_DIR")
}


def timed(cmd: list[str], runs: int, env: dict[str, str] = ENV) -> dict[str, float]:
    subprocess.run(cmd, check=True, capture_output=True, env=env)  # bytecode, page cache
    times, cpu = [], []
    for _ in range(runs):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        times.append((time.perf_counter() - began) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) * 1000)
    return {
        "min_ms": round(min(times), 1),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
        # user + system CPU: what the command costs, whatever else the machine runs
        "cpu_median_ms": round(statistics.median(cpu), 1),
    }


FLOOR = r"""
import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?immutable=1", uri=True)
con.execute("PRAGMA mmap_size = 1073741824")
query = "select rowid, session_key, cast(entry_json as blob), spawned_by, label, updated_at"
print(sum(1 for _ in con.execute(query + " from session_nodes")))
"""
"""The floor under a listing on this machine: a bare interpreter (`-S`, no site) that takes
each entry's text and the columns a listing reads into Python, and nothing else."""

STAGES = r"""
import json, statistics, sys, time
from ctxscope import Inspector, output
from ctxscope.runs import read_newest
from ctxscope.diff.runlist import list_runs
ws, state, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
inspector = Inspector(ws)
took = {"read": [], "list": [], "render": [], "together": []}
for _ in range(runs):
    began = time.perf_counter()
    read = read_newest(state, inspector.config.data)
    listed = time.perf_counter()
    view = list_runs(inspector, state=state, read=read)
    made = time.perf_counter()
    output.render(view, "text")
    done = time.perf_counter()
    for name, ms in zip(took, (listed - began, made - listed, done - made, done - began)):
        took[name].append(ms * 1000)
print(json.dumps({k: round(statistics.median(v), 1) for k, v in took.items()}))
"""
"""Where the default listing's time goes, in one process (median ms of each stage over the
runs): the stores read (the newest sessions' keys through the index, their entries, their
parents), the tree and its comparisons, the text, and the three together."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        state = write_state(folder, args.sessions)
        ws = folder / "ws"
        shutil.copytree(ROOT / "sample_workspace", ws)
        env_cmd = [sys.executable, "-m", "ctxscope", "runs", str(ws), "--state", str(state)]
        # its own cache folder: `--all` is timed with the listing its warm-up run kept
        env = {**ENV, "CTXSCOPE_CACHE_DIR": str(folder / "cache")}
        figures = {
            "sessions": args.sessions + 2,
            "store_bytes": db_of(state).stat().st_size,
            "runs_list_text": timed(env_cmd, args.runs, env),
            "runs_all_text": timed([*env_cmd, "--all"], args.runs, env),
            "runs_one_session": timed([*env_cmd, "--session", CHILD], args.runs, env),
            "floor_read_every_entry": timed(
                [sys.executable, "-S", "-c", FLOOR, str(db_of(state))], args.runs
            ),
            "target_in_process_ms": TARGET_MS,
            "target_all_ms": ALL_TARGET_MS,
            "in_process_stages_median_ms": json.loads(
                subprocess.run(
                    [sys.executable, "-c", STAGES, str(ws), str(state), str(args.runs)],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                ).stdout
            ),
        }
        figures["all_over_floor"] = round(
            figures["runs_all_text"]["median_ms"] / figures["floor_read_every_entry"]["median_ms"],
            2,
        )
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
