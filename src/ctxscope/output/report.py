"""A whole build (requester, child, spawn, Rye thread) as JSON and as a markdown report."""

from __future__ import annotations

from ctxscope.core.secrets import mask_secrets
from ctxscope.output import dump_json, renders
from ctxscope.output.html import html_page
from ctxscope.output.session import session_markdown
from ctxscope.output.spawn import RESULT_HEADERS, result_rows
from ctxscope.output.table import md_table
from ctxscope.report import Report


def report_json(report: Report) -> str:
    """`Report.to_dict()` with secret-named values masked."""
    return dump_json(mask_secrets(report.to_dict())) + "\n"


def report_html(report: Report) -> str:
    """The build as a standalone page: context maps, both sessions, the spawn."""
    sessions = [("Main session", report.requester)]
    if report.child is not None:
        sessions.append(("Subagent", report.child))
    return html_page(
        sessions,
        facts=[("workspace", report.workspace), ("config", report.config_path or "(none)")],
        spawn=report.spawn,
        diagnostics=report.all_diagnostics,
    )


def report_markdown(report: Report) -> str:
    out = [
        "# ctxscope export",
        "",
        f"- workspace: `{report.workspace}`",
        f"- config: `{report.config_path or '(none)'}`",
        "",
        "---",
        "",
        session_markdown(report.requester),
    ]
    if report.child is not None:
        out += ["", "---", "", session_markdown(report.child)]
    spawn = report.spawn
    if spawn is not None:
        pol = spawn.policy
        out += [
            "",
            "---",
            "",
            "# Spawn",
            "",
            f"- allowed: **{'yes' if pol.allowed else 'no'}**"
            + (f" — {pol.error}" if pol.error else ""),
            f"- target agent: `{spawn.target_agent_id}` (requested `{spawn.requested_target}`)",
            f"- model: `{spawn.model.value}` ← {spawn.model.source}",
            f"- thinking: `{spawn.thinking.value}` ← {spawn.thinking.source}",
            "",
            "## Policy checks",
            "",
            md_table(
                ("check", "ok", "detail"),
                [(c.name, "✓" if c.ok else "✗", c.detail) for c in pol.checks],
            ),
            "",
            "## Context scripts",
            "",
        ]
        results = spawn.scripts.results
        out.append(md_table(RESULT_HEADERS, result_rows(results)) if results else "(none)")
    thread = report.thread
    if thread is not None:
        out += [
            "",
            "---",
            "",
            f"# Rye thread `{thread.directive}`",
            "",
            "Chain (leaf → root): " + " → ".join(f"`{n.id}` [{n.tier}]" for n in thread.chain),
        ]
        if thread.chain_error:
            out.append(f"\n**{thread.chain_error}**")
    diagnostics = report.all_diagnostics
    if diagnostics:
        out += ["", "# Diagnostics", ""] + [f"- {d}" for d in diagnostics]
    return "\n".join(out) + "\n"


renders(Report, markdown=report_markdown, json=report_json, html=report_html)
