"""Benchmark: running the sample workspace's context scripts cold and from the cache.

    .venv/bin/python benchmarks/bench_scripts.py [--repeat N]

Starts the sample's demo context server on a free loopback port (so the URL script has
something to talk to), then times `run_context_scripts` for the sample's steward spawn:
cold (a fresh cache each time: every script really runs) and warm (one cache kept across
runs: nothing runs). Prints JSON with the medians in milliseconds and their ratio.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import json5

from ctxscope.scripts import ScriptCache, SpawnVariables, run_context_scripts

SAMPLE = Path(__file__).resolve().parent.parent / "sample_workspace"


def start_demo_server() -> tuple[Any, str]:
    spec = importlib.util.spec_from_file_location(
        "context_server", SAMPLE / "scripts" / "context_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server = module.make_server("127.0.0.1", 0, quiet=True)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/context"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    server, url = start_demo_server()
    cfg: dict[str, Any] = json5.loads((SAMPLE / "openclaw.json").read_text(encoding="utf-8"))
    entries = cfg["agents"]["defaults"]["subagents"]["contextScripts"]["run"]
    for entry in entries:
        if entry["id"] == "house-rules":
            entry["uri"] = url
    variables = SpawnVariables(
        targetAgentId="steward",
        task="Review the architecture",
        label="arch",
        requesterAgentId="main",
        requesterSessionKey="agent:main:main",
        cfg=cfg,
    )

    def once(cache: ScriptCache) -> tuple[float, Any]:
        start = time.perf_counter()
        outcome = run_context_scripts(
            cfg,
            SAMPLE,
            "main",
            variables,
            trusted=True,
            configured_agents={"main", "coder"},
            cache=cache,
        )
        return (time.perf_counter() - start) * 1000, outcome

    cold = [once(ScriptCache())[0] for _ in range(args.repeat)]
    warm_cache = ScriptCache()
    _, first = once(warm_cache)
    warm = []
    for _ in range(args.repeat):
        ms, outcome = once(warm_cache)
        assert all(r.cached for r in outcome.results)
        warm.append(ms)
    server.shutdown()
    server.server_close()

    cold_ms, warm_ms = statistics.median(cold), statistics.median(warm)
    print(
        json.dumps(
            {
                "benchmark": "context_scripts_sample",
                "scripts": len(first.results),
                "statuses": {r.id: r.status for r in first.results},
                "winner": first.winner.agent_id if first.winner else None,
                "repeat": args.repeat,
                "cold_median_ms": round(cold_ms, 3),
                "cached_median_ms": round(warm_ms, 3),
                "cold_over_cached": round(cold_ms / warm_ms, 1) if warm_ms else None,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
