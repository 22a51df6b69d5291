"""Benchmark: the real `ctxscope` app in a real terminal (tmux), as a user sees it.

    .venv/bin/python benchmarks/bench_terminal.py [--edits 100] [--size 200x50]

Starts `ctxscope WORKSPACE` (a copy of the sample) in a tmux session, then edits SOUL.md
`--edits` times (one save every 0.25 s, real watchfiles events) and, after each save, reads
the screen (`tmux capture-pane`, every ~2 ms) until the main pane's token total shows the
change: save -> text drawn on screen. Also reports the app process's resident memory (RSS)
after the first build and after the last edit. Prints JSON (min / median / p95 / max).
Needs tmux.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SESSION = "ctxscope-bench"
TOTAL = re.compile(r"([\d,]+) / [\d,]+ ≈tok")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def main_total() -> str | None:
    """The main pane's token total as drawn (None until it is on screen)."""
    m = TOTAL.search(tmux("capture-pane", "-p", "-t", SESSION))
    return m.group(1) if m else None


def rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its children (the app runs as one Python process)."""
    total = 0
    for proc in [pid, *children(pid)]:
        status = Path(f"/proc/{proc}/status").read_text()
        total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    return round(total / 1024, 1)


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    found = [int(p) for p in out.split()]
    return found + [g for c in found for g in children(c)]


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--size", default="200x50")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("bench_terminal needs tmux")
    width, height = args.size.split("x")
    exe = Path(sys.executable).with_name("ctxscope")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        shutil.copytree(REPO / "sample_workspace", ws, symlinks=True)
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", SESSION, "-x", width, "-y", height, f"{exe} {ws}"],
            check=True,
            env=env,
        )
        try:
            pid = int(tmux("list-panes", "-t", SESSION, "-F", "#{pane_pid}").split()[0])
            deadline = time.monotonic() + 30
            while main_total() is None:
                if time.monotonic() > deadline:
                    sys.exit("the app did not draw a build within 30 s")
                time.sleep(0.05)
            time.sleep(1.0)  # the first build's follow-ups (scripts pending, watcher start)
            rss_start = rss_mb(pid)
            soul = ws / "SOUL.md"
            base = soul.read_text(encoding="utf-8")
            delays: list[float] = []
            for n in range(args.edits):
                before = main_total()
                # Each edit grows the file by a different amount, so the total always moves.
                soul.write_text(base + "\n" + "word " * (40 + 10 * (n % 7)), encoding="utf-8")
                start = time.perf_counter()
                while main_total() == before:
                    if time.perf_counter() - start > 5:
                        break
                delays.append((time.perf_counter() - start) * 1000)
                time.sleep(0.25)
            rss_end = rss_mb(pid)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    print(
        json.dumps(
            {
                "save_to_drawn_ms": {
                    "edits": len(delays),
                    "min": round(min(delays), 1),
                    "median": round(statistics.median(delays), 1),
                    "p95": round(percentile(delays, 95), 1),
                    "max": round(max(delays), 1),
                    "targets": {"p50": 60, "p95": 120},
                },
                "rss_mb": {"after_first_build": rss_start, "after_edits": rss_end, "target": 60},
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
