"""Benchmark: `ctxscope diff` of two git revisions of the sample, whole process.

    .venv/bin/python benchmarks/bench_diff.py [--runs N]

Makes a scratch repository holding the sample workspace (a first commit, then a second one
that edits SOUL.md and removes HEARTBEAT.md), then times, in fresh processes,
`ctxscope diff WORKSPACE --from HEAD~1 --to HEAD --format json` (both revisions read from git
objects, every agent's main session, the spawned child and the Rye thread built twice), and
for scale `ctxscope render WORKSPACE --format json` (one session of one side). Each command
runs once first so Python's bytecode cache exists, as after an install. Prints JSON: min /
median / max in milliseconds and the target.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "sample_workspace"
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


def timed(argv: list[str], runs: int) -> dict[str, float]:
    subprocess.run(argv, check=True, capture_output=True)  # bytecode cache, as installed
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - began) * 1000)
    return {
        "min": round(min(times), 1),
        "median": round(statistics.median(times), 1),
        "max": round(max(times), 1),
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
        }
    print(json.dumps({"ms": figures, "targets_ms": TARGETS_MS}, indent=2))


if __name__ == "__main__":
    main()
