"""Benchmark: launch to the first drawn frame of the real app in a real terminal (tmux).

    .venv/bin/python benchmarks/bench_first_frame.py [--launches 9] [--runtime DIR --node PATH]

Starts `ctxscope` on a copy of the sample in a tmux session `--launches` times and reads the
screen (`tmux capture-pane`, every ~2 ms) until the main pane's token total is drawn: what a
user waits for. With `--runtime` and `--node` the app finds an installed OpenClaw, so exact
mode (the app's default) loads after that frame: the figure shows whether loading the
runtime delays it. Prints JSON: min / median / max in milliseconds, and the target (≤ 350 ms).
Needs tmux. ctxscope's modules are compiled to bytecode first, as an install compiles them
(`PYTHONDONTWRITEBYTECODE` would otherwise have every launch compile them again).

`--against SRC` (another revision's `src` folder, e.g. of a `git worktree`) launches that
revision and this one in turn, with the same interpreter and packages, and prints both:
the machine's speed drifts from one minute to the next, so only launches made side by side
compare two revisions.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SESSION = "ctxscope-first-frame"
TOTAL = re.compile(r"[\d,]+ / [\d,]+ ≈tok")
TARGET_MS = 350


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def launch(command: list[str], limit: float = 30.0) -> float:
    """Milliseconds from starting `command` in tmux to its first token total on screen."""
    for _ in range(50):  # the last launch's tmux server may still be on its way out
        with contextlib.suppress(subprocess.CalledProcessError):
            began = time.perf_counter()
            tmux("new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", shlex.join(command))
            break
        time.sleep(0.05)
    try:
        while time.perf_counter() - began < limit:
            if TOTAL.search(tmux("capture-pane", "-p", "-t", SESSION)):
                return (time.perf_counter() - began) * 1000
            time.sleep(0.002)
        sys.exit(f"no frame within {limit:.0f} s")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--launches", type=int, default=9)
    parser.add_argument("--runtime", help="an installed openclaw package folder")
    parser.add_argument("--node", help="the Node >= 22 to run it with")
    parser.add_argument("--against", metavar="SRC", help="another revision's src folder")
    args = parser.parse_args()
    trees = {"this": REPO / "src"}
    if args.against:
        trees["against"] = Path(args.against).resolve()
    for src in trees.values():
        compileall.compile_dir(src / "ctxscope", quiet=1)
    with tempfile.TemporaryDirectory() as scratch:
        ws = Path(scratch) / "ws"
        shutil.copytree(REPO / "sample_workspace", ws, symlinks=True)
        exact = args.runtime and args.node
        extra = ["--runtime", args.runtime, "--node", args.node] if exact else []
        commands = {
            name: ["env", f"PYTHONPATH={src}", sys.executable, "-m", "ctxscope", str(ws), *extra]
            for name, src in trees.items()
        }
        for command in commands.values():
            launch(command)  # once first: the operating system's file cache is warm
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.launches):
            for name, command in commands.items():
                times[name].append(launch(command))
    figures = {
        name: {
            "min": round(min(t), 1),
            "median": round(statistics.median(t), 1),
            "max": round(max(t), 1),
        }
        for name, t in times.items()
    }
    out = figures["this"] if len(figures) == 1 else figures
    print(json.dumps({"first_frame_ms": out, "target_ms": TARGET_MS}, indent=2))


if __name__ == "__main__":
    main()
