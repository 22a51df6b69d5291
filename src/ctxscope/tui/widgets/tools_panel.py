"""Tools panel: the tools each pane's request sends beside its prompt, by size, and the ones
Tool Search defers (named in the prompt, fetched on demand), with totals and where the sizes
come from (an installed runtime's runner, or the release's measured facts standing in)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ctxscope.core.model import Session
from ctxscope.core.tokens import estimate_tokens
from ctxscope.runtimes.openclaw.request import ModelRequest
from ctxscope.tui.build import Build
from ctxscope.tui.widgets.tables import KeyedTable

COLUMNS = ("session", "tool", "sent as", "description ch", "schema ch", "≈tok")


def tool_rows(side: str, request: ModelRequest) -> list[tuple[str, tuple[str, ...]]]:
    """One row per tool the request sends (in its order), then one per deferred tool, then
    the pane's total; keys are `side:tool`."""
    rows: list[tuple[str, tuple[str, ...]]] = []
    for tool in request.tools:
        rows.append(
            (
                f"{side}:{tool.name}",
                (
                    side,
                    tool.name,
                    "visible" if request.tool_search else "sent",
                    f"{tool.description_chars:,}",
                    f"{tool.schema_chars:,}",
                    f"{estimate_tokens(tool.chars):,}",
                ),
            )
        )
    for name in request.deferred:
        rows.append((f"{side}:{name}", (side, name, "deferred", "–", "–", "–")))
    desc = sum(t.description_chars for t in request.tools)
    rows.append(
        (
            f"{side}:(total)",
            (
                side,
                f"total: {len(request.tools)} sent",
                f"{len(request.deferred)} deferred" if request.deferred else "",
                f"{desc:,}",
                f"{request.tool_schema_chars:,}",
                f"{request.tool_tokens:,}",
            ),
        )
    )
    return rows


def tools_summary(sessions: list[tuple[str, Session]]) -> str:
    """Per pane: tools sent, deferred, schema chars and Tool Search; then the source."""
    parts = []
    sources = []
    for side, session in sessions:
        request = session.wire
        if request is None:
            parts.append(f"{side}: no request (this runtime sends no tools ctxscope knows)")
            continue
        search = {True: "Tool Search on", False: "Tool Search off", None: ""}[request.tool_search]
        text = (
            f"{side}: {len(request.tools)} sent, {len(request.deferred)} deferred, "
            f"{request.tool_schema_chars:,} schema ch, ≈{request.tool_tokens:,} tok"
        )
        parts.append(f"{text} ({search})" if search else text)
        if request.plan.catalog_source not in sources:
            sources.append(request.plan.catalog_source)
    line = " · ".join(parts)
    return f"{line}\nsource: {'; '.join(sources)}" if sources else line


class ToolsPanel(Vertical):
    """The tools of both panes' requests; row keys are `main:TOOL` / `child:TOOL`."""

    DEFAULT_CSS = """
    ToolsPanel { height: 1fr; }
    """

    _summary: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="tools-summary", classes="panel-summary")
        yield KeyedTable(COLUMNS, id="tools-table")

    def show(self, build: Build) -> None:
        sessions: list[tuple[str, Session]] = [("main", build.report.requester)]
        if build.child is not None:
            sessions.append(("child", build.child))
        rows = [
            row
            for side, session in sessions
            if session.wire is not None
            for row in tool_rows(side, session.wire)
        ]
        self.query_one(KeyedTable).set_rows(rows)
        text = tools_summary(sessions)
        if text != self._summary:  # each update lays the screen out again
            self._summary = text
            self.query_one("#tools-summary", Static).update(text)
