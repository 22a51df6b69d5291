"""Benchmark: `ctxscope diff` of two git revisions of the sample, whole process.

    .venv/bin/python benchmarks/bench_diff.py [--runs N]

Makes a scratch repository holding the sample workspace (a first commit, then a second one
that edits SOUL.md and removes HEARTBEAT.md), then times, in fresh processes,
`ctxscope diff WORKSPACE --from HEAD~1 --to HEAD --format json` (both revisions read from git
objects, every agent's main session, the spawned child and the Rye thread built twice), and
for scale `ctxscope render WORKSPACE --format json` (one session of one side), and
`ctxscope diff WORKSPACE --from run:agent:main:main --state STATE --format json` against the
store the real OpenClaw 2026.9.6 gateway left (`tests/runs/data`: the record read, the one
session built now). Each command runs once first so Python's bytecode cache exists, as after
an install. Prints JSON: min / median / max wall time in milliseconds, the median CPU time
(user + system of the command's process: what it costs, whatever else the machine runs),
and the target.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_workspace"
STORE = ROOT / "tests" / "runs" / "data" / "openclaw-agent-2026.9.6.sqlite.gz"
TARGETS_MS = {"diff_two_revisions_of_the_sample": 300}
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def two_revisions(root: Path) -> Path:
    ws = root / "sample_workspace"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "sample")
    soul = ws / "SOUL.md"
    soul.write_text(soul.read_text() + "\nSpeak plainly; never pad an answer.\n")
    (ws / "HEARTBEAT.md").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "edit")
    return ws


def recorded_state(root: Path) -> Path:
    """A state folder holding the real 2026.9.6 store."""
    db = root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    db.write_bytes(gzip.decompress(STORE.read_bytes()))
    return root / "state"


def timed(argv: list[str], runs: int) -> dict[str, float]:
    import resource

    subprocess.run(argv, check=True, capture_output=True)  # bytecode cache, as installed
    times, cpu = [], []
    for _ in range(runs):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - began) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) * 1000)
    return {
        "min": round(min(times), 1),
        "median": round(statistics.median(times), 1),
        "max": round(max(times), 1),
        "cpu_median_ms": round(statistics.median(cpu), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "ctxscope"]
    with tempfile.TemporaryDirectory() as scratch:
        ws = two_revisions(Path(scratch) / "repo")
        figures = {
            "diff_two_revisions_of_the_sample": timed(
                [*cli, "diff", str(ws), "--from", "HEAD~1", "--to", "HEAD", "--format", "json"],
                args.runs,
            ),
            "render_sample_json": timed([*cli, "render", str(ws), "--format", "json"], args.runs),
            "diff_a_recorded_run_with_now": timed(
                [
                    *cli,
                    "diff",
                    str(ws),
                    "--from",
                    "run:agent:main:main",
                    "--state",
                    str(recorded_state(Path(scratch))),
                    "--format",
                    "json",
                ],
                args.runs,
            ),
        }
    print(json.dumps({"ms": figures, "targets_ms": TARGETS_MS}, indent=2))


if __name__ == "__main__":
    main()
