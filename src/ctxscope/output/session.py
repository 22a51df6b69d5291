"""A session as text (section by section) and as a markdown report."""

from __future__ import annotations

from ctxscope.core.contextmap import MapCategory, context_map
from ctxscope.core.model import Diagnostic, Section, Session
from ctxscope.core.tokens import is_estimate
from ctxscope.output.request import (
    TOOL_HEADERS,
    deferred_line,
    part_headers,
    part_rows,
    request_of,
    stand_in_note,
    tool_rows,
)
from ctxscope.output.table import md_table, percent, text_table


def estimated(session: Session, section: Section | None = None) -> bool:
    """Whether the session's counts (or `section`'s) are estimates: all of them with an
    estimating tokenizer, and a runtime placeholder's (sized by chars/4 from the measured
    size of text ctxscope does not have) with any tokenizer."""
    return is_estimate(session.tokenizer) or (section is not None and section.placeholder)


def approx(session: Session, section: Section | None = None) -> str:
    """`≈` before a count that is an estimate (see `estimated`), else nothing."""
    return "≈" if estimated(session, section) else ""


def tokens_header(session: Session) -> str:
    """A token column's heading: `≈tokens` when every count in it is an estimate."""
    return "≈tokens" if estimated(session) else "tokens"


def counting(session: Session) -> str:
    """How the session's tokens were counted: `≈estimate; estimates`, `o200k_base`, or
    `o200k_base; runtime placeholders ≈chars/4` when some counts in the totals are the
    placeholders' estimates."""
    if estimated(session):
        return f"{session.tokenizer}; estimates"
    sized = [
        *(["runtime placeholders"] if any(s.placeholder for s in session.sections) else []),
        *(["tool schemas"] if session.tokens.tools else []),
    ]
    return f"{session.tokenizer}; {' and '.join(sized)} ≈chars/4" if sized else session.tokenizer


def _cell(session: Session, tokens: int, estimate: bool) -> int | str:
    """A token count in a column whose heading says `tokens`: marked when it is an
    estimate (`estimate`) where the others are not."""
    return f"≈{tokens}" if estimate and not estimated(session) else tokens


def file_headers(session: Session) -> tuple[str, ...]:
    return ("name", "status", "raw chars", "injected chars", tokens_header(session), "reason")


def file_rows(session: Session) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for f in session.files:
        section = session.section(f"file:{f.name}")
        tokens = session.file_tokens(f)
        rows.append(
            (
                f.name,
                f.status,
                f.raw_chars,
                f.injected_chars,
                # With no section, the count is chars/4 of what was injected.
                _cell(session, tokens, estimated(session, section) if section else tokens > 0),
                f.reason,
            )
        )
    return rows


def section_headers(session: Session) -> tuple[str, ...]:
    return ("heading", "chars", tokens_header(session), "source")


def section_rows(session: Session) -> list[tuple[object, ...]]:
    return [
        (
            s.heading or "(identity line)",
            s.chars,
            _cell(session, s.tokens, estimated(session, s)),
            s.source + (" (runtime placeholder)" if s.placeholder else ""),
        )
        for s in session.sections
    ]


def category_tokens(session: Session, category: MapCategory) -> str:
    """A context-map category's tokens, `≈` when the count is an estimate where the column's
    others are not: it covers a runtime placeholder, or it is the window left free by
    totals that hold one."""
    if category.kind == "free":
        estimate = any(s.placeholder for s in session.sections) or session.tokens.tools > 0
    elif category.kind == "schemas":
        estimate = True  # sized by chars/4 from the tools' measured sizes
    else:
        estimate = any(estimated(session, session.section(i)) for i in category.sections)
    mark = "≈" if estimate and not estimated(session) else ""
    return f"{mark}{category.tokens:,}"


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
        f"tokens   {token_sum(session)} = {t.total:,} of "
        f"{session.context_window:,} ({percent(t.total, session.context_window)}) "
        f"[{counting(session)}]"
    )
    return lines


def token_sum(session: Session) -> str:
    """`system 8,393 + tools 2,233 + messages 113` (the whole request), or `system X + task
    Y` for a session whose request is not known."""
    t = session.tokens
    if request_of(session) is None:
        return f"system {t.system:,} + task {t.task:,}"
    return f"system {t.system:,} + tools {t.tools:,} + messages {t.messages:,}"


def request_lines(session: Session) -> list[str]:
    """The Request part: prompt, tools and messages with chars and tokens, the tools sent
    and those deferred."""
    if request_of(session) is None:
        return []
    out = ["", "Request", text_table(part_headers(session), part_rows(session))]
    if tool_rows(session):
        out += ["", text_table(TOOL_HEADERS, tool_rows(session))]
    out += [line for line in (deferred_line(session), stand_in_note(session)) if line]
    return out


def diagnostics_lines(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"  {d}" for d in diagnostics]


def session_text(session: Session, diagnostics: list[Diagnostic] | None = None) -> str:
    out = header_lines(session)
    out.append("")
    for sec in session.sections:
        tag = " (runtime placeholder)" if sec.placeholder else ""
        title = sec.heading or "(identity line)"
        out.append(
            f"──── {title}  [{sec.chars:,} chars, {approx(session, sec)}{sec.tokens:,} tokens · "
            f"{sec.source}{tag}]"
        )
        out.append(sec.text)
    if session.task_message is not None:
        out.append(
            f"════ first user message  [{len(session.task_message):,} chars, "
            f"{approx(session)}{session.tokens.task:,} tokens]"
        )
        out.append(session.task_message)
    out += request_lines(session)
    out += ["", "Files", text_table(file_headers(session), file_rows(session))]
    diags = diagnostics if diagnostics is not None else session.diagnostics
    if diags:
        out += ["", "Diagnostics", *diagnostics_lines(diags)]
    return "\n".join(out)


def request_markdown(session: Session) -> list[str]:
    if request_of(session) is None:
        return []
    out = ["## Request", "", md_table(part_headers(session), part_rows(session)), ""]
    if tool_rows(session):
        out += [md_table(TOOL_HEADERS, tool_rows(session)), ""]
    out += [f"{line}\n" for line in (deferred_line(session), stand_in_note(session)) if line]
    return out


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
        f"- tokens ({counting(session)}): {token_sum(session)} = "
        f"**{t.total:,}** of {session.context_window:,} "
        f"({percent(t.total, session.context_window)})",
        "",
        "## Where the tokens go",
        "",
        md_table(
            ("category", tokens_header(session), "of used", "of window"),
            [
                (
                    c.label,
                    category_tokens(session, c),
                    percent(c.tokens, t.total) if c.kind != "free" else "",
                    percent(c.tokens, session.context_window),
                )
                for c in context_map(session)
            ],
        ),
        "",
        "## Sections",
        "",
        md_table(section_headers(session), section_rows(session)),
        "",
        *request_markdown(session),
        "## Files",
        "",
        md_table(file_headers(session), file_rows(session)),
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
