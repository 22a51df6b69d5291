"""Benchmark the Rye thread build (SPEC §9). Prints JSON; asserts nothing.

Figures (medians over repeated runs, milliseconds):
- first_build: nothing cached anywhere (the persistent tool-metadata cache emptied);
- cold: a new process's build: a fresh Snapshot, only the on-disk tool cache kept;
- incremental: a shared Snapshot, one knowledge file rewritten before each build and
  reported as the app's watcher reports it (tools folders with no reported change are
  trusted); incremental_unwatched: the same without a watcher (every tool file stat'ed);
- sample: `project/deploy/deploy_staging` on sample_workspace;
- large: a generated space (2,000 knowledge items, 500 directives in 25 chains 20 deep,
  `--tools` tools (5,000), 50 hooks) in a temp folder; the leaf of a 20-deep chain is granted every
  tool, so the palette reads all 5,000 tool files' metadata.

Run: .venv/bin/python benchmarks/bench_rye.py [--runs N]
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

from ctxscope.rye import build_thread, toolcache
from ctxscope.snapshot import Snapshot

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_workspace"

N_KNOWLEDGE, N_CHAINS, DEPTH, N_TOOLS, N_HOOKS = 2000, 25, 20, 5000, 50


def generate(root: Path, tools: int = N_TOOLS) -> tuple[str, Path]:
    """Write the large space under root/.ai; return (a deepest leaf id, a knowledge file it
    injects)."""
    ai = root / ".ai"
    for i in range(N_KNOWLEDGE):
        p = ai / "knowledge" / "gen" / f"k{i % 40}" / f"item{i}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            f"```yaml\nname: item{i}\ntitle: Item {i}\n```\n\n"
            + f"Knowledge item {i}. " * 20
            + "\n"
        )
    for c in range(N_CHAINS):
        for level in range(DEPTH):
            did = f"gen/c{c}/d{level}"
            parent = (
                f' extends="gen/c{c}/d{level - 1}"' if level else ' extends="rye/agent/core/base"'
            )
            k = (c * DEPTH + level) % N_KNOWLEDGE
            ctx = (
                f"<before>gen/k{k % 40}/item{k}</before>"
                f"<after>gen/k{(k + 1) % 40}/item{k + 1}</after>"
            )
            if level == DEPTH - 1:
                ctx += "<suppress>rye/agent/core/protocol/sign</suppress>"
            perms = (
                (
                    "<permissions><execute><tool>gen.*</tool><tool>gen.ns0.tool0</tool>"
                    "</execute><fetch>*</fetch></permissions>"
                )
                if level == DEPTH - 1
                else ""
            )
            p = ai / "directives" / f"{did}.md"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(
                f'# d\n\n```xml\n<directive name="d{level}" version="1"{parent}>\n'
                f"<metadata><description>level {level}</description>"
                f"<context>{ctx}</context>{perms}</metadata>\n</directive>\n```\n\n"
                "Do step one, then step two.\n"
            )
    for t in range(tools):
        p = ai / "tools" / "gen" / f"ns{t % 50}" / f"tool{t}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(
            f'__tool_description__ = "Generated tool {t}"\n'
            'CONFIG_SCHEMA = {"type": "object", "properties": '
            '{"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}\n'
            "def main():\n    return 1\n"
        )
    hooks = ["hooks:"]
    for h in range(N_HOOKS):
        event = "resolve_extends" if h % 2 else "thread_started"
        hooks += [
            f"  - id: h{h}",
            f"    event: {event}",
            f"    layer: {h % 4}",
            "    condition:",
            "      all:",
            f"        - {{path: directive, op: regex, value: '^gen/c{h}/'}}",
            f"        - {{path: inputs.env, op: in, value: [e{h}, x]}}",
            "    action: {set_extends: gen/c0/d0}"
            if h % 2
            else f"    action: {{item_type: knowledge, item_id: gen/k0/item{h}}}",
        ]
    cfg = ai / "config" / "agent" / "hooks.yaml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("\n".join(hooks) + "\n")
    leaf = f"gen/c3/d{DEPTH - 1}"
    k = 3 * DEPTH + DEPTH - 1
    return leaf, ai / "knowledge" / "gen" / f"k{k % 40}" / f"item{k}.md"


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 2)


def build_in_new_process(workspace: Path, directive: str, inputs: dict[str, str]) -> None:
    """What a fresh `ctxscope thread` does: open the on-disk tool cache, build, save it."""
    tools = toolcache.ToolCache.default()
    build_thread(workspace, directive, inputs=inputs, tool_cache=tools)
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

    first = median_ms(first_build, runs)
    cold = median_ms(cold_process, runs)
    snap = Snapshot()
    report = build_thread(workspace, directive, inputs=inputs, snapshot=snap)
    original = edit.read_text()
    counter = [0]

    def incremental(watched: bool) -> None:
        counter[0] += 1
        edit.write_text(original + f"\nedit {counter[0]}\n")
        if watched:  # what the app's watcher reports
            snap.changes.changed([str(edit)])
        build_thread(workspace, directive, inputs=inputs, snapshot=snap)

    try:
        unwatched = median_ms(lambda: incremental(False), runs)
        snap.changes.watching([workspace])
        build_thread(workspace, directive, inputs=inputs, snapshot=snap)
        inc = median_ms(lambda: incremental(True), runs)
    finally:
        edit.write_text(original)
    return {
        "first_build_ms": first,
        "cold_ms": cold,
        "incremental_ms": inc,
        "incremental_unwatched_ms": unwatched,
        "cold_over_incremental": round(cold / inc, 1) if inc else None,
        "chain_depth": len(report.chain),
        "tools_considered": len(report.palette.registered) + len(report.palette.skipped),
        "diagnostics": len(report.diagnostics),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--tools", type=int, default=N_TOOLS, help="tools in the large space")
    args = ap.parse_args(argv)
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
        leaf, edit = generate(large, args.tools)
        out["large_generate_s"] = round(time.perf_counter() - t0, 2)
        out["large"] = measure(large, leaf, edit, max(3, args.runs // 3), {"env": "bench"})
    out["targets_ms"] = {"large_full": 300, "large_incremental": 20, "sample_incremental": 10}
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
