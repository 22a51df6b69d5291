"""A session as text (section by section) and as a markdown report."""

from __future__ import annotations

from ctxscope.contextmap import context_map
from ctxscope.model import Diagnostic, Session
from ctxscope.output.table import md_table, percent, text_table

FILE_HEADERS = ("name", "status", "raw chars", "injected chars", "≈tokens", "reason")


def file_rows(session: Session) -> list[tuple[object, ...]]:
    return [
        (
            f.name,
            f.status,
            f.raw_chars,
            f.injected_chars,
            session.file_tokens(f),
            f.reason,
        )
        for f in session.files
    ]


SECTION_HEADERS = ("heading", "chars", "≈tokens", "source")


def section_rows(session: Session) -> list[tuple[object, ...]]:
    return [
        (
            s.heading or "(identity line)",
            s.chars,
            s.tokens,
            s.source + (" (runtime placeholder)" if s.placeholder else ""),
        )
        for s in session.sections
    ]


def runtime_line(session: Session) -> str:
    """`OpenClaw 2026.9.6 (meta.lastTouchedVersion in openclaw.json)`."""
    version = f"OpenClaw {session.runtime_version}" if session.runtime_version else session.profile
    return f"{version} ({session.profile_choice})" if session.profile_choice else version


def header_lines(session: Session) -> list[str]:
    t = session.tokens
    lines = [
        f"session  {session.session_key}",
        f"agent    {session.agent_id}   kind {session.kind}   prompt mode {session.prompt_mode}"
        f"   profile {session.profile}",
        f"why      {session.kind_rule}",
        *(
            [f"runtime  {runtime_line(session)}"]
            if session.runtime_version or session.profile_choice
            else []
        ),
        f"workspace {session.workspace}",
    ]
    if session.exact:
        lines.append(f"exact    text written by {session.exact} (provenance from ctxscope)")
    if session.model:
        lines.append(f"model    {session.model}")
    if session.removed_tools:
        gone = "; ".join(f"{t} ({why})" for t, why in session.removed_tools.items())
        lines.append(f"tools    left out by policy: {gone}")
    lines.append(
        f"tokens   system {t.system:,} + task {t.task:,} = {t.total:,} of "
        f"{session.context_window:,} ({percent(t.total, session.context_window)}) "
        f"[{session.tokenizer}; estimates]"
    )
    return lines


def diagnostics_lines(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"  {d}" for d in diagnostics]


def session_text(session: Session, diagnostics: list[Diagnostic] | None = None) -> str:
    out = header_lines(session)
    out.append("")
    for sec in session.sections:
        tag = " (runtime placeholder)" if sec.placeholder else ""
        title = sec.heading or "(identity line)"
        out.append(
            f"──── {title}  [{sec.chars:,} chars, ≈{sec.tokens:,} tokens · {sec.source}{tag}]"
        )
        out.append(sec.text)
    if session.task_message is not None:
        out.append(
            f"════ first user message  [{len(session.task_message):,} chars, "
            f"≈{session.tokens.task:,} tokens]"
        )
        out.append(session.task_message)
    out += ["", "Files", text_table(FILE_HEADERS, file_rows(session))]
    diags = diagnostics if diagnostics is not None else session.diagnostics
    if diags:
        out += ["", "Diagnostics", *diagnostics_lines(diags)]
    return "\n".join(out)


def session_markdown(session: Session, diagnostics: list[Diagnostic] | None = None) -> str:
    t = session.tokens
    out = [
        f"# `{session.session_key}`",
        "",
        f"- agent: `{session.agent_id}`, kind: {session.kind}, prompt mode: "
        f"**{session.prompt_mode}**, profile: {session.profile}",
        f"- why: {session.kind_rule}",
        *([f"- runtime: {runtime_line(session)}"] if session.profile_choice else []),
        *([f"- exact: text written by {session.exact}"] if session.exact else []),
        f"- workspace: `{session.workspace}`",
        f"- model: `{session.model or '(default)'}`",
        f"- tokens ({session.tokenizer}, estimates): system {t.system:,} + task {t.task:,} = "
        f"**{t.total:,}** of {session.context_window:,} "
        f"({percent(t.total, session.context_window)})",
        "",
        "## Where the tokens go",
        "",
        md_table(
            ("category", "≈tokens", "of used", "of window"),
            [
                (
                    c.label,
                    f"{c.tokens:,}",
                    percent(c.tokens, t.total) if c.kind != "free" else "",
                    percent(c.tokens, session.context_window),
                )
                for c in context_map(session)
            ],
        ),
        "",
        "## Sections",
        "",
        md_table(SECTION_HEADERS, section_rows(session)),
        "",
        "## Files",
        "",
        md_table(FILE_HEADERS, file_rows(session)),
        "",
        "## System prompt",
        "",
        "````text",
        session.system_prompt,
        "````",
    ]
    if session.task_message is not None:
        out += ["", "## First user message", "", "````text", session.task_message, "````"]
    diags = diagnostics if diagnostics is not None else session.diagnostics
    if diags:
        out += ["", "## Diagnostics", ""] + [f"- {d}" for d in diags]
    return "\n".join(out)
