"""`ctxscope diff` as text, markdown and an HTML page: a summary table (one row per
session: whole-request tokens before → after, files lost and gained, sections added,
removed and resized, tools, policy), then each changed session in detail."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ctxscope.core.safetext import line_safe
from ctxscope.diff.compare import Comparison, SessionDiff
from ctxscope.output import dump_json, renders
from ctxscope.output.html import page_style
from ctxscope.output.table import md_table, text_table

Table = tuple[str, Sequence[str], list[tuple[object, ...]]]
"""(title, headers, rows)."""


def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"−{-n:,}" if n < 0 else "±0"


def _total(tokens: dict[str, int] | None, estimate: bool = False) -> str:
    if tokens is None:
        return "—"
    return f"{'≈' if estimate else ''}{tokens['total']:,}"


def _files_cell(s: SessionDiff) -> str:
    lost = [f"−{f.name}" for f in s.files if f.lost]
    gained = [f"+{f.name}" for f in s.files if f.gained]
    cut = [f"✂{f.name}" for f in s.files if f.cut]
    other = len(s.files) - len(lost) - len(gained) - len(cut)
    parts = [*lost, *gained, *cut] + ([f"~{other}"] if other else [])
    return " ".join(parts) or "-"


def _count_cell(s: SessionDiff, key: str, marks: dict[str, str]) -> str:
    if key in s.not_recorded:
        return "not recorded"
    items = s.sections if key == "sections" else s.tools
    counts: dict[str, int] = {}
    for item in items:
        counts[item.change] = counts.get(item.change, 0) + 1
    return " ".join(f"{marks[c]}{n}" for c, n in counts.items() if c in marks) or "-"


SECTION_MARKS = {"added": "+", "removed": "−", "resized": "~"}
TOOL_MARKS = {"gained": "+", "lost": "−", "listed": "+line ", "unlisted": "−line "}


def _key(s: SessionDiff) -> str:
    role = {"child": " (spawned child)", "rye": " (Rye thread)"}.get(s.role, "")
    return s.session_key + role


def summary_rows(result: Comparison) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for s in result.sessions:
        if s.before is None or s.after is None:
            change = "only before" if s.after is None else "only after"
        else:
            change = signed(s.delta)
        policy = "-"
        if s.role == "child" and s.allowed[0] != s.allowed[1]:
            policy = f"{_allowed(s.allowed[0])} → {_allowed(s.allowed[1])}"
        elif s.policy:
            policy = f"{len(s.policy)} check(s) changed"
        if s.thread is not None and s.thread.chain_changed:
            policy = "chain changed"
        rows.append(
            (
                _key(s),
                _total(s.before, s.estimated[0]),
                _total(s.after, s.estimated[1]),
                change,
                _files_cell(s),
                _count_cell(s, "sections", SECTION_MARKS),
                _count_cell(s, "tools", TOOL_MARKS),
                policy,
            )
        )
    return rows


SUMMARY_HEADERS = ("session", "before", "after", "tokens", "files", "sections", "tools", "policy")


def _allowed(value: bool | None) -> str:
    return "—" if value is None else "allowed" if value else "forbidden"


def _file_state(entry: dict[str, object] | None) -> str:
    if entry is None:
        return "not listed"
    return f"{entry['status']} {int(entry['injected_chars']):,} ch"  # type: ignore[call-overload]


def detail_tables(s: SessionDiff) -> list[Table]:
    tables: list[Table] = []
    rows: list[tuple[object, ...]]
    if s.before is not None and s.after is not None:
        marks = ["≈" if e else "" for e in s.estimated]
        rows = [
            (
                part,
                f"{marks[0]}{s.before[part]:,}",
                f"{marks[1]}{s.after[part]:,}",
                signed(s.after[part] - s.before[part]),
            )
            for part in ("system", "tools", "messages", "total")
        ]
        if "prompt_chars" in s.before and "prompt_chars" in s.after:  # an OpenClaw session's
            rows.append(
                (
                    "prompt chars",
                    f"{s.before['prompt_chars']:,}",
                    f"{s.after['prompt_chars']:,}",
                    signed(s.after["prompt_chars"] - s.before["prompt_chars"]),
                )
            )
        title = "tokens (whole request)"
        if s.counting:
            title += f", ≈ counted {s.counting}"
        elif any(s.estimated):
            title += ", ≈ an estimate from the recorded chars (chars/4)"
        tables.append((title, ("part", "before", "after", "change"), rows))
    if s.files:
        rows = [
            (
                f.name,
                _file_state(f.before),
                _file_state(f.after),
                signed(
                    int((f.after or {}).get("tokens", 0)) - int((f.before or {}).get("tokens", 0))
                ),
                f.why,
            )
            for f in s.files
        ]
        tables.append(("files", ("file", "before", "after", "tokens", "why"), rows))
    if s.sections:
        mark = {"added": "+", "removed": "−", "resized": "~"}
        rows = [
            (
                f"{mark[c.change]} {c.heading}",
                f"{c.chars_before:,} → {c.chars_after:,}",
                signed(c.tokens_after - c.tokens_before),
                c.why,
            )
            for c in s.sections
        ]
        tables.append(("sections", ("section", "chars", "tokens", "why"), rows))
    if "sections" in s.not_recorded:
        rows = [("not recorded", "-", "-", "a recorded run holds figures, not section texts")]
        tables.append(("sections", ("section", "chars", "tokens", "why"), rows))
    if s.tools:
        rows = [(t.change, t.name, t.why) for t in s.tools]
        tables.append(("tools", ("change", "tool", "why"), rows))
    if s.role == "child" and (s.policy or s.allowed[0] != s.allowed[1]):
        rows = [("spawn", _allowed(s.allowed[0]), _allowed(s.allowed[1]))]
        rows += [(p.check, p.before, p.after) for p in s.policy]
        tables.append(("spawn policy", ("check", "before", "after"), rows))
    t = s.thread
    if t is not None and (t.chain_changed or t.hooks_gained or t.hooks_lost):
        rows = []
        if t.chain_changed:
            rows.append(("chain", " → ".join(t.chain_before), " → ".join(t.chain_after)))
        rows += [("hook", "-", f"+{h} (applies)") for h in t.hooks_gained]
        rows += [("hook", f"{h} (applied)", "−") for h in t.hooks_lost]
        tables.append(("chain and hooks", ("what", "before", "after"), rows))
    return tables


def _heading(s: SessionDiff) -> str:
    key = s.session_key
    if s.before_key:
        key = f"{s.before_key} → {key}"
    if s.before is None or s.after is None:
        side = "after" if s.before is None else "before"
        return f"{key}: only {side}"
    old, new = (_total(t, e) for t, e in zip((s.before, s.after), s.estimated, strict=True))
    return f"{key}: {old} → {new} tokens ({signed(s.delta)})"


def diff_text(result: Comparison) -> str:
    out = [
        line_safe(f"from  {result.before}  [{result.runtime_before}]"),
        line_safe(f"to    {result.after}  [{result.runtime_after}]"),
        "",
        text_table(SUMMARY_HEADERS, summary_rows(result)),
    ]
    out += [line_safe(f"note: {n}") for n in result.notes]
    changed = [s for s in result.sessions if s.changed]
    if not changed:
        out += ["", "no change in any session"]
    for s in changed:
        out += ["", line_safe(f"──── {_heading(s)}")]
        for title, headers, rows in detail_tables(s):
            out += [f"{title}:", text_table(headers, rows)]
    return "\n".join(out)


def diff_markdown(result: Comparison) -> str:
    out = [
        "# ctxscope diff",
        "",
        line_safe(
            f"**from** {result.before} ({result.runtime_before}) **to** {result.after} "
            f"({result.runtime_after})"
        ),
        "",
        md_table(SUMMARY_HEADERS, summary_rows(result)),
    ]
    out += [f"\n> note: {line_safe(n)}" for n in result.notes]
    for s in [s for s in result.sessions if s.changed]:
        out += ["", f"<details><summary>{escape(line_safe(_heading(s)))}</summary>", ""]
        for title, headers, rows in detail_tables(s):
            out += [f"**{title}**", "", md_table(headers, rows), ""]
        out.append("</details>")
    return "\n".join(out)


def diff_html(result: Comparison) -> str:
    style = page_style()
    title = f"{result.before} → {result.after}"
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>ctxscope diff — {escape(title)}</title>",
        f"<style>{style}</style></head><body>",
        "<h1>ctxscope diff</h1>",
        f"<p><b>from</b> {escape(result.before)} ({escape(result.runtime_before)}) "
        f"<b>to</b> {escape(result.after)} ({escape(result.runtime_after)})</p>",
    ]
    out += _html_table(SUMMARY_HEADERS, summary_rows(result))
    out += [f"<p class='muted'>note: {escape(n)}</p>" for n in result.notes]
    for s in [s for s in result.sessions if s.changed]:
        out.append(f"<h2>{escape(_heading(s))}</h2>")
        for name, headers, rows in detail_tables(s):
            out.append(f"<h3>{escape(name)}</h3>")
            out += _html_table(headers, rows)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>")
    out.append("</table>")
    return out


renders(
    Comparison,
    text=diff_text,
    markdown=diff_markdown,
    html=diff_html,
    json=lambda result: dump_json(result.to_dict()),
)
