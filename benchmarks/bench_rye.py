"""Benchmark the Rye thread build. Prints JSON; asserts nothing.

Figures (min / median / max over repeated runs, milliseconds):
- first_build: nothing cached anywhere (the persistent tool-metadata cache emptied);
- cold: a new process's build: a fresh Snapshot, only the on-disk tool cache kept;
- incremental: a shared Snapshot, one knowledge file rewritten before each build and
  reported as the app's watcher reports it (tools folders with no reported change are
  trusted); incremental_unwatched: the same without a watcher (every tool file stat'ed);
- sample: `project/deploy/deploy_staging` on sample_workspace;
- large: a generated space (2,000 knowledge items, 500 directives in 25 chains 20 deep,
  `--tools` tools (5,000), 50 hooks) in a temp folder; the leaf of a 20-deep chain is granted every
  tool, so the palette reads all 5,000 tool files' metadata.

The collector is tuned as the `ctxscope` command tunes it (`tuning.for_command()`); with
`--untuned`, as a program using the Python API has it.

Run: .venv/bin/python benchmarks/bench_rye.py [--runs N] [--untuned]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from largespace import N_TOOLS, write_rye

from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import build_thread
from ctxscope.runtimes.rye.toolsource import Remembered, Workers, for_program

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_workspace"


def spread_ms(fn: Callable[[], object], runs: int) -> dict[str, float]:
    """min / median / max of `runs` calls, in milliseconds."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return {
        "min": round(min(times), 2),
        "median": round(statistics.median(times), 2),
        "max": round(max(times), 2),
    }


def build_in_new_process(workspace: Path, directive: str, inputs: dict[str, str]) -> None:
    """What a fresh `ctxscope thread` does: open the on-disk tool cache, build, save it."""
    tools = for_program(workspace)
    build_thread(workspace, directive, inputs=inputs, tools=tools)
    tools.save()


def measure(
    workspace: Path, directive: str, edit: Path, runs: int, inputs: dict[str, str]
) -> dict[str, object]:
    cache = Path(os.environ["CTXSCOPE_CACHE_DIR"])

    def first_build() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        build_in_new_process(workspace, directive, inputs)

    def cold_process() -> None:  # a new process: only the on-disk cache remains
        build_in_new_process(workspace, directive, inputs)

    first = spread_ms(first_build, runs)
    cold = spread_ms(cold_process, runs)
    snap, tools = Snapshot(), Remembered(Workers())  # the app's tool source (no disk cache)
    report = build_thread(workspace, directive, inputs=inputs, snapshot=snap, tools=tools)
    original = edit.read_text()
    counter = [0]

    def incremental(watched: bool) -> None:
        counter[0] += 1
        edit.write_text(original + f"\nedit {counter[0]}\n")
        if watched:  # what the app's watcher reports
            snap.changes.changed([str(edit)])
        build_thread(workspace, directive, inputs=inputs, snapshot=snap, tools=tools)

    try:
        unwatched = spread_ms(lambda: incremental(False), runs)
        snap.changes.watching([workspace])
        build_thread(workspace, directive, inputs=inputs, snapshot=snap, tools=tools)
        inc = spread_ms(lambda: incremental(True), runs)
    finally:
        edit.write_text(original)
    return {
        "first_build_ms": first,
        "cold_ms": cold,
        "incremental_ms": inc,
        "incremental_unwatched_ms": unwatched,
        "cold_over_incremental": (
            round(cold["median"] / inc["median"], 1) if inc["median"] else None
        ),
        "chain_depth": len(report.chain),
        "tools_considered": len(report.palette.registered) + len(report.palette.skipped),
        "diagnostics": len(report.diagnostics),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--tools", type=int, default=N_TOOLS, help="tools in the large space")
    ap.add_argument("--untuned", action="store_true", help="the collector as the API has it")
    args = ap.parse_args(argv)
    if not args.untuned:
        from ctxscope.infra import tuning

        tuning.for_command()
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CTXSCOPE_CACHE_DIR"] = str(Path(tmp) / "cache")
        # Copy the sample's .ai so the incremental edit never touches the repository.
        sample = Path(tmp) / "sample"
        shutil.copytree(SAMPLE / ".ai", sample / ".ai")
        out["sample"] = measure(
            sample,
            "project/deploy/deploy_staging",
            sample / ".ai/knowledge/project/deploy/environment-rules.md",
            args.runs,
            {"env": "staging"},
        )
        large = Path(tmp) / "large"
        t0 = time.perf_counter()
        leaf, edit = write_rye(large, args.tools)
        out["large_generate_s"] = round(time.perf_counter() - t0, 2)
        out["large"] = measure(large, leaf, edit, max(3, args.runs // 3), {"env": "bench"})
    out["targets_ms"] = {"large_full": 300, "large_incremental": 20, "sample_incremental": 10}
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
