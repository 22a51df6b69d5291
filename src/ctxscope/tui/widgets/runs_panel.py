"""Runs panel: the sessions OpenClaw recorded in its state folder, as a tree (main sessions,
then the children they spawned), each with its recorded figures (a session id cut to its
first 8 hex digits, as OpenClaw's own UIs show it, so the figures fit at 120 columns). Enter
on a row puts that run beside the live prediction in the panes and the map; Enter on the
chosen row again (or on the summary's state) takes it away."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from ctxscope.diff.runlist import RunRow, RunsView, newest_rows
from ctxscope.output.runs import files_cell
from ctxscope.runs.recorded import run_time
from ctxscope.tui.shorten import short_key
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.tables import KeyedTable

COLUMNS = ("", "session", "label", "when (UTC)", "model", "prompt", "files")
MOST = 100
"""Rows shown at most (the newest runs, in tree order; the chosen run and the sessions they
were spawned by always): the panel reads only those (`runs.read_newest`), and laying out a
table of thousands on each new run would hold up the screen. `ctxscope runs --all` lists
all."""


def _cells(row: RunRow, picked: bool, mark: str, muted: str) -> tuple[Text | str, ...]:
    run = row.run
    lead = ("   " * (row.level - 1) + "└─ ") if row.level else ""
    prompt = run.figure("systemPrompt", "chars")
    return (
        Text("▶" if picked else "", style=mark),
        Text(lead + short_key(run.session_key), style=mark if picked else ""),
        run.label or "",
        run_time(run.when),
        run.model() or "-",
        f"{prompt:,} ch" if isinstance(prompt, int) else "-",
        Text(files_cell(run), style=muted if run.report is None else ""),
    )


def _same(made_from: tuple[object, ...], now: tuple[object, ...]) -> bool:
    """The same record (the very object: a listing read again keeps the runs it did not
    read again), level, choice and colours."""
    return made_from[0] is now[0] and made_from[1:] == now[1:]


class RunsPanel(Vertical):
    """A row per recorded session, keyed by its session key."""

    class Chosen(Message):
        """Enter on a run: put `key` beside the prediction (None: take it away)."""

        def __init__(self, key: str | None) -> None:
            super().__init__()
            self.key = key

    DEFAULT_CSS = """
    RunsPanel { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chosen: str | None = None
        self._summary = ""
        self._made: dict[str, tuple[tuple[object, ...], tuple[Text | str, ...]]] = {}
        """Each shown row's cells, and what they were made from."""

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="runs-summary", classes="panel-summary")
        yield KeyedTable(COLUMNS, id="runs-table")

    def show(
        self,
        view: RunsView | None,
        chosen: str | None = None,
        shown: list[RunRow] | None = None,
    ) -> None:
        """`view`: the state folder's sessions (None until first read); `chosen`: the run
        beside the prediction; `shown`: the rows to show, when already picked (`MOST`)."""
        self.chosen = chosen
        if view is None:
            summary = "reading OpenClaw's session stores…"
            rows: list[tuple[str, tuple[Text | str, ...]]] = []
        else:
            mark = color(self.app, "ctx-heading")
            muted = color(self.app, "ctx-muted")
            rows = []
            if shown is None or (chosen and all(r.run.session_key != chosen for r in shown)):
                shown = newest_rows(view.rows, MOST, chosen)
            made: dict[str, tuple[tuple[object, ...], tuple[Text | str, ...]]] = {}
            for row in shown:
                run = row.run
                picked = run.session_key == chosen
                # a run read again unchanged (the same record) keeps its cells
                mark_of = (run, row.level, picked, mark, muted)
                old = self._made.get(run.session_key)
                cells = old[1] if old is not None and _same(old[0], mark_of) else None
                if cells is None:
                    cells = _cells(row, picked, mark, muted)
                made[run.session_key] = (mark_of, cells)
                rows.append((run.session_key, cells))
            self._made = made
            parts = [f"{len(view.rows) + view.not_shown} recorded session(s) in {view.state}"]
            if view.not_shown or len(view.rows) > MOST:
                parts[0] += f" (the {MOST} newest shown; ctxscope runs --all lists them all)"
            parts += [str(d) for d in view.problems]
            if chosen:
                parts.append(
                    f"beside the prediction: {short_key(chosen)} (Enter on it again: away)"
                )
            elif view.rows:
                parts.append("Enter: put a run beside the prediction")
            summary = "  ·  ".join(parts)
        if summary != self._summary:
            self._summary = summary
            self.query_one("#runs-summary", Static).update(summary)
        self.query_one(KeyedTable).set_rows(rows)

    @property
    def plain(self) -> str:
        """The panel as plain text (what a copy or a test reads)."""
        return "\n".join([self._summary, *self.query_one(KeyedTable).plain_rows()])

    @on(KeyedTable.Selected)
    def _chosen(self, event: KeyedTable.Selected) -> None:
        event.stop()
        self.post_message(self.Chosen(None if event.key == self.chosen else event.key))
