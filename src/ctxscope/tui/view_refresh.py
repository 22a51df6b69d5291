"""Drawing the app from its state: the bars, both panes (their blocks are
`panes.pane_blocks`'s, a pure function of the build and the view's choices), and the panels,
the visible one once the panes' frame is on screen, the hidden ones when keys pause."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from textual.timer import Timer

from ctxscope.core.model import Diagnostic
from ctxscope.diff.runlist import RunRow, RunsView
from ctxscope.tui.build import Build, Builder
from ctxscope.tui.controller import (
    PREFILL_AFTER_S,
    Controller,
)
from ctxscope.tui.exact_actions import ExactActions
from ctxscope.tui.panel_actions import PanelActions
from ctxscope.tui.panes import PaneChoices, pane_blocks
from ctxscope.tui.pin_actions import PinActions
from ctxscope.tui.pinned import PinnedSide
from ctxscope.tui.recorded import Beside
from ctxscope.tui.runs_actions import RunsActions
from ctxscope.tui.status import (
    child_alarm,
    child_extra,
    child_notice,
    thread_header,
    unknown_mark,
)
from ctxscope.tui.summary import summary_line
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.files_panel import FilesPanel
from ctxscope.tui.widgets.info_panels import BudgetsPanel, PolicyPanel
from ctxscope.tui.widgets.map_panel import MapPanel
from ctxscope.tui.widgets.one_line import FitLine, OneLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.scripts_panel import OverridesPanel, ScriptsPanel
from ctxscope.tui.widgets.tools_panel import ToolsPanel

T = TypeVar("T")


class _state(Generic[T]):
    """An attribute of the app that is the controller's (`app.ctl`) of `name`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, app: ViewRefresh, owner: object = None) -> T:
        value: T = getattr(app.ctl, self.name)
        return value

    def __set__(self, app: ViewRefresh, value: T) -> None:
        setattr(app.ctl, self.name, value)


class ViewRefresh(RunsActions, PinActions, PanelActions, ExactActions):
    """Drawing the inspector from its state (a base of `CtxscopeApp`)."""

    ctl: Controller
    builder: Builder
    frozen: bool
    _prefill_timer: Timer | None

    # The controller's state, under the names the app has always had.
    build = _state[Build | None]("build")
    build_error = _state[Diagnostic | None]("build_error")
    scripts_running = _state[bool]("scripts_running")
    diff_mode = _state[bool]("diff_mode")
    linked = _state[bool]("linked")
    rye_pane = _state[bool]("rye_pane")
    file_history = _state[dict[str, list[int]]]("file_history")
    changed_sections = _state[dict[str, set[str]]]("changed_sections")
    builds_applied = _state[int]("builds_applied")
    calm_gc = _state[bool]("calm_gc")
    watched = _state[tuple[Path, ...]]("watched")
    watch_enabled = _state[bool]("watch_enabled")
    watch_bounds = _state[list[Diagnostic]]("watch_bounds")
    watch_problem = _state[Diagnostic | None]("watch_problem")
    _stale_panels = _state[set[str]]("stale")
    pinned = _state[PinnedSide | None]("pinned")
    runs_state = _state[str | None]("runs_state")
    runs_view = _state[RunsView | None]("runs_view")
    runs_shown = _state[list[RunRow] | None]("runs_shown")
    runs_reads = _state[int]("runs_reads")
    recorded = _state[Beside | None]("recorded")

    def refresh_view(self, *, panes_only: bool = False) -> None:
        """Redraw panes, bars and panels from the last good build and the current error.

        The panes come first: the visible panel is redrawn once the frame showing them is
        on screen (a table costs as much to draw as both panes), the others when they are
        shown."""
        self._refresh_bars()
        build = self.build
        if build is None:
            return
        self._refresh_panes(build)
        if panes_only:
            return
        self.ctl.all_stale()
        self.call_after_refresh(self._refresh_active_panel)
        self._prefill_timer = self._restart(self._prefill_timer, PREFILL_AFTER_S, self._prefill)

    def _refresh_active_panel(self) -> None:
        if self._view_mounted:
            self._refresh_panel(self.active_panel)

    def _prefill(self) -> None:
        """Once rebuilds and keys pause: fill a hidden panel the last build left out of date,
        and the next one a moment later, so that a key showing a panel only has it laid out
        and drawn (filling the Map or the Chain tree takes ~5 ms more)."""
        self._prefill_timer = None
        if not self._view_mounted:
            return
        step = self.ctl.prefill(time.monotonic(), self.active_panel, PREFILL_AFTER_S)
        if step.panel is not None:
            self._refresh_panel(step.panel)
        if step.wait is not None:
            self._prefill_timer = self.set_timer(step.wait, self._prefill, name="prefill")

    @property
    def _view_mounted(self) -> bool:
        """False while quitting: a timer or deferred callback may still fire then."""
        return bool(self.query("#main"))

    def _refresh_panel(self, name: str) -> None:
        if not self.panel_ready(name):
            return  # it stays out of date until it is mounted (`mount_panels`)
        build = self.ctl.take(name)
        if build is not None:
            getattr(self, f"_fill_{name}")(build)

    # Each panel filled from the build shown (`_refresh_panel`), one method a panel.
    def _fill_files(self, build: Build) -> None:
        self.query_one(FilesPanel).show(build, self.file_history)

    def _fill_scripts(self, build: Build) -> None:
        self.query_one(ScriptsPanel).show(build, running=self.scripts_running)

    def _fill_overrides(self, build: Build) -> None:
        self.query_one(OverridesPanel).show(build, running=self.scripts_running)

    def _fill_policy(self, build: Build) -> None:
        self.query_one(PolicyPanel).show(build, running=self.scripts_running)

    def _fill_budgets(self, build: Build) -> None:
        self.query_one(BudgetsPanel).show(build)

    def _fill_chain(self, build: Build) -> None:
        self.query_one(ChainTree).show(build.report.thread, pending=build.thread_building)

    def _fill_problems(self, build: Build) -> None:
        watch = [self.watch_problem] if self.watch_problem else []
        self.query_one(ProblemsPanel).show(build, self.build_error, [*watch, *self.watch_bounds])

    def _fill_map(self, build: Build) -> None:
        pinned = self.pinned
        then = pinned.before(pinned.pane) if pinned is not None else None
        if pinned is None or then is None:
            self.query_one(MapPanel).show(
                build.report.requester, build.child, recorded=self.recorded
            )
            return
        now = build.report.requester if pinned.pane == "main" else build.child
        recorded = pinned.run is not None
        before = f"BEFORE ({'recorded ' if recorded else ''}{pinned.label})"
        self.query_one(MapPanel).show(then, now, (before, "NOW"), before_recorded=recorded)

    def _fill_runs(self, build: Build) -> None:
        self.show_runs(hidden_too=True)

    def _fill_tools(self, build: Build) -> None:
        self.query_one(ToolsPanel).show(build)

    def _refresh_panes(self, build: Build) -> None:
        main_pane = self.query_one("#main", PromptPane)
        child_pane = self.query_one("#child", PromptPane)
        main, child = build.report.requester, build.child
        stale = "⚠ stale" if self.build_error else ""
        thread = build.report.thread if self.rye_pane else None
        main_blocks, child_blocks = pane_blocks(
            build,
            PaneChoices(
                self.rye_pane, self.diff_mode, self.pinned, self.changed_sections, self.recorded
            ),
        )
        if thread is None:
            main_pane.header.show(
                main,
                stale=stale,
                alarm=unknown_mark(build, main.agent_id),
                summary=summary_line(main),
            )
        else:
            head = thread_header(thread)
            main_pane.header.show_lines(
                "RYE THREAD",
                head.directive,
                head.line,
                alarm=head.alarm,
                tokens=(head.used, main.context_window),
            )
        main_pane.view.set_blocks(main_blocks)
        child_pane.header.show(
            child,
            stale=stale,
            extra=child_extra(build),
            alarm=child_alarm(build),
            summary=summary_line(child, build.lost, main) if child is not None else "",
        )
        notice = child_notice(build, scripts_running=self.scripts_running)
        child_pane.view.set_blocks(child_blocks, notice=notice)

    def _refresh_bars(self) -> None:
        pinned = self.pinned.label if self.pinned is not None else None
        bar = self.query_one("#topbar", FitLine)
        top, line = self.ctl.bars(frozen=self.frozen, pinned=pinned, width=bar.content_size.width)
        bar.fit = lambda width: self.ctl.bars(frozen=self.frozen, pinned=pinned, width=width)[0]
        bar.update(top)
        status = self.query_one("#statusbar", OneLine)
        status.set_class(line.error, "-error")
        if self.build is not None and not line.error:
            status.set_class(line.warn, "-warn")
        status.update(line.text)

    def _restart(self, timer: Timer | None, wait: float, callback: Callable[[], None]) -> Timer:
        """`callback` in `wait` seconds, instead of when `timer` (stopped) would have run it."""
        if timer is not None:
            timer.stop()
        return self.set_timer(wait, callback, name=callback.__name__)
