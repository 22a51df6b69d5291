"""Benchmark: exact mode (the installed OpenClaw's runner prepares each session).

    .venv/bin/python benchmarks/bench_exact.py --runtime /path/to/node_modules/openclaw \
        [--node /path/to/node] [--runs N]

Times, on a copy of the sample workspace: loading the runtime into the helper (once per app
or command, reported apart), and each rebuild the TUI makes after a file is saved (its
`Builder.build()`: the inputs read again, requester + child asked of the helper together,
ctxscope's model of both for drift, the app's findings), with the time spent waiting on
the helper's answers given apart, and the CPU time (user + system) each rebuild cost, in
ctxscope's process and in the helper's (read from /proc: Linux only). Prints JSON: min / median
/ max in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.exact.runtime import RuntimeHelper
from ctxscope.tui.build import Builder

SAMPLE = Path(__file__).resolve().parent.parent / "sample_workspace"


def summary(times: list[float]) -> dict[str, float]:
    return {
        "min_ms": round(min(times), 1),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
    }


def helper_cpu_ms(pid: int) -> float | None:
    """The CPU time process `pid` has used so far, from /proc: the time each of its threads
    ran (`schedstat`, in nanoseconds), else user + system time in clock ticks."""
    try:
        ran = sum(
            int(task.joinpath("schedstat").read_text().split()[0])
            for task in Path(f"/proc/{pid}/task").iterdir()
        )
    except (OSError, ValueError, IndexError):
        pass
    else:
        return ran / 1e6
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runtime", required=True, help="the openclaw package folder")
    parser.add_argument("--node", help="Node >= 22 (default: $CTXSCOPE_NODE or PATH)")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    loads: list[float] = []
    rebuilds: list[float] = []
    asked: list[float] = []
    cpu_here: list[float] = []
    cpu_helper: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        shutil.copytree(SAMPLE, ws)
        for _ in range(3):
            ins = Inspector(ws, exact=True, runtime=args.runtime, node=args.node)
            assert ins.exact is not None, ins.exact_problem
            start = time.perf_counter()
            failure = ins.exact.start()
            loads.append((time.perf_counter() - start) * 1000)
            assert failure is None, failure
            ins.close()
        ins = Inspector(ws, exact=True, runtime=args.runtime, node=args.node)
        assert ins.exact is not None
        helper = ins.exact.helper
        waits: list[float] = []
        ask_all = RuntimeHelper.ask_all

        def timed(self: RuntimeHelper, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
            began = time.perf_counter()
            try:
                return ask_all(self, requests)
            finally:
                waits.append((time.perf_counter() - began) * 1000)

        helper.ask_all = timed.__get__(helper)  # type: ignore[method-assign]
        builder = Builder(ins)
        builder.build()  # the first build: the runtime loads, its caches warm
        builder.build()
        proc = helper._proc
        assert proc is not None
        soul = ws / "SOUL.md"
        for i in range(args.runs):
            soul.write_text(soul.read_text(encoding="utf-8") + f"\nedit {i}\n", encoding="utf-8")
            waits.clear()
            helper_before = helper_cpu_ms(proc.pid)
            cpu_before = time.process_time()
            start = time.perf_counter()
            build = builder.build()
            rebuilds.append((time.perf_counter() - start) * 1000)
            cpu_here.append((time.process_time() - cpu_before) * 1000)
            helper_after = helper_cpu_ms(proc.pid)
            if helper_before is not None and helper_after is not None:
                cpu_helper.append(helper_after - helper_before)
            asked.append(sum(waits))
            assert build is not None and build.report.requester.exact
            assert f"edit {i}" in build.report.requester.system_prompt
        ins.close()
    print(
        json.dumps(
            {
                "load_runtime": summary(loads),
                "rebuild_after_save": summary(rebuilds),
                "of_which_helper": summary(asked),
                "rebuild_cpu_ctxscope": summary(cpu_here),
                "rebuild_cpu_helper": summary(cpu_helper) if cpu_helper else None,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
