"""`ctxscope runs` as text, markdown and one HTML page: the recorded sessions as a tree, each
with its recorded figures and how today's prediction compares; one session whole."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ctxscope.core.safetext import line_safe, terminal_safe
from ctxscope.diff.runlist import RunRow, RunsView
from ctxscope.output import dump_json, renders
from ctxscope.output.table import md_table, text_table
from ctxscope.runs.recorded import RecordedRun, run_time

HEADERS = ("session", "label", "depth", "model", "when", "prompt", "files", "prediction")


def _num(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "-"


def files_cell(run: RecordedRun) -> str:
    """The files a run's report recorded, as `runs` and the Runs panel show them: how many,
    how many of them truncated and missing."""
    if run.report is None:
        return "no report"
    files = run.files()
    cut = sum(f.truncated for f in files)
    missing = sum(f.missing for f in files)
    extra = [f"{cut} truncated" if cut else "", f"{missing} missing" if missing else ""]
    notes = ", ".join(e for e in extra if e)
    return f"{len(files)}" + (f" ({notes})" if notes else "")


def _verdict(row: RunRow) -> str:
    run = row.run
    if run.problem is not None:
        return "unreadable entry"
    if run.report is None:
        return "no report recorded"
    return row.summary or "-"


def _tree_cells(rows: Sequence[RunRow], indent: str = "   ") -> list[tuple[str, ...]]:
    """The rows of the tree. The runs of one shape (`RecordedRun.shape`) have the same
    figures: their cells are made once."""
    figures_of: dict[str, tuple[str, str, str]] = {}
    leads: dict[int, str] = {}
    out: list[tuple[str, ...]] = []
    for row in rows:
        run, level = row.run, row.level
        lead = leads.get(level)
        if lead is None:
            lead = leads[level] = (indent * (level - 1) + "└─ ") if level else ""
        shape = run.shape
        figures = figures_of.get(shape) if shape is not None else None
        if figures is None:
            figures = (
                run.model() or "-",
                _num(run.figure("systemPrompt", "chars")),
                files_cell(run),
            )
            if shape is not None:
                figures_of[shape] = figures
        out.append(
            (
                lead + run.session_key,
                run.label or "",
                str(run.depth),
                figures[0],
                run_time(run.when),
                figures[1],
                figures[2],
                _verdict(row),
            )
        )
    return out


def not_shown(view: RunsView) -> str | None:
    """How many sessions the listing left out, and how to see them (None: none)."""
    if not view.not_shown:
        return None
    older = "older session" + ("s" if view.not_shown != 1 else "")
    return (
        f"{view.not_shown:,} {older} not shown (the {view.limit:,} newest are, with the"
        " sessions they were spawned by): --limit N for more, --all for every one"
    )


def runs_text(view: RunsView) -> str:
    out = [line_safe(f"state  {view.state}"), f"stores {len(view.stores)}"]
    if view.rows:
        out += ["", text_table(HEADERS, _tree_cells(view.rows))]
    else:
        out += ["", "no recorded sessions"]
    left = not_shown(view)
    if left:
        out += ["", left]
    out += _diagnostics(view, markdown=False)
    return "\n".join(out)


def runs_markdown(view: RunsView) -> str:
    out = ["# ctxscope runs", "", f"State folder: `{line_safe(view.state)}`", ""]
    rows = _tree_cells(view.rows)
    out.append(md_table(HEADERS, rows) if rows else "No recorded sessions.")
    left = not_shown(view)
    if left:
        out += ["", left + "."]
    out += _diagnostics(view, markdown=True)
    return "\n".join(out)


def _diagnostics(view: RunsView, *, markdown: bool) -> list[str]:
    if not view.problems:
        return []
    if markdown:
        return ["", "## Diagnostics", "", *(f"- {d}" for d in view.problems)]
    return ["", "Diagnostics", *(f"  {d}" for d in view.problems)]


def _facts(row: RunRow) -> list[tuple[str, str]]:
    run = row.run
    fig = run.figure
    facts = [
        ("session", run.session_key),
        ("agent", run.agent_id),
        ("spawned by", run.spawned_by or "-"),
        ("depth", str(run.depth)),
        ("label", run.label or "-"),
        ("store", run.store),
        ("generated", run_time(run.generated_at)),
        ("session id", str(fig("sessionId") or "-")),
        ("model", run.model() or "-"),
        ("workspace", str(fig("workspaceDir") or "-")),
        (
            "bootstrap limits",
            f"{_num(fig('bootstrapMaxChars'))} / {_num(fig('bootstrapTotalMaxChars'))}",
        ),
        ("sandbox", str(fig("sandbox", "mode") or "-")),
        (
            "prompt",
            f"{_num(fig('systemPrompt', 'chars'))} chars "
            f"(project context {_num(fig('systemPrompt', 'projectContextChars'))}, "
            f"other {_num(fig('systemPrompt', 'nonProjectContextChars'))})",
        ),
        ("prompt sha256", str(fig("systemPrompt", "hash") or "-")),
        (
            "tools",
            f"list {_num(fig('tools', 'listChars'))}, "
            f"schemas {_num(fig('tools', 'schemaChars'))} chars",
        ),
        ("skills", f"{_num(fig('skills', 'promptChars'))} chars"),
    ]
    turn = fig("currentTurn")
    if isinstance(turn, dict):
        facts.append(
            (
                "current turn",
                f"prompt {_num(turn.get('promptChars'))}, runtime context "
                f"{_num(turn.get('runtimeContextChars'))} chars",
            )
        )
    if row.comparison is not None:
        facts.append(("prediction", row.comparison.summary))
    return facts


FILE_HEADERS = (
    "file",
    "recorded raw",
    "recorded injected",
    "predicted raw",
    "predicted injected",
    "status",
)


def _file_rows(row: RunRow) -> list[tuple[str, ...]]:
    if row.comparison is not None:
        return [
            (
                f["name"],
                _num(f["recorded_raw_chars"]) + (" missing" if f["recorded_missing"] else ""),
                _num(f["recorded_injected_chars"]) + (" cut" if f["recorded_truncated"] else ""),
                _num(f["predicted_raw_chars"]),
                _num(f["predicted_injected_chars"]),
                f["status"],
            )
            for f in row.comparison.files
        ]
    return [
        (
            f.name,
            _num(f.raw_chars),
            _num(f.injected_chars),
            "-",
            "-",
            "missing" if f.missing else "",
        )
        for f in row.run.files()
    ]


def _differences(row: RunRow) -> list[str]:
    if row.comparison is None:
        return []
    return [line_safe(f"{d.item}: {d.why}") for d in row.comparison.differences]


def run_text(view: RunsView) -> str:
    """`--session KEY`: the session whole, then the sessions it spawned as a tree."""
    row = view.rows[0]
    out = [text_table(("", ""), _facts(row)).split("\n", 2)[2]]
    out += ["", "Files", text_table(FILE_HEADERS, _file_rows(row))]
    diffs = _differences(row)
    if diffs:
        out += ["", "Where the prediction differs", *(f"  {d}" for d in diffs)]
    if len(view.rows) > 1:
        out += ["", "Spawned", text_table(HEADERS, _tree_cells(view.rows[1:]))]
    out += _diagnostics(view, markdown=False)
    return "\n".join(out)


def run_markdown(view: RunsView) -> str:
    row = view.rows[0]
    out = [f"# Run `{line_safe(row.run.session_key)}`", "", md_table(("", ""), _facts(row))]
    out += ["", "## Files", "", md_table(FILE_HEADERS, _file_rows(row))]
    diffs = _differences(row)
    if diffs:
        out += ["", "## Where the prediction differs", "", *(f"- {d}" for d in diffs)]
    if len(view.rows) > 1:
        out += ["", "## Spawned", "", md_table(HEADERS, _tree_cells(view.rows[1:]))]
    out += _diagnostics(view, markdown=True)
    return "\n".join(out)


def runs_html(view: RunsView) -> str:
    """One standalone page: the tree, then each session's facts, files and differences."""

    def cell(value: object) -> str:
        return escape(terminal_safe(str(value)))

    def table(headers: tuple[str, ...], rows: Sequence[Sequence[str]]) -> str:
        head = "".join(f"<th>{cell(h)}</th>" for h in headers)
        body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table><tr>{head}</tr>{body}</table>"

    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8"><title>ctxscope runs</title>',
        "<style>body{font-family:monospace}td,th{padding:0 .6em;text-align:left;"
        "vertical-align:top}</style></head><body>",
        "<h1>ctxscope runs</h1>",
        f"<p>State folder: {cell(view.state)}</p>",
        table(HEADERS, _tree_cells(view.rows, "\u00a0\u00a0\u00a0")),
    ]
    left = not_shown(view)
    if left:
        out.append(f"<p>{cell(left)}</p>")
    for row in view.rows:
        out.append(f"<h2>{cell(row.run.session_key)}</h2>")
        out.append(table(("", ""), _facts(row)))
        out.append(table(FILE_HEADERS, _file_rows(row)))
        diffs = _differences(row)
        if diffs:
            out.append("<ul>" + "".join(f"<li>{cell(d)}</li>" for d in diffs) + "</ul>")
    if view.problems:
        out.append("<h2>Diagnostics</h2><ul>")
        out += [f"<li>{cell(d)}</li>" for d in view.problems]
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out)


renders(
    RunsView,
    text=lambda view: run_text(view) if view.session else runs_text(view),
    markdown=lambda view: run_markdown(view) if view.session else runs_markdown(view),
    html=runs_html,
    json=lambda view: dump_json(view.to_dict()),
)
