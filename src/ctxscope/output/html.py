"""A build as one standalone HTML page (no scripts, no external files).

The page opens with the context map: per session a bar of the context window and a grid of
cells coloured by category, every cell standing for the same number of tokens on both sides,
so the subagent's smaller grid shows what it does not get; a legend gives tokens and shares,
and the subagent's legend ends with the files and skills it lost. Then, per session: the
header facts, the sections, the files, the system prompt and the first user message; the
spawn's policy checks and context scripts; the diagnostics. Colours are those of the bundled
light theme (a page to share or print).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ctxscope.core.contextmap import (
    EMPTY_COLOUR,
    MapCategory,
    colour_vars,
    context_map,
    grid,
    lost_labels,
)
from ctxscope.core.model import Diagnostic, Session
from ctxscope.output.request import (
    TOOL_HEADERS,
    deferred_line,
    part_headers,
    part_rows,
    request_of,
    stand_in_note,
    tool_rows,
)
from ctxscope.output.session import (
    category_tokens,
    counting,
    file_headers,
    file_rows,
    header_lines,
    section_headers,
    section_rows,
    tokens_header,
)
from ctxscope.output.spawn import RESULT_HEADERS, result_rows
from ctxscope.output.table import percent
from ctxscope.spawn import SpawnReport

COLUMNS, ROWS = 50, 8
"""The grid of the larger session: 400 cells."""

PALETTE = {
    "ctx-map-file-1": "#3C72E1",
    "ctx-map-file-2": "#AF8700",
    "ctx-map-file-3": "#45860D",
    "ctx-map-file-4": "#D53879",
    "ctx-map-file-5": "#227EB0",
    "ctx-map-file-6": "#BE5A15",
    "ctx-map-file-7": "#780678",
    "ctx-map-file-8": "#6B7E42",
    "ctx-map-file-9": "#AF875F",
    "ctx-map-file-10": "#3C3C73",
    "ctx-map-tools": "#890500",
    "ctx-map-schemas": "#5F00D7",
    "ctx-map-skills": "#014D28",
    "ctx-map-subagent": "#AF5FAF",
    "ctx-map-task": "#623810",
    "ctx-map-runtime": "#6E7580",
    "ctx-section-rule": "#D0D7DE",
    "ctx-removed": "#C0263B",
    "ctx-muted": "#57606A",
    "ctx-heading": "#0B5CAD",
}
"""The light theme's values (`themes/ctxscope-light.yaml`) of the variables the page uses."""

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #1F2328; background: #F6F7F9;
       margin: 2em auto; max-width: 1200px; padding: 0 1em; }
h1, h2, h3 { color: %(heading)s; }
pre { background: #FFFFFF; border: 1px solid %(rule)s; padding: .8em; overflow-x: auto;
      white-space: pre-wrap; font: 12px/1.4 ui-monospace, monospace; }
table { border-collapse: collapse; margin: .5em 0 1em; background: #FFFFFF; }
th, td { border: 1px solid %(rule)s; padding: .2em .6em; text-align: left;
         vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: %(muted)s; }
.lost { color: %(removed)s; }
.maps { display: flex; gap: 2em; flex-wrap: wrap; align-items: flex-start; }
.grid { display: grid; grid-template-columns: repeat(%(columns)d, 12px); gap: 1px; }
.grid i { width: 12px; height: 12px; display: block; }
.window { width: %(width)dpx; height: 8px; background: %(rule)s; margin: .3em 0 .6em; }
.window span { display: block; height: 8px; background: %(heading)s; }
.swatch { display: inline-block; width: 1.6em; height: .9em; vertical-align: middle; }
"""


def page_style() -> str:
    """The stylesheet every ctxscope page shares (the theme's colours, the map's grid)."""
    return STYLE % {
        "heading": PALETTE["ctx-heading"],
        "rule": PALETTE["ctx-section-rule"],
        "muted": PALETTE["ctx-muted"],
        "removed": PALETTE["ctx-removed"],
        "columns": COLUMNS,
        "width": COLUMNS * 13,
    }


def html_page(
    sessions: Sequence[tuple[str, Session]],
    *,
    facts: Sequence[tuple[str, str]] = (),
    spawn: SpawnReport | None = None,
    diagnostics: Sequence[Diagnostic] = (),
) -> str:
    """`sessions`: (title, session) pairs, the requester first; a subagent's legend lists
    what the first session has and it lost."""
    style = page_style()
    title = " · ".join(f"{name} {s.session_key}" for name, s in sessions)
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>ctxscope — {escape(title)}</title>",
        f"<style>{style}</style></head><body>",
        "<h1>ctxscope export</h1>",
    ]
    if facts:
        out.append("<table>")
        out += [f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts]
        out.append("</table>")
    out += _maps(sessions)
    for name, session in sessions:
        out += _session(name, session)
    if spawn is not None:
        out += _spawn(spawn)
    if diagnostics:
        out.append("<h2>Diagnostics</h2><ul>")
        out += [f"<li>{escape(str(d))}</li>" for d in diagnostics]
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _maps(sessions: Sequence[tuple[str, Session]]) -> list[str]:
    maps = [(name, s, context_map(s)) for name, s in sessions]
    scale = max(s.tokens.total for _, s, _ in maps)
    first = maps[0][2]
    out = [
        "<h2>Where the tokens go</h2>",
        f'<p class="muted">One cell ≈ {scale / (COLUMNS * ROWS):,.0f} tokens in every grid '
        f"(tokens: {escape(counting(maps[0][1]))}).</p>",
        '<div class="maps">',
    ]
    shared = colour_vars(*(cats for _, _, cats in maps))  # a file keeps its colour
    for i, (name, session, cats) in enumerate(maps):
        gone = lost_labels(first, cats) if i else []
        out += _map(name, session, cats, scale, gone, shared)
    out.append("</div>")
    return out


def _map(
    name: str,
    session: Session,
    cats: list[MapCategory],
    scale: int,
    gone: list[str],
    shared: dict[str, str],
) -> list[str]:
    colours = {c.key: PALETTE[shared[c.key]] for c in cats}
    used = [c for c in cats if c.kind != "free"]
    total, window = session.tokens.total, session.context_window
    share = min(100.0, 100 * total / max(window, 1))
    out = [
        "<section>",
        f"<h3>{escape(name)} <span class='muted'>{escape(session.session_key)}</span></h3>",
        f"<div>{total:,} / {window:,} {tokens_header(session)} ({percent(total, window)} of the "
        "window)</div>",
        f'<div class="window"><span style="width:{share:.2f}%"></span></div>',
        '<div class="grid">',
    ]
    for c in grid(used, scale, COLUMNS * ROWS):
        if c is None:
            out.append(f'<i style="background:{PALETTE[EMPTY_COLOUR]}" title="unused"></i>')
        else:
            out.append(f'<i style="background:{colours[c.key]}" title="{escape(c.label)}"></i>')
    out += [
        "</div>",
        f"<table><tr><th></th><th>category</th><th>{tokens_header(session)}</th><th>of used</th>"
        "<th>of window</th></tr>",
    ]
    for c in cats:
        of_used = percent(c.tokens, total) if c.kind != "free" else ""
        out.append(
            f'<tr><td><span class="swatch" style="background:{colours[c.key]}"></span></td>'
            f"<td>{escape(c.label)}</td><td class='n'>{category_tokens(session, c)}</td>"
            f"<td class='n'>{of_used}</td><td class='n'>{percent(c.tokens, window)}</td></tr>"
        )
    out += [
        f'<tr class="lost"><td>−</td><td>{escape(label)}</td><td class="n">—</td><td></td>'
        "<td>lost</td></tr>"
        for label in gone
    ]
    out += ["</table>", "</section>"]
    return out


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>"]
    for row in rows:
        cells = (
            f"<td class='n'>{v:,}</td>" if isinstance(v, int) else f"<td>{escape(str(v))}</td>"
            for v in row
        )
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return out


def _request(session: Session) -> list[str]:
    """The Request part: prompt, tools and messages, the tools sent and those deferred."""
    if request_of(session) is None:
        return []
    out = ["<h3>Request</h3>", *_table(part_headers(session), part_rows(session))]
    if tool_rows(session):
        out += _table(TOOL_HEADERS, tool_rows(session))
    out += [
        f"<p class='muted'>{escape(line)}</p>"
        for line in (deferred_line(session), stand_in_note(session))
        if line
    ]
    return out


def _session(name: str, session: Session) -> list[str]:
    out = [
        f"<h2>{escape(name)}: {escape(session.session_key)}</h2>",
        f"<pre>{escape(chr(10).join(header_lines(session)))}</pre>",
        "<h3>Sections</h3>",
        *_table(section_headers(session), section_rows(session)),
        *_request(session),
        "<h3>Files</h3>",
        *_table(file_headers(session), file_rows(session)),
        f"<details open><summary>System prompt ({len(session.system_prompt):,} chars)</summary>",
        f"<pre>{escape(session.system_prompt)}</pre></details>",
    ]
    if session.task_message is not None:
        out += [
            "<details open><summary>First user message</summary>",
            f"<pre>{escape(session.task_message)}</pre></details>",
        ]
    return out


def _spawn(spawn: SpawnReport) -> list[str]:
    pol = spawn.policy
    verdict = "allowed" if pol.allowed else f"forbidden: {pol.error or ''}"
    out = [
        "<h2>Spawn</h2>",
        f"<p>{escape(spawn.requested_target)} → {escape(spawn.target_agent_id)}: "
        f"<strong>{escape(verdict)}</strong> · model {escape(str(spawn.model.value))} "
        f"({escape(spawn.model.source)}) · thinking {escape(str(spawn.thinking.value))}</p>",
        "<h3>Policy checks</h3>",
        *_table(
            ("check", "ok", "detail"),
            [(c.name, "✓" if c.ok else "✗", c.detail) for c in pol.checks],
        ),
        "<h3>Context scripts</h3>",
    ]
    results = spawn.scripts.results
    if not results:
        return [*out, "<p class='muted'>(none)</p>"]
    return out + _table(RESULT_HEADERS, result_rows(results))
