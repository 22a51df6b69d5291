"""Benchmark: whole-process CLI runs, as a user waits for them.

    .venv/bin/python benchmarks/bench_cli.py [--runs N]

Times, in fresh processes: `ctxscope --help`, `ctxscope render sample_workspace --format json`,
`render` of a generated workspace with 3,000 agents (each lookup of an agent used to scan
the whole list), and the large combined workspace (`largespace.write_combined`:
eight 2 MiB bootstrap files and a Rye space with 5,000 tools): `ctxscope thread` of its
deepest directive with an empty cache folder each run (every tool file parsed) and with the
cache the previous run left, and the whole build the app makes first (`Inspector.report()`
with the collector tuned and the tool source chosen as the app has them;
both sessions and the thread, scripts not run) with an empty cache. Two floors put the
figures in scale on the machine at hand: `floor_imports`, the interpreter starting and
importing the libraries `render` needs (argparse, dataclasses, json5, YAML, ...; nothing of
ctxscope), `floor_read_and_parse_large_tools`, one process reading every tool file of
the large workspace and parsing the Python ones, as ryeos does, and (on Linux) the same work
shared by one forked process per CPU, `…_all_cpus`: below it no first build of the large
workspace can go on the machine at hand. Each command runs once first
so Python's bytecode cache exists, as after an install. Prints JSON: min / median / max in
milliseconds, the targets, and the medians of `render` and of the large report over their
floors.
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

from largespace import write_combined

SAMPLE = Path(__file__).resolve().parent.parent / "sample_workspace"
TARGETS_MS = {
    "help": 100,
    "render_sample_json": 120,
    "render_3000_agents": 400,
    "report_large_empty_cache": 300,
}
REPORT = (
    "import sys; from ctxscope import Inspector, tuning; "
    "from ctxscope.runtimes.rye.toolsource import for_program; tuning.for_command(); "
    "Inspector(sys.argv[1], tools=for_program(sys.argv[1])).report(run_scripts=False)"
)
IMPORT_FLOOR = "import argparse, dataclasses, enum, json, pathlib, re, typing, pyjson5, yaml"
"""What `render` cannot do without: the interpreter and the libraries it must import."""
_PARSE_WORK = (
    "import ast, os, sys\n"
    "top = os.path.join(sys.argv[1], '.ai', 'tools')\n"
    "paths = sorted(os.path.join(r, n) for r, _, names in os.walk(top) for n in names)\n"
    "def work(share):\n"
    "    for path in share:\n"
    "        with open(path, 'rb') as fh:\n"
    "            text = fh.read()\n"
    "        if path.endswith('.py'):\n"
    "            ast.parse(text)\n"
)
PARSE_FLOOR = _PARSE_WORK + "work(paths)\n"
"""What an empty cache cannot avoid on the large workspace: reading every tool file and
parsing the Python ones (ryeos parses each whole), in one process."""
PARSE_FLOOR_ALL_CPUS = _PARSE_WORK + (
    "n = len(os.sched_getaffinity(0))\n"
    "children = []\n"
    "for i in range(1, n):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        work(paths[i::n])\n"
    "        os._exit(0)\n"
    "    children.append(pid)\n"
    "work(paths[::n])\n"
    "for pid in children:\n"
    "    os.waitpid(pid, 0)\n"
)
"""The same work shared evenly by one process per CPU this process may use, nothing sent
back: no build of the large workspace with an empty cache can end sooner on this machine
(Linux only)."""


# As installed: Python's bytecode cache on (a wheel install compiles it; an editable one
# writes it on first run), even where the shell sets PYTHONDONTWRITEBYTECODE.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(
    args: list[str], runs: int, cache: Path | None = None, empty: bool = False
) -> dict[str, float]:
    """`ctxscope ARGS` (or `python ARGS` when ARGS starts with -c); with `cache`, the cache
    folder is that one, emptied before each run when `empty`."""
    command = [sys.executable, *(args if args[0] == "-c" else ["-m", "ctxscope", *args])]
    env = dict(ENV, CTXSCOPE_CACHE_DIR=str(cache)) if cache else ENV
    subprocess.run(command, capture_output=True, check=True, env=env)  # writes the bytecode
    times = []
    for _ in range(runs):
        if cache and empty:
            shutil.rmtree(cache, ignore_errors=True)
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=env)
        times.append((time.perf_counter() - start) * 1000)
    return {
        "min_ms": round(min(times), 1),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
    }


def ratio(result: dict[str, dict[str, float]], name: str, floor: str) -> float:
    return round(result[name]["median_ms"] / result[floor]["median_ms"], 2)


def many_agents(root: Path, count: int) -> Path:
    ws = root / "agents"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("rules\n")
    agents = [{"id": f"agent-{i}", "subagents": {"allowAgents": ["*"]}} for i in range(count)]
    agents[0]["id"] = "main"
    (ws / "openclaw.json").write_text(json.dumps({"agents": {"list": agents}}))
    (ws / "ctxscope.yaml").write_text(f"target: agent-{count - 1}\n")
    return ws


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        agents = many_agents(Path(tmp), 3000)
        result = {
            "help": timed(["--help"], runs),
            "render_sample_json": timed(["render", str(SAMPLE), "--format", "json"], runs),
            "render_3000_agents": timed(["render", str(agents), "--format", "json"], runs),
        }
        # Written after the small commands are timed, and flushed to disk before the large
        # ones: the kernel writing 16 MiB and 7,500 files back meanwhile slows whatever runs.
        large = Path(tmp) / "large"
        leaf, _ = write_combined(large)
        os.sync()
        cache = Path(tmp) / "cache"
        thread = ["thread", str(large), leaf, "--input", "env=bench", "--format", "json"]
        result |= {
            "thread_large_empty_cache": timed(thread, runs, cache, empty=True),
            "thread_large_cached": timed(thread, runs, cache),
            "report_large_empty_cache": timed(["-c", REPORT, str(large)], runs, cache, empty=True),
            "floor_imports": timed(["-c", IMPORT_FLOOR], runs),
            "floor_read_and_parse_large_tools": timed(["-c", PARSE_FLOOR, str(large)], runs),
        }
        if hasattr(os, "sched_getaffinity"):
            result["floor_read_and_parse_large_tools_all_cpus"] = timed(
                ["-c", PARSE_FLOOR_ALL_CPUS, str(large)], runs
            ) | {"cpus": len(os.sched_getaffinity(0))}
    result["targets_ms"] = TARGETS_MS
    # Medians over their floors: how far above what the machine cannot avoid each one is
    # (the floors move with the machine's speed from one minute to the next; these less).
    result["median_over_floor"] = {
        "render_sample_json / floor_imports": ratio(result, "render_sample_json", "floor_imports"),
        "report_large_empty_cache / floor_read_and_parse_large_tools": ratio(
            result, "report_large_empty_cache", "floor_read_and_parse_large_tools"
        ),
    }
    if "floor_read_and_parse_large_tools_all_cpus" in result:
        result["median_over_floor"][
            "report_large_empty_cache / floor_read_and_parse_large_tools_all_cpus"
        ] = ratio(result, "report_large_empty_cache", "floor_read_and_parse_large_tools_all_cpus")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
