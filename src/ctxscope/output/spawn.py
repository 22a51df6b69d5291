"""A spawn simulation as text and markdown."""

from __future__ import annotations

from collections.abc import Sequence

from ctxscope.output import table
from ctxscope.output.scriptlog import laid_out
from ctxscope.output.session import session_markdown, session_text
from ctxscope.output.table import md_table, text_table
from ctxscope.scripts.entries import ScriptResult
from ctxscope.spawn import SpawnReport

SCRIPT_HEADERS = ("#", "id", "uri", "priority", "position", "status", "ms", "result")
OUTPUT_LINES = 12
"""Lines of each script's output shown in text; JSON and markdown carry all of it."""
RESULT_HEADERS = ("id", "status", "ms", "chars", "position", "priority", "detail")
LOG_WIDTH = 100
"""The width log lines are laid out to when the output is not a terminal's."""
LOG_PAD = "     log: "


def _log_width() -> int:
    return table.WIDTH or LOG_WIDTH


def result_rows(results: Sequence[ScriptResult]) -> list[tuple[object, ...]]:
    """One row per context script result: what it gave (or its error) on one line."""
    return [
        (
            r.id,
            r.status,
            f"{r.duration_ms:.0f}",
            r.chars,
            r.position,
            f"{r.priority:g}",
            (r.error or r.summary).replace("\n", " "),
        )
        for r in results
    ]


def _script_rows(report: SpawnReport) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for n, r in enumerate(report.scripts.results, 1):
        result = r.summary
        if r.override:
            result += f"; proposes agent {r.override}"
        rows.append(
            (
                n,
                r.id,
                r.uri,
                f"{r.priority:g}",
                r.position,
                r.status,
                f"{r.duration_ms:.0f}",
                result,
            )
        )
    return rows


def _script_blocks(report: SpawnReport) -> list[str]:
    """One block per script, in execution order: what ran, what it gave, what it logged."""
    out: list[str] = []
    for n, r in enumerate(report.scripts.results, 1):
        head = (
            f"  {n}. {r.id}  ({r.uri})  priority {r.priority:g} · {r.position} · "
            f"{r.status} · {r.duration_ms:.0f} ms"
        )
        out.append(head + (f" · proposes agent {r.override}" if r.override else ""))
        if r.status == "ok" and r.output:
            lines = r.output.splitlines()
            out += [f"     │ {line}" for line in lines[:OUTPUT_LINES]]
            if len(lines) > OUTPUT_LINES:
                out.append(
                    f"     │ … {len(lines) - OUTPUT_LINES} more line(s) (--format json shows all)"
                )
            if r.output_truncated:
                out.append("     │ (output cut at 1 MiB)")
        else:
            out.append(f"     {r.error or r.summary}")
        for line in r.log_lines:
            first, *more = laid_out(line, [r], _log_width() - len(LOG_PAD))
            out += [LOG_PAD + first, *(" " * len(LOG_PAD) + text for text in more)]
    return out


def _candidate_rows(report: SpawnReport) -> list[tuple[object, ...]]:
    winner = report.scripts.winner
    return [
        (
            c.script_id,
            c.agent_id,
            f"{c.priority:g}",
            "✓" if c.valid else "✗",
            "winner" if winner and c == winner else "",
            c.reason,
        )
        for c in report.scripts.candidates
    ]


def _verdict(report: SpawnReport) -> str:
    return "ALLOWED" if report.policy.allowed else f"FORBIDDEN: {report.policy.error}"


def spawn_text(report: SpawnReport) -> str:
    out = [
        f"spawn  {report.requester.agent_id} → {report.requested_target}"
        f"   verdict: {_verdict(report)}",
        "",
        "Policy",
    ]
    out += [
        f"  {'✓' if c.ok else '✗'} {c.name}: {c.detail}"
        + (f"\n      → {c.error}" if c.error else "")
        for c in report.policy.checks
    ]
    out += [
        "",
        "Context scripts"
        + ("" if report.trusted else " (untrusted workspace: pass --trust to run them)"),
    ]
    out += _script_blocks(report) or ["  none configured for this requester"]
    per_script = {line for r in report.scripts.results for line in r.log_lines}
    out += [f"  {line}" for line in report.scripts.log_lines if line not in per_script]
    out += ["", "Override candidates"]
    if report.scripts.candidates:
        out.append(
            text_table(
                ("script", "agent", "priority", "valid", "", "reason"), _candidate_rows(report)
            )
        )
    else:
        out.append("  none proposed")
    out += [
        "",
        f"target agent   {report.target_agent_id}"
        + (
            f" (overridden from {report.requested_target})"
            if report.target_agent_id != report.requested_target
            else ""
        ),
        f"child session  {report.child_session_key}",
        f"model          {report.model.value or '(runtime default)'}   ← {report.model.source}",
        f"thinking       {report.thinking.value or '(runtime default)'}   ← "
        f"{report.thinking.source}",
    ]
    if report.diagnostics:
        out += ["", "Diagnostics"] + [f"  {d}" for d in report.diagnostics]
    out += [
        "",
        "═" * 78,
        "REQUESTER",
        "═" * 78,
        session_text(report.requester),
        "",
        "═" * 78,
        "CHILD" + ("" if report.policy.allowed else " (would-be: the spawn is forbidden)"),
        "═" * 78,
        session_text(report.child),
    ]
    return "\n".join(out)


def spawn_markdown(report: SpawnReport) -> str:
    out = [
        f"# Spawn {report.requester.agent_id} → {report.requested_target}",
        "",
        f"**Verdict:** {_verdict(report)}",
        "",
        "## Policy",
        "",
        md_table(
            ("check", "ok", "detail", "error"),
            [(c.name, "✓" if c.ok else "✗", c.detail, c.error or "") for c in report.policy.checks],
        ),
        "",
        "## Context scripts",
        "",
    ]
    if not report.trusted:
        out += ["_Untrusted workspace: scripts were not run (pass `--trust`)._", ""]
    out.append(
        md_table(SCRIPT_HEADERS, _script_rows(report))
        if report.scripts.results
        else "None configured for this requester."
    )
    if report.scripts.log_lines:
        results = report.scripts.results
        laid = [text for line in report.scripts.log_lines for text in laid_out(line, results, 100)]
        out += ["", "```text", *laid, "```"]
    out += ["", "## Override", ""]
    out.append(
        md_table(("script", "agent", "priority", "valid", "", "reason"), _candidate_rows(report))
        if report.scripts.candidates
        else "No candidates."
    )
    out += [
        "",
        "## Resolution",
        "",
        f"- target agent: `{report.target_agent_id}`",
        f"- child session: `{report.child_session_key}`",
        f"- model: `{report.model.value}` ({report.model.source})",
        f"- thinking: `{report.thinking.value}` ({report.thinking.source})",
    ]
    if report.diagnostics:
        out += ["", "## Diagnostics", ""] + [f"- {d}" for d in report.diagnostics]
    out += [
        "",
        "---",
        "",
        session_markdown(report.requester).replace("\n# ", "\n## ", 1),
        "",
        "---",
        "",
        session_markdown(report.child),
    ]
    return "\n".join(out)
