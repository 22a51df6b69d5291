"""Benchmark: the inspector while a gateway appends runs to the store it watches.

    .venv/bin/python benchmarks/bench_runs_tui.py [--seconds S] [--rate R] [--sessions N]

The state folder holds the real store the OpenClaw 2026.9.6 gateway left (tests/runs/data)
with N sessions more in its shape. A writer process stands in for the gateway: in WAL mode,
as the gateway writes, it adds a run R times a second (a new child's entry, and every fifth
time the chosen child's entry again, with a later `generatedAt`). The app (200x50, watching,
as `ctxscope` runs it) shows the Runs panel with the child's run beside the prediction.

Prints JSON: the worst and p95/p99 delay of a 10 ms UI timer over the S seconds (a frame
held up shows as a late tick; target ≤ 33 ms), the time each applied listing took on the
UI thread (min/median/max), how many runs were written and listings applied (each the newest
screenful, read through the store's `updated_at` index), and the CPU time (user + system) the
app's process used over the S seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_tui import _percentile, ticker  # noqa: E402

STORE = REPO / "tests" / "runs" / "data" / "openclaw-agent-2026.9.6.sqlite.gz"
MAIN = "agent:main:main"
CHILD = "agent:main:subagent:d4e4a2e4-1ba0-48c1-b6be-7fbb47e480bb"
TARGET_MS = 33

WRITER = r"""
import json, sqlite3, sys, time
db, rate, seconds, child = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
con = sqlite3.connect(db, isolation_level=None)
con.execute("pragma journal_mode=wal")
entry = json.loads(
    con.execute("select entry_json from session_nodes where session_key=?", (child,)).fetchone()[0]
)
written, start, n = 0, time.monotonic(), 0
while time.monotonic() - start < seconds:
    n += 1
    entry["systemPromptReport"]["generatedAt"] += 1000
    key = child if n % 5 == 0 else f"agent:main:subagent:appended-{n:06d}"
    con.execute(
        "insert into session_nodes (session_key, current_session_id, entry_json, entry_valid,"
        " updated_at, spawned_by, label) values (?,?,?,?,?,?,?) on conflict(session_key) do"
        " update set entry_json=excluded.entry_json, updated_at=excluded.updated_at",
        (key, f"s{n}", json.dumps(entry), 1, int(time.time() * 1000), "agent:main:main", "w"),
    )
    written += 1
    time.sleep(max(0.0, start + n / rate - time.monotonic()))
print(written)
"""


def write_state(root: Path, sessions: int) -> Path:
    db = root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    db.write_bytes(gzip.decompress(STORE.read_bytes()))
    con = sqlite3.connect(db)
    for (name,) in con.execute("select name from sqlite_master where type='trigger'").fetchall():
        con.execute(f'drop trigger "{name}"')  # functions this SQLite may lack
    entry = json.loads(
        con.execute(
            "select entry_json from session_nodes where session_key=?", (CHILD,)
        ).fetchone()[0]
    )
    rows = []
    for n in range(sessions):
        entry["systemPromptReport"]["generatedAt"] -= 1000
        key = f"agent:main:subagent:earlier-{n:06d}"
        rows.append((key, f"e{n}", json.dumps(entry), 1, n, MAIN, "earlier"))
    con.executemany(
        "insert into session_nodes (session_key, current_session_id, entry_json, entry_valid,"
        " updated_at, spawned_by, label) values (?,?,?,?,?,?,?)",
        rows,
    )
    con.commit()
    con.close()
    return root / "state"


async def run(root: Path, seconds: float, rate: float, sessions: int) -> dict[str, object]:
    from ctxscope.tui.app import make_app
    from ctxscope.tui.widgets.tables import KeyedTable

    ws = root / "ws"
    shutil.copytree(REPO / "sample_workspace", ws, symlinks=True)
    state = write_state(root, sessions)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    app = make_app(ws, watch=True, state=str(state))
    app.calm_gc = True  # as `ctxscope` runs it
    applied: list[float] = []
    apply = app._apply_runs

    def timed_apply(*args: object) -> None:
        began = time.perf_counter()
        apply(*args)  # type: ignore[arg-type]
        applied.append((time.perf_counter() - began) * 1000)

    app._apply_runs = timed_apply  # type: ignore[method-assign]
    delays: list[float] = []
    async with app.run_test(size=(200, 50)) as pilot:
        while app.build is None or not app.watched or app.runs_view is None:
            await pilot.pause(0.02)
        await pilot.press("9")
        table = app.query_one("#runs-table", KeyedTable)
        while CHILD not in table.keys:
            await pilot.pause(0.02)
        table.focus()
        table.move_cursor(table.index(CHILD))
        await pilot.press("enter")
        while app.recorded is None:
            await pilot.pause(0.02)
        await pilot.pause(1.5)  # the first build's follow-ups and the collection after it
        reads = app.runs_reads
        applied.clear()
        used = resource.getrusage(resource.RUSAGE_SELF)
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(rate), str(seconds), CHILD],
            stdout=subprocess.PIPE,
            text=True,
        )
        timer = app.set_interval(0.01, ticker(delays))
        while writer.poll() is None:
            await pilot.pause(0.05)
        await pilot.pause(1.0)  # the last write's listing
        timer.stop()
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) * 1000
        written = int((writer.stdout.read() if writer.stdout else "0").strip() or 0)
        listings = app.runs_reads - reads
    return {
        "sessions_before": sessions + 2,
        "runs_written": written,
        "rate_per_s": rate,
        "listings_applied": listings,
        "app_cpu_ms": round(cpu, 1),
        "timer_ticks": len(delays),
        "worst_frame_delay_ms": round(max(delays), 1) if delays else 0.0,
        "p99_frame_delay_ms": round(_percentile(delays, 99), 1) if delays else 0.0,
        "p95_frame_delay_ms": round(_percentile(delays, 95), 1) if delays else 0.0,
        "listing_applied_on_ui_thread_ms": {
            "min": round(min(applied), 1) if applied else 0.0,
            "median": round(statistics.median(applied), 1) if applied else 0.0,
            "max": round(max(applied), 1) if applied else 0.0,
        },
        "target_ms": TARGET_MS,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=4.0, help="runs written a second")
    parser.add_argument("--sessions", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxscope-bench-") as tmp:
        root = Path(tmp)
        os.environ["CTXSCOPE_CONFIG_DIR"] = str(root / "config")
        os.environ.pop("USER_SPACE", None)
        os.environ.pop("OPENCLAW_STATE_DIR", None)
        result = await run(root, args.seconds, args.rate, args.sessions)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
