"""Running the context scripts of one spawn: resolve, execute in order, collect overrides."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.scripts import logs
from ctxscope.scripts.cache import CacheKey, ScriptCache
from ctxscope.scripts.entries import (
    FAILED_STATUSES,
    ScriptEntry,
    ScriptResult,
    ScriptsOutcome,
    ScriptStatus,
    SpawnVariables,
    canonical_json,
    resolve_path,
)
from ctxscope.scripts.overrides import collect_candidates
from ctxscope.scripts.parse import parse_output
from ctxscope.scripts.resolve import resolve_entries
from ctxscope.scripts.run import (
    RawRun,
    arg_text,
    json_input,
    run_file,
    script_args,
)


def run_context_scripts(
    config: dict[str, Any],
    config_dir: Path,
    requester_agent_id: str,
    variables: SpawnVariables,
    *,
    trusted: bool,
    configured_agents: Iterable[str],
    cache: ScriptCache | None = None,
    config_path: str | None = None,
    execute: bool = True,
) -> ScriptsOutcome:
    """Resolve the requester's context scripts and run them (only when `trusted`).

    Synchronous: call it from a worker thread in an app. No script runs longer than its
    timeout. Nothing here raises on bad config or misbehaving scripts: problems come back as
    statuses, errors and diagnostics. With `execute=False` nothing runs: results come from
    `cache`, and a script without a cached result is `pending`.
    """
    entries, diags = resolve_entries(config, requester_agent_id, config_path=config_path)
    outcome = ScriptsOutcome(diagnostics=list(diags))
    var_map = variables.to_vars()
    for entry in entries:
        if outcome.stopped_by is not None:
            outcome.results.append(_not_executed(entry, "skipped"))
            continue
        if not trusted:
            outcome.results.append(_not_executed(entry, "not-run"))
            continue
        result = run_entry(
            entry,
            Path(os.path.abspath(config_dir)),
            var_map,
            cache=cache,
            config_path=config_path,
            execute=execute,
        )
        outcome.results.append(result)
        outcome.log_lines.extend(result.log_lines)
        outcome.diagnostics.extend(result.diagnostics)
        if result.status in FAILED_STATUSES and entry.error_handling == "stop":
            outcome.stopped_by = entry.id

    outcome.candidates, outcome.winner = collect_candidates(outcome.results, configured_agents)
    if outcome.candidates and any(e.log == "verbose" for e in entries):
        outcome.log_lines.append(logs.candidates_line(outcome.candidates, outcome.winner))
    for cand in outcome.candidates:
        if not cand.valid:
            outcome.diagnostics.append(
                Diagnostic(
                    "warning",
                    f'script {cand.script_id} proposed agentIdOverride "{cand.agent_id}":'
                    f" {cand.reason}; ignored",
                    config_path,
                    code="context-script-override",
                )
            )
    ok = [r for r in outcome.results if r.status == "ok" and r.output]
    outcome.prepend = "\n\n".join(r.output or "" for r in ok if r.position == "prepend")
    outcome.append = "\n\n".join(r.output or "" for r in ok if r.position == "append")
    return outcome


def run_entry(
    entry: ScriptEntry,
    config_dir: Path,
    variables: dict[str, Any],
    *,
    cache: ScriptCache | None = None,
    config_path: str | None = None,
    execute: bool = True,
) -> ScriptResult:
    """Run one entry (or take its result from `cache` when nothing it depends on changed).
    With `execute=False` a cache miss is `pending` instead of a run."""
    args = script_args(entry, variables)
    config_dir = Path(os.path.abspath(config_dir))
    path = None if entry.is_url else resolve_path(entry.uri, config_dir)
    key: CacheKey = (entry.raw, str(path or entry.uri), _stat(path), canonical_json(args))
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    if not execute:
        return _not_executed(entry, "pending")
    if path is None:
        from ctxscope.scripts.url import run_url  # httpx only when a URL script runs

        raw = run_url(entry, args, entry.timeout_s)
    elif entry.format == "json":
        raw = run_file(path, [], json_input(args), entry.timeout_s, config_dir)
    else:
        argv = [f"{k}={arg_text(v)}" for k, v in args.items()]
        raw = run_file(path, argv, None, entry.timeout_s, config_dir)
    result = _interpret(entry, args, raw, config_path)
    if cache is not None:
        cache.put(key, result)
    return result


def _interpret(
    entry: ScriptEntry, args: dict[str, Any], raw: RawRun, config_path: str | None
) -> ScriptResult:
    result = _base(entry, "error")
    result.duration_ms = raw.duration_ms
    result.raw_output = raw.output if raw.error is None else None
    result.output_truncated = raw.truncated
    verbose = entry.log == "verbose"
    where = f"{entry.source}: script {entry.id}"
    if raw.truncated:
        result.diagnostics.append(
            Diagnostic(
                "warning",
                f"{where}: output over 1 MiB; cut at 1 MiB",
                config_path,
                code="context-script-output-capped",
            )
        )
    if raw.error is not None:
        result.status = "timeout" if raw.timed_out else "error"
        result.error = raw.error
    else:
        parsed = parse_output(entry, raw.output)
        result.override = parsed.override
        if parsed.looks_like_bad_json:
            result.diagnostics.append(
                Diagnostic(
                    "warning",
                    f"{where}: output starts with '{{' but is not valid JSON "
                    f"({parsed.looks_like_bad_json}); injected as plain text",
                    config_path,
                    code="context-script-bad-json",
                )
            )
        if parsed.error is not None:
            result.error = parsed.error
        elif parsed.content:
            result.status, result.output, result.chars = "ok", parsed.content, len(parsed.content)
        else:
            result.status = "empty"

    lines = result.log_lines
    if result.error is None:
        if entry.log:
            lines.append(logs.summary_line(entry, result.chars))
        if verbose:
            lines.append(logs.command_line(entry, args))
            lines.append(logs.output_line(entry, result.output or ""))
    elif verbose:
        lines.append(logs.command_line(entry, args))
    if verbose and result.override is not None:
        lines.append(logs.proposed_line(entry, result.override))
    if result.error is not None:
        lines.append(logs.failed_line(entry, result.error))
        result.diagnostics.append(
            Diagnostic(
                "error",
                f"{where} {'timed out' if result.status == 'timeout' else 'failed'}: "
                f"{result.error}",
                config_path,
                code="context-script-failed",
            )
        )
    return result


def _base(entry: ScriptEntry, status: ScriptStatus) -> ScriptResult:
    return ScriptResult(
        id=entry.id,
        uri=entry.shown_uri,
        priority=entry.priority,
        position=entry.position,
        status=status,
        source=entry.source,
    )


def _not_executed(entry: ScriptEntry, status: ScriptStatus) -> ScriptResult:
    return _base(entry, status)


def _stat(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size
