"""Files panel: every bootstrap-file candidate of each session, with status and reason."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ctxscope.core.model import Session
from ctxscope.tui.build import Build
from ctxscope.tui.widgets.common import status_text
from ctxscope.tui.widgets.tables import KeyedTable

COLUMNS = ("session", "file", "status", "raw ch", "injected ch", "≈tok", "history", "reason")
SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[int]) -> str:
    """Sizes over the session's builds as bars (the last is the current build)."""
    if len(values) < 2:
        return ""
    lo, hi = min(values), max(values)
    if hi == lo:  # a flat line: at the floor when nothing is injected
        return (SPARKS[0] if hi == 0 else SPARKS[3]) * len(values)
    return "".join(SPARKS[round((v - lo) * (len(SPARKS) - 1) / (hi - lo))] for v in values)


class FilesPanel(Vertical):
    """A table of files; row keys are `main:NAME` / `child:NAME`."""

    _summary: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="files-summary", classes="panel-summary")
        yield KeyedTable(COLUMNS, id="files-table")

    def show(self, build: Build, history: dict[str, list[int]] | None = None) -> None:
        """`history`: each file's injected chars over this session's builds, by `side:path`."""
        history = history or {}
        rows = []
        sessions: list[tuple[str, Session]] = [("main", build.report.requester)]
        if build.child is not None:
            sessions.append(("child", build.child))
        counts: dict[str, int] = {}
        for side, session in sessions:
            for f in session.files:
                counts[f.status] = counts.get(f.status, 0) + 1
                reason = Text(f.reason, overflow="ellipsis", no_wrap=True)
                rows.append(
                    (
                        f"{side}:{f.name}",
                        (
                            side,
                            f.name,
                            status_text(self.app, f.status),
                            f"{f.raw_chars:,}",
                            f"{f.injected_chars:,}",
                            f"{session.file_tokens(f):,}",
                            status_text(
                                self.app, f.status, sparkline(history.get(f"{side}:{f.path}", []))
                            ),
                            reason,
                        ),
                    )
                )
        self.query_one(KeyedTable).set_rows(rows)
        summary = " · ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        text = f"{summary}   (Enter or w: why)" if summary else "no files"
        if text != self._summary:  # each update lays the screen out again
            self._summary = text
            self.query_one("#files-summary", Static).update(text)
