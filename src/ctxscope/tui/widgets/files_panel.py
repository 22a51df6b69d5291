"""Files panel: every bootstrap-file candidate of each session, with status and reason."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ctxscope.model import Session
from ctxscope.tokens import estimate_tokens
from ctxscope.tui.build import Build
from ctxscope.tui.widgets.common import status_text
from ctxscope.tui.widgets.tables import KeyedTable

COLUMNS = ("session", "file", "status", "raw ch", "injected ch", "≈tok", "reason")


class FilesPanel(Vertical):
    """A table of files; row keys are `main:NAME` / `child:NAME`."""

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="files-summary", classes="panel-summary")
        yield KeyedTable(COLUMNS, id="files-table")

    def show(self, build: Build) -> None:
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
                            f"{estimate_tokens(f.injected_chars):,}",
                            reason,
                        ),
                    )
                )
        self.query_one(KeyedTable).set_rows(rows)
        summary = " · ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        self.query_one("#files-summary", Static).update(
            f"{summary}   (Enter or w: why)" if summary else "no files"
        )
