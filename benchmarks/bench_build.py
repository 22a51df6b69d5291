"""Cold build and incremental rebuild of the OpenClaw sessions.

Prints JSON: min / median / max over repeated runs for `sample_workspace` (copied to a temp
folder) and for a generated workspace of eight 2 MiB bootstrap files, plus the ratio of the
medians incremental/cold.

    python benchmarks/bench_build.py [--runs N]

"cold" = a fresh Inspector (empty caches): read config + scenario, build the requester's
session and the subagent's. "incremental" = the same Inspector after one file was edited:
reload + both sessions again (only the edited file is re-read). "report" adds the spawn
simulation (scripts untrusted, so not run) and the Rye thread. "tui_rebuild_3000_agents" is
the app's whole rebuild after an edit in a workspace with 3,000 agents (target ≤ 50 ms).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from largespace import write_bootstrap

from ctxscope import Inspector

ROOT = Path(__file__).resolve().parent.parent
CHILD = "agent:main:subagent:bench"


def spread_ms(
    fn: Callable[[], object], runs: int, before: Callable[[], None] | None = None
) -> dict[str, float]:
    """min / median / max of `runs` calls (each after `before`), in milliseconds."""
    times = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return {
        "min": round(min(times), 3),
        "median": round(statistics.median(times), 3),
        "max": round(max(times), 3),
    }


def sessions(insp: Inspector) -> None:
    insp.session()
    insp.session(CHILD)


def measure(ws: Path, edit: Path, runs: int) -> dict[str, object]:
    def cold() -> None:
        sessions(Inspector(ws))

    warm = Inspector(ws)
    sessions(warm)
    counter = [0]

    def touch() -> None:
        counter[0] += 1
        with edit.open("a", encoding="utf-8") as fh:
            fh.write(f"\nedit {counter[0]}")

    def incremental() -> None:
        warm.reload()
        sessions(warm)

    def cold_report() -> None:
        Inspector(ws).report()

    def incremental_report() -> None:
        warm.reload()
        warm.report()

    out = {
        "cold_ms": spread_ms(cold, runs),
        "incremental_ms": spread_ms(incremental, runs, touch),
        "cold_report_ms": spread_ms(cold_report, max(3, runs // 3)),
        "incremental_report_ms": spread_ms(incremental_report, max(3, runs // 3), touch),
    }
    ratio = out["incremental_ms"]["median"] / out["cold_ms"]["median"]
    return out | {"ratio_incremental_cold": round(ratio, 3)}


def agents_rebuild(root: Path, count: int, runs: int) -> dict[str, object]:
    """What the app does after an edit in a workspace with `count` agents: one rebuild of
    the whole view (requester, child, spawn, Rye thread), AGENTS.md edited before each."""
    from ctxscope.tui.build import Builder

    ws = root / "agents"
    ws.mkdir()
    agents = [{"id": f"agent-{i}", "subagents": {"allowAgents": ["*"]}} for i in range(count)]
    agents[0]["id"] = "main"
    (ws / "openclaw.json").write_text(json.dumps({"agents": {"list": agents}}))
    (ws / "ctxscope.yaml").write_text(f"target: agent-{count - 1}\n")
    builder = Builder(Inspector(ws))
    builder.build()
    counter = [0]

    def touch() -> None:
        counter[0] += 1
        (ws / "AGENTS.md").write_text(f"rules {counter[0]}\n")

    return {"agents": count, "rebuild_ms": spread_ms(builder.build, runs, touch), "target_ms": 50}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "sample"
        shutil.copytree(ROOT / "sample_workspace", sample, symlinks=True)
        large = Path(tmp) / "large"
        write_bootstrap(large)
        result = {
            "sample_workspace": measure(sample, sample / "SOUL.md", args.runs),
            "large_8x2MiB": measure(large, large / "SOUL.md", max(5, args.runs // 3)),
            "tui_rebuild_3000_agents": agents_rebuild(Path(tmp), 3000, max(5, args.runs // 3)),
            "targets": {"sample incremental_ms": 10},
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
