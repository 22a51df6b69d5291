"""Benchmark: exact mode (the installed OpenClaw builds the text).

    CTXSCOPE_NODE=/path/to/node22 .venv/bin/python benchmarks/bench_exact.py \
        --runtime /path/to/node_modules/openclaw [--runs N]

Times, on a copy of the sample workspace: loading the runtime into the helper (once per app
or command), and each rebuild of the report after a file edit (requester + child, each one
request to the helper, plus ctxscope's model of both for drift). Prints JSON: min / median /
max in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from ctxscope import Inspector

SAMPLE = Path(__file__).resolve().parent.parent / "sample_workspace"


def summary(times: list[float]) -> dict[str, float]:
    return {
        "min_ms": round(min(times), 1),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runtime", required=True, help="the openclaw package folder")
    parser.add_argument("--node", help="Node >= 22 (default: $CTXSCOPE_NODE or PATH)")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    loads, rebuilds = [], []
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
        ins.report(run_scripts=False)
        soul = ws / "SOUL.md"
        for i in range(args.runs):
            soul.write_text(soul.read_text(encoding="utf-8") + f"\nedit {i}\n", encoding="utf-8")
            start = time.perf_counter()
            ins.reload()
            report = ins.report(run_scripts=False)
            rebuilds.append((time.perf_counter() - start) * 1000)
            assert report.requester.exact and f"edit {i}" in report.requester.system_prompt
        ins.close()
    print(json.dumps({"load_runtime": summary(loads), "rebuild": summary(rebuilds)}, indent=1))


if __name__ == "__main__":
    main()
