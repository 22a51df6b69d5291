"""The inspector's recorded runs: the Runs panel's tree, a chosen run beside the live
prediction (the panes and the map), and the state folder's stores watched for new runs (the
delta strip says "new run of <session key>").

The stores are those the config names (`session.store`), else the state folder's own, as
`ctxscope runs` reads them. Their folders are watched by the app's watcher code
(`tui.watch.run_watcher`, on a thread of its own, posting `StoresChanged`); a batch that
changes a store's stamps (a store file's or its `-wal`'s time and size) has them read again.
They are read on a thread of their own (`Latest`) as `ctxscope runs` lists them, the newest
screenful (`MOST`, the chosen run and the sessions they were spawned by too), without
predictions (its figures only, read by SQLite); a chosen run is read whole and compared
under the builder's lock (the inspector is the builds'). The stores are only ever read:
nothing in the state folder changes.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import App
from textual.message import Message

from ctxscope.diff.runlist import RunRow, RunsView, list_runs, newest_rows
from ctxscope.runs import read_newest
from ctxscope.runs.marks import Marks, Stamps, new_runs, run_marks, store_folders, store_stamps
from ctxscope.runs.recorded import StoreRead
from ctxscope.tui.background import Latest, in_background, to_app
from ctxscope.tui.recorded import KEY, Beside, beside, placement
from ctxscope.tui.watch import run_watcher
from ctxscope.tui.widgets.one_line import OneLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.runs_panel import MOST, RunsPanel

if TYPE_CHECKING:
    from ctxscope.tui.build import Build, Builder
    from ctxscope.tui.controller import Controller


class StoresChanged(Message):
    """Files under the stores' folders changed (`paths` absolute; `{"*"}` = unknown)."""

    def __init__(self, paths: set[str]) -> None:
        super().__init__()
        self.paths = paths


class RunsActions(App[None]):
    """Recorded runs in the inspector (mixed into `CtxscopeApp`)."""

    builder: Builder
    ctl: Controller
    build: Build | None
    watch_enabled: bool
    _stale_panels: set[str]
    # The controller's (`Controller`: what is compared with the prediction).
    runs_state: str | None
    runs_view: RunsView | None
    runs_shown: list[RunRow] | None
    runs_reads: int
    recorded: Beside | None

    def setup_runs(self) -> None:
        """The reader's own memory and threads (the runs themselves are the controller's)."""
        self._runs_marks: Marks | None = None
        self._stamps: Stamps | None = None
        """The stores' stamps at the last read."""
        self._stop_stores: threading.Event | None = None
        self._stores_watched: tuple[list[Path], list[Path]] | None = None
        self._runs_reader: Latest[bool] = Latest("runs", self._read_runs)
        self._beside_jobs: Latest[str] = Latest("recorded", self._read_beside)

    def start_runs(self) -> None:
        """Read the stores now (and watch their folders when the app watches)."""
        self._runs_reader.submit(True)

    def _watch_stores(self, folders: tuple[list[Path], list[Path]]) -> None:
        """Watch the stores' `folders` (whole, without their subfolders), unless they are
        those watched already: a store that appears or a `session.store` edited meanwhile
        moves them."""
        if not self.watch_enabled or folders == self._stores_watched:
            return
        if self._stop_stores is not None:
            self._stop_stores.set()
        self._stores_watched = folders
        stop = self._stop_stores = threading.Event()
        whole, tops = folders
        in_background(
            "watch-stores",
            lambda: run_watcher(
                self, whole, tops=tops, stop=stop, changed=StoresChanged, reports=False
            ),
        )

    def stop_runs(self) -> None:
        if self._stop_stores is not None:
            self._stop_stores.set()
        self._runs_reader.close()
        self._beside_jobs.close()

    def _config(self) -> dict[str, Any] | None:
        data = self.builder.inspector.config.data
        return data if isinstance(data, dict) else None

    def follow_stores(self) -> None:
        """After a build: the config read may name other stores (`session.store`); their
        stamps tell."""
        if self._stamps is not None:  # read once already (`start_runs`)
            self._runs_reader.submit(False)

    def on_stores_changed(self, _message: StoresChanged) -> None:
        self._runs_reader.submit(False)

    def _read_runs(self, always: bool) -> None:
        """On the runs thread: the state folder's sessions as a tree, the runs new since
        the last read, and the rows the panel shows (the screen's thread only draws). Not
        `always`: only once the stores' stamps changed (a batch of the watcher may be of
        other files of their folders)."""
        try:
            config = self._config()
            stamps = store_stamps(self.runs_state, config)
            folders = store_folders(self.runs_state, config)
        except OSError:
            return
        if self.watch_enabled and folders != self._stores_watched:
            to_app(self, self._watch_stores, folders)
        if not always and stamps == self._stamps:
            return
        self._stamps = stamps
        try:
            chosen = self.ctl.chosen_run
            read = read_newest(self.runs_state, config, limit=MOST, keep=[chosen] if chosen else ())
            view = list_runs(None, state=self.runs_state, whole=False, limit=MOST, read=read)
            marks = run_marks(StoreRead(view.state, runs=[r.run for r in view.rows]))
            before, self._runs_marks = self._runs_marks, marks
            fresh = new_runs(before, marks) if before is not None else []
            shown = newest_rows(view.rows, MOST, chosen)
        except Exception:  # never crash on what a store holds
            return
        to_app(self, self._apply_runs, view, fresh, shown)

    def _apply_runs(self, view: RunsView, fresh: list[str], shown: list[RunRow]) -> None:
        if not self.query("#deltabar"):  # read as the app closed: its screen is gone
            return
        again = self.ctl.runs_read(view, fresh, shown)
        if fresh:
            more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
            bar = self.query_one("#deltabar", OneLine)
            bar.display = True
            bar.update(f"Δ new run of {fresh[0]}{more}")
        if again is not None:
            self._beside_jobs.submit(again)
        self.show_runs()

    def show_runs(self, *, hidden_too: bool = False) -> None:
        """The Runs panel redrawn when on show (or `hidden_too`: filled while hidden, as
        the app fills its hidden panels), else when next shown."""
        if self.active_panel != "runs" and not hidden_too:
            self._stale_panels.add("runs")
        elif self.panel_ready("runs"):
            self._stale_panels.discard("runs")
            chosen = self.ctl.chosen_run
            self.query_one(RunsPanel).show(self.runs_view, chosen, self.runs_shown)

    @on(RunsPanel.Chosen)
    def _run_chosen(self, event: RunsPanel.Chosen) -> None:
        if event.key is None:
            self.recorded = None
            self.show_recorded()
            self.show_runs()
            return
        self._beside_jobs.submit(event.key)

    def _read_beside(self, key: str) -> None:
        """On its thread: the chosen run read whole, beside today's prediction of its key."""
        view = self.runs_view
        run = next((r.run for r in view.rows if r.run.session_key == key), None) if view else None
        if run is None:
            return
        try:
            with self.builder.lock:  # the inspector is the builds'
                made = beside(self.builder.inspector, run, self.runs_state)
        except Exception as exc:  # never crash on what a store holds
            to_app(
                self, self.notify, f"cannot compare {key}: {exc}", severity="warning", markup=False
            )
            return
        to_app(self, self._apply_beside, made)

    def _apply_beside(self, made: Beside) -> None:
        again = self.ctl.chosen_run == made.run.session_key
        build = self.build
        if build is not None:  # beside the pane of its agent and kind, or said why not
            known = self.builder.inspector.config.agent_ids()
            place = placement(made, build.report.requester, build.child, known)
            if place.side is None:
                self.notify(place.why_not, severity="warning", markup=False, timeout=10)
                return
            made = dataclasses.replace(made, side=place.side)
            if place.fields:
                self.notify(
                    f"{made.run.session_key}: "
                    + ", ".join(f"{k} is now {v}" for k, v in place.fields.items())
                    + " (the pane shows the session of the run's agent and kind)",
                    markup=False,
                )
                self.apply_scenario(dict(place.fields))
        self.recorded = made
        self.show_recorded()
        self.show_runs()
        if not again and self.query(f"#{made.side}"):  # a new choice: show its block
            view = self.query_one(f"#{made.side}", PromptPane).view
            if KEY in view.block_keys():
                view.select(KEY, scroll=True)

    def show_recorded(self) -> None:
        """Redraw what shows the recorded run: the panes and the map."""
        self.refresh_view()

    if TYPE_CHECKING:  # the app's

        def refresh_view(self, *, panes_only: bool = False) -> None: ...

        def apply_scenario(self, values: dict[str, Any] | None) -> None: ...

        @property
        def active_panel(self) -> str: ...

        def panel_ready(self, name: str) -> bool: ...
