"""The ctxscope app: two prompt panes (requester and subagent), panels, live rebuilds.

`make_app()` is the one factory shared by the command line and the tests. Builds run in a
thread worker (a newer change cancels an older build); context scripts run in a second
worker so the panes never wait for them. A build that fails (bad config, profile, missing
workspace) keeps the last good view and shows the error until the input is fixed.

This module is the Textual wiring: layout, bindings, timers, workers and handlers. What is
shown and what happens next are decided by `tui/controller.py` (`self.ctl`, no Textual);
the bars' texts come from `tui/status.py`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.widgets import ContentSwitcher

from ctxscope import tuning
from ctxscope.api import Inspector
from ctxscope.check import Finding
from ctxscope.model import Diagnostic
from ctxscope.openclaw.profiles import bundled_profiles
from ctxscope.openclaw.versions import AUTO
from ctxscope.tui import export as export_mod
from ctxscope.tui.background import Latest, in_background
from ctxscope.tui.build import Build, Builder
from ctxscope.tui.commands import PANELS, CtxscopeCommands, panel_key
from ctxscope.tui.controller import (
    CHECK_AFTER_S,
    PREFILL_AFTER_S,
    Controller,
)
from ctxscope.tui.exact_actions import ExactActions
from ctxscope.tui.pane_actions import item_for_key
from ctxscope.tui.panel_actions import PanelActions
from ctxscope.tui.pin_actions import PinActions
from ctxscope.tui.pinned import against_pinned, pinned_delta
from ctxscope.tui.recorded import with_recorded
from ctxscope.tui.render import mark_changed, session_blocks, thread_blocks, with_diff
from ctxscope.tui.runs_actions import RunsActions
from ctxscope.tui.safe import TERMINAL_SAFE, safe
from ctxscope.tui.screens.help import HelpScreen
from ctxscope.tui.screens.main import MainScreen
from ctxscope.tui.screens.scenario import FIELDS, ScenarioScreen
from ctxscope.tui.screens.trust import TrustScreen
from ctxscope.tui.screens.why import WhyScreen
from ctxscope.tui.status import (
    child_alarm,
    child_extra,
    child_notice,
    delta_text,
    lost_text,
    thread_header,
    unknown_mark,
)
from ctxscope.tui.summary import summary_line
from ctxscope.tui.themes import DEFAULT_THEME, load_themes
from ctxscope.tui.watch import (
    FilesChanged,
    WatchBounded,
    WatchReady,
    WatchTrouble,
    run_watcher,
)
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.common import DEFAULTS
from ctxscope.tui.widgets.files_panel import FilesPanel
from ctxscope.tui.widgets.info_panels import BudgetsPanel, PolicyPanel
from ctxscope.tui.widgets.keybar import KeyBar
from ctxscope.tui.widgets.lost_line import LOST, LostLine
from ctxscope.tui.widgets.map_panel import MapColumn, MapPanel
from ctxscope.tui.widgets.one_line import FitLine, OneLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.panel_tabs import PanelTabs
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.runs_panel import RunsPanel
from ctxscope.tui.widgets.scripts_panel import OverridesPanel, ScriptsPanel
from ctxscope.tui.widgets.tables import KeyedTable
from ctxscope.tui.widgets.tools_panel import ToolsPanel

T = TypeVar("T")

FROZEN_TIME = dt.datetime(2026, 1, 1, 12, 0, 0)
FIRST_PANEL = "map"
"""The panel on show at start: where each session's tokens go and what the subagent lacks."""


class _state(Generic[T]):
    """An attribute of the app that is the controller's (`app.ctl`) of `name`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, app: CtxscopeApp, owner: object = None) -> T:
        value: T = getattr(app.ctl, self.name)
        return value

    def __set__(self, app: CtxscopeApp, value: T) -> None:
        setattr(app.ctl, self.name, value)


class CtxscopeApp(RunsActions, PinActions, PanelActions, ExactActions):
    """The live inspector for one workspace."""

    CSS_PATH = "app.tcss"
    TITLE = "ctxscope"
    COMMANDS = App.COMMANDS | {CtxscopeCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("e", "edit_scenario", "Scenario"),
        Binding("d", "toggle_diff", "Diff"),
        Binding("l", "toggle_link", "Link"),
        Binding("w", "why", "Why"),
        Binding("W", "why_lost", "Why lost", show=False),
        Binding("B", "pin_before", "Pin before", show=False),
        Binding("p", "next_panel", "Panel"),
        Binding("t", "next_theme", "Theme"),
        Binding("ctrl+t", "trust", "Trust"),
        Binding("r", "rerun_scripts", "Re-run"),
        Binding("x", "export_all", "Export"),
        Binding("z", "zoom", "Zoom"),
        Binding("m", "maximise_panel", "Max"),
        Binding("ctrl+e", "toggle_exact", "Exact"),
        Binding("y", "toggle_rye", "Rye"),
        Binding("slash", "search", "Find", key_display="/"),
        Binding("c", "copy_section", "Copy", show=False),
        Binding("C", "copy_prompt", "Copy prompt", show=False),
        Binding("o", "open_editor", "Edit", show=False),
        Binding("v", "view_cut", "View cut text", show=False),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        *[
            Binding(panel_key(i), f"panel('{name}')", name.title(), show=False)
            for i, name in enumerate(PANELS)
        ],
    ]

    def __init__(
        self,
        builder: Builder,
        *,
        watch: bool = True,
        theme: str | None = None,
        frozen: bool = False,
        export_dir: Path | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        state: str | None = None,
        exact: str = "off",
    ) -> None:
        super().__init__()
        self.builder = builder
        self.ctl = Controller(builder, panels=PANELS, watch=watch, exact=exact)
        """The app's state and scheduling (Textual-free); the app draws from it."""
        self.setup_runs(state)
        self.frozen = frozen
        self.export_dir = export_dir
        self.clock = clock or ((lambda: FROZEN_TIME) if frozen else dt.datetime.now)
        self.requested_theme = theme
        self._collect_timer: Timer | None = None
        self._check_timer: Timer | None = None
        self._prefill_timer: Timer | None = None
        self.greeting = ""
        """A notice shown once the screen is up (`ctxscope demo` names its folder)."""
        self.theme_errors: list[str] = []
        self.ctx_themes: list[str] = []
        self.last_export: dict[str, Path] = {}
        self._builds: Latest[int] = Latest("build", self._run_build)
        self._checks: Latest[tuple[int, Build]] = Latest("check", self._run_check)
        self._script_runs: Latest[int] = Latest("scripts", self._run_scripts)
        self._load_themes()

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

    # -- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield FitLine(id="topbar", markup=False)
        yield OneLine(id="deltabar", markup=False)
        yield LostLine(id="lostbar", markup=False)
        with Horizontal(id="panes"):
            yield PromptPane("MAIN", id="main")
            yield PromptPane("SUBAGENT", id="child")
        yield OneLine(id="statusbar", markup=False)
        with Vertical(id="panels"):
            labels = [(name, f"{panel_key(i)} {name.title()}") for i, name in enumerate(PANELS)]
            yield PanelTabs(labels, active=FIRST_PANEL)
            with ContentSwitcher(id="panel-stack", initial=FIRST_PANEL):
                yield FilesPanel(id="files")
                yield ScriptsPanel(id="scripts")
                yield OverridesPanel(id="overrides")
                yield PolicyPanel(id="policy")
                yield BudgetsPanel(id="budgets")
                yield ChainTree(id="chain")
                yield ProblemsPanel(id="problems")
                yield MapPanel(id="map")
                yield RunsPanel(id="runs")
                yield ToolsPanel(id="tools")
        yield KeyBar()

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters, then `TERMINAL_SAFE`: no drawn line carries a control
        character to the terminal, whatever a widget was given."""
        return [*super().get_line_filters(), TERMINAL_SAFE]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A notification, its text made safe for the terminal (it often quotes a path or
        an error from the workspace)."""
        super().notify(
            safe(message), title=safe(title), severity=severity, timeout=timeout, markup=markup
        )

    def get_default_screen(self) -> MainScreen:
        return MainScreen(id="_default")

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DEFAULTS)

    def _load_themes(self) -> None:
        """Register the theme files' themes and start in the wanted one. Set before the first
        stylesheet is made, a theme as dark as Textual's default costs nothing; setting it
        once the app runs would make and apply the whole stylesheet again."""
        loaded = load_themes()
        for theme in loaded.themes:
            self.register_theme(theme)
            if theme.name not in self.ctx_themes:
                self.ctx_themes.append(theme.name)
        self.theme_errors = loaded.errors
        wanted = self.get_theme(self.requested_theme or DEFAULT_THEME)
        if wanted is not None and wanted.dark == self.current_theme.dark:
            self.set_reactive(App.theme, wanted.name)
            self.set_class(True, f"-theme-{wanted.name}", update=False)
            self.stylesheet.set_variables(self.get_css_variables())

    def on_mount(self) -> None:
        if self.theme_errors:
            self.notify(
                markup=False,
                message="Skipped broken theme file(s):\n" + "\n".join(self.theme_errors),
                title="Themes",
                severity="warning",
                timeout=8,
            )
        wanted = self.requested_theme or DEFAULT_THEME
        if wanted in self.available_themes:
            self.theme = wanted  # nothing to do when `_load_themes` could set it already
        elif self.requested_theme:
            self.notify(
                markup=False, message=f"unknown theme {self.requested_theme!r}", severity="warning"
            )
        self.theme_changed_signal.subscribe(self, lambda _theme: self.refresh_view())
        if self.greeting:
            self.notify(markup=False, message=self.greeting, timeout=15)
        self.query_one("#main-view", PromptView).focus()
        self.start_runs()
        started = self.builder.started_build()
        if started is None:
            self.rebuild()
        else:  # built while the interface loaded: the first frame shows it
            self._apply_build(self.ctl.next_build(), started)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self.ctl.note_input(time.monotonic())
        await super().on_event(event)

    # -- builds --------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Start a rebuild; a newer call cancels an older one still running."""
        self._builds.submit(self.ctl.next_build())

    def _run_build(self, generation: int) -> None:
        """On the build thread: a rebuild with cached script results; a newer rebuild
        cancels it."""
        self._background(
            generation,
            "building",
            self.builder.build,
            lambda: self.ctl.build_cancelled(generation),
        )

    def _run_scripts(self, generation: int) -> None:
        """On the scripts thread: run the context scripts, then rebuild with their results;
        only a newer scripts run cancels it."""
        self._background(
            generation,
            "running context scripts",
            self.builder.run_scripts,
            lambda: self.ctl.scripts_cancelled(generation),
        )

    def _background(
        self,
        generation: int,
        doing: str,
        job: Callable[..., Build | None],
        cancelled: Callable[[], bool],
    ) -> None:
        outcome = self.ctl.outcome(job, doing, cancelled)
        if outcome is None:
            return
        apply = self._apply_build if outcome[0] == "build" else self._apply_error
        with contextlib.suppress(RuntimeError):  # the app has gone
            self.call_from_thread(apply, generation, outcome[1])

    def _apply_build(self, generation: int, build: Build) -> None:
        after = self.ctl.apply_build(generation, build)
        if after is None:
            return
        self._show_delta(after.before, build)
        self._show_lost(build)
        if after.unmark_after is not None:
            self.set_timer(after.unmark_after, self._forget_changes)
        if after.run_scripts:
            self._script_runs.submit(generation)
        self._schedule_check(generation, build, after.check)
        self.refresh_view()
        if after.say_exact:
            self._say_exact()
        if after.load_exact:
            self._load_exact()
        if after.calm_collector:
            tuning.calm_app()
        if after.collect_after is not None:
            self._collect_timer = self._restart(
                self._collect_timer, after.collect_after, self._collect
            )
        if after.watch is not None:
            self.start_watching(*after.watch)

    def _schedule_check(self, generation: int, build: Build, wanted: bool) -> None:
        """The check of every project Rye item for `build`, `CHECK_AFTER_S` from now, when
        `wanted`; a check scheduled before is dropped."""
        if self._check_timer is not None:
            self._check_timer.stop()
            self._check_timer = None
        if wanted:
            job = (generation, build)
            self._check_timer = self.set_timer(
                CHECK_AFTER_S, lambda: self._checks.submit(job), name="check"
            )

    def _run_check(self, job: tuple[int, Build]) -> None:
        """On the check thread, `CHECK_AFTER_S` after a build is shown: its findings with the
        whole Rye space checked."""
        generation, build = job
        findings = self.ctl.check(generation, build, running=lambda: self.is_running)
        if findings is not None:
            with contextlib.suppress(RuntimeError):  # the app has gone
                self.call_from_thread(self._apply_check, build, findings)

    def _apply_check(self, build: Build, findings: list[Finding]) -> None:
        if not self._view_mounted or not self.ctl.apply_check(build, findings):
            return
        self._refresh_bars()
        self._refresh_active_panel()
        # Problems, when hidden, is out of date again: fill it once keys pause.
        self._prefill_timer = self._restart(self._prefill_timer, PREFILL_AFTER_S, self._prefill)

    def _restart(self, timer: Timer | None, wait: float, callback: Callable[[], None]) -> Timer:
        """`callback` in `wait` seconds, instead of when `timer` (stopped) would have run it."""
        if timer is not None:
            timer.stop()
        return self.set_timer(wait, callback, name=callback.__name__)

    def _collect(self) -> None:
        """A full garbage collection once rebuilds have paused: a rebuild leaves some cyclic
        garbage, which the calmed collector would let pile up (≈15 MB over 100 edits of the
        sample). Only what is not frozen is scanned (≈20 ms), after the frame is drawn."""
        self.ctl.collected()
        tuning.collect()

    def _show_lost(self, build: Build) -> None:
        """The line above the panes: what the subagent does not get (w or a click: why)."""
        line = self.query_one("#lostbar", LostLine)
        line.display = build.child is not None
        line.fit = lambda width: lost_text(build, width)
        line.update(lost_text(build, line.content_size.width))

    def _forget_changes(self) -> None:
        self.ctl.forget_changes()
        if self.build is not None and self._view_mounted:
            self._refresh_panes(self.build)

    def _show_delta(self, before: Build | None, after: Build) -> None:
        """The strip above the panes: what the last rebuild changed, main then child (hidden
        until there is a rebuild to compare)."""
        bar = self.query_one("#deltabar", OneLine)
        bar.display = before is not None or self.pinned is not None
        if self.pinned is not None:
            bar.update(pinned_delta(self.pinned, after.report.requester, after.child))
            return
        bar.update("" if before is None else delta_text(before, after))

    def _apply_error(self, generation: int, diagnostic: Diagnostic) -> None:
        after = self.ctl.apply_error(generation, diagnostic)
        if after is None:
            return
        if self.build is not None:  # the failed rebuild gave up the kept build's check
            self._schedule_check(generation, self.build, after.check)
        self.refresh_view()
        if after.watch is not None:
            self.start_watching(after.watch)

    # -- watching ------------------------------------------------------------------------
    def start_watching(self, folders: list[Path], tops: list[Path] | None = None) -> None:
        """(Re)start the watcher on `folders` (with their subfolders) and `tops` (without),
        on threads that never hold up the screen or `q`."""
        tops = list(tops or [])
        stop = self.ctl.start_watch(folders, tops)
        in_background("watch", lambda: run_watcher(self, list(folders), tops=tops, stop=stop))

    def on_files_changed(self, message: FilesChanged) -> None:
        self.ctl.files_changed(message.paths)
        self.rebuild()

    def on_watch_ready(self, message: WatchReady) -> None:
        self.ctl.watch_ready(message.folders)

    def on_watch_bounded(self, message: WatchBounded) -> None:
        """What the watcher's bounds left out, in Problems and the status line."""
        self.ctl.watch_bounded(message.notes)
        self._refresh_bars()
        self._refresh_panel(self.active_panel)

    def on_watch_trouble(self, message: WatchTrouble) -> None:
        self.ctl.watch_trouble(message.reason, polling=message.polling)
        severity: SeverityLevel = "warning" if message.polling else "error"
        self.notify(message.reason, severity=severity, markup=False, timeout=6)
        self._refresh_bars()
        self._refresh_panel(self.active_panel)

    def on_unmount(self) -> None:
        self.ctl.stop_watch()
        self.stop_runs()
        for jobs in (self._builds, self._checks, self._script_runs):
            jobs.close()

    # -- view ----------------------------------------------------------------------------
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
        build = self.ctl.take(name)
        if build is None:
            return
        running = self.scripts_running
        if name == "files":
            self.query_one(FilesPanel).show(build, self.file_history)
        elif name == "scripts":
            self.query_one(ScriptsPanel).show(build, running=running)
        elif name == "overrides":
            self.query_one(OverridesPanel).show(build, running=running)
        elif name == "policy":
            self.query_one(PolicyPanel).show(build, running=running)
        elif name == "budgets":
            self.query_one(BudgetsPanel).show(build)
        elif name == "chain":
            self.query_one(ChainTree).show(build.report.thread, build.report.scenario.directive)
        elif name == "problems":
            watch = [self.watch_problem] if self.watch_problem else []
            watch += self.watch_bounds
            self.query_one(ProblemsPanel).show(build, self.build_error, watch)
        elif name == "map":
            pinned = self.pinned
            then = pinned.before(pinned.pane) if pinned is not None else None
            if pinned is not None and then is not None:
                now = build.report.requester if pinned.pane == "main" else build.child
                recorded = pinned.run is not None
                before = f"BEFORE ({'recorded ' if recorded else ''}{pinned.label})"
                self.query_one(MapPanel).show(then, now, (before, "NOW"), before_recorded=recorded)
            else:
                self.query_one(MapPanel).show(
                    build.report.requester, build.child, recorded=self.recorded
                )
        elif name == "runs":
            self.show_runs(hidden_too=True)
        elif name == "tools":
            self.query_one(ToolsPanel).show(build)

    @on(MapColumn.Chosen)
    def _map_chosen(self, event: MapColumn.Chosen) -> None:
        """Enter on a map legend row: show that category's section in its pane (pinned: both
        columns are the pinned pane's session, before and now)."""
        side = self.pinned.pane if self.pinned is not None else event.side
        view = self.query_one(f"#{side}", PromptPane).view
        if event.section in view.block_keys():
            view.select(event.section, scroll=True)
            self.call_after_refresh(view.focus)

    @on(ProblemsPanel.Chosen)
    def _problem_chosen(self, event: ProblemsPanel.Chosen) -> None:
        """Enter on a problem: a session file's section in its pane, and why; else what it
        says, whole, and where `o` opens."""
        target = event.target
        if target.side is not None and target.item is not None:
            view = self.query_one(f"#{target.side}", PromptPane).view
            key = f"file:{target.item}"
            if key in view.block_keys():
                view.select(key, scroll=True)
            self.explain_item(target.item)
            return
        where = f" — o opens {target.path}" + (f":{target.line}" if target.line else "")
        self.notify(markup=False, message=event.text + (where if target.path else ""), timeout=8)

    @on(PanelTabs.Chosen)
    def _panel_chosen(self, event: PanelTabs.Chosen) -> None:
        self.action_panel(event.name, focus=not event.stepped)

    def _refresh_panes(self, build: Build) -> None:
        main_pane = self.query_one("#main", PromptPane)
        child_pane = self.query_one("#child", PromptPane)
        main, child = build.report.requester, build.child
        stale = "⚠ stale" if self.build_error else ""
        thread = build.report.thread if self.rye_pane else None
        main_blocks = session_blocks(main) if thread is None else thread_blocks(thread)
        child_blocks = session_blocks(child) if child is not None else []
        pinned = self.pinned
        if self.diff_mode and pinned is not None and thread is None:
            main_blocks = against_pinned(pinned, "main", main, main_blocks)
            if child is not None:
                child_blocks = against_pinned(pinned, "child", child, child_blocks)
        elif self.diff_mode and child is not None and thread is None:
            main_blocks = with_diff(main, child, main_blocks, main_side=True)
            child_blocks = with_diff(main, child, child_blocks, main_side=False)
        else:
            main_blocks = mark_changed(main_blocks, self.changed_sections.get("main", set()))
            child_blocks = mark_changed(child_blocks, self.changed_sections.get("child", set()))
        if self.recorded is not None and thread is None:  # a recorded run beside its side
            if self.recorded.side == "main":
                main_blocks = with_recorded(main_blocks, self.recorded)
            else:
                child_blocks = with_recorded(child_blocks, self.recorded)
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

    # -- pane events ---------------------------------------------------------------------
    @on(PromptView.Scrolled)
    def _linked_scroll(self, message: PromptView.Scrolled) -> None:
        if not self.linked:
            return
        for view in self.query(PromptView):
            if view is not message.view:
                view.follow(message.view, message.key, message.offset)

    @on(PromptView.WhyRequested)
    def _why_from_view(self, message: PromptView.WhyRequested) -> None:
        self.explain_item(item_for_key(message.key))

    @on(KeyedTable.Selected)
    def _why_from_table(self, event: KeyedTable.Selected) -> None:
        self.explain_item(item_for_key(event.key))

    # -- actions -------------------------------------------------------------------------
    def action_toggle_diff(self) -> None:
        self.diff_mode = not self.diff_mode
        self.refresh_view(panes_only=True)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_toggle_rye(self) -> None:
        """The main pane shows the scenario's Rye thread (system message and first message
        part by part) instead of the main session, and back."""
        if not self.ctl.toggle_rye():
            self.notify(
                markup=False,
                message="No directive in the scenario: set one with e (edit scenario).",
                severity="warning",
                timeout=3,
            )
            return
        # The thread is not the OpenClaw spawn: the subagent pane, its lost line and the
        # panes' diff and link go while it shows, and it opens at its start.
        self.query_one("#child", PromptPane).display = not self.rye_pane
        self.query_one("#lostbar", LostLine).display = not self.rye_pane and bool(
            self.build and self.build.child
        )
        if self.build is not None:
            self._refresh_panes(self.build)
            self._refresh_bars()
        view = self.query_one("#main", PromptPane).view
        view.select(None)
        view.scroll_home(animate=False, immediate=True)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Diff and link compare the two OpenClaw panes: off (shown dim) in the Rye view."""
        if action in ("toggle_diff", "toggle_link") and self.rye_pane:
            return None
        return True

    def action_toggle_link(self) -> None:
        self.linked = not self.linked
        self._refresh_bars()

    def action_next_theme(self) -> None:
        names = self.ctx_themes or list(self.available_themes)
        index = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(index + 1) % len(names)]
        self.notify(markup=False, message=f"theme: {self.theme}", timeout=2)

    def action_set_theme(self, name: str) -> None:
        self.theme = name

    def action_edit_scenario(self) -> None:
        sc = self.build.report.scenario if self.build else self.builder.inspector.scenario
        values = {name: getattr(sc, name) for name in FIELDS}
        values["target"] = sc.target_agent
        build = self.build
        screen = ScenarioScreen(
            values,
            agents=build.agent_ids if build else [],
            directives=build.directives if build else [],
            profiles=[AUTO, *bundled_profiles()],
        )
        self.push_screen(screen, self.apply_scenario)

    def apply_scenario(self, values: dict[str, Any] | None) -> None:
        """Apply scenario edits (from the editor or the palette) and rebuild."""
        if values is None:
            return
        self.ctl.edit_scenario(values)
        self.rebuild()

    def action_why(self) -> None:
        item = self.current_item()
        if item is None:
            self.notify(
                markup=False,
                message="Select a section, file, script, knowledge item or tool first.",
                severity="warning",
                timeout=3,
            )
            return
        self.explain_item(item)

    def explain_item(self, item: str) -> None:
        if self.build is not None and item == LOST:
            self.push_screen(WhyScreen("lost in the subagent", self.build.lost))
        elif self.build is not None:
            self._why_worker(item, self.build)

    def action_why_lost(self) -> None:
        """`W`: what the subagent lacks, each with why and the remedies (the lost line's)."""
        if self.build is not None and self.build.child is not None:
            self.explain_item(LOST)

    @on(LostLine.Chosen)
    def _lost_chosen(self) -> None:
        self.explain_item(LOST)

    def _why_worker(self, item: str, build: Build) -> None:
        in_background("why", lambda: self._explain(item, build))

    def _explain(self, item: str, build: Build) -> None:
        answers = self.ctl.explain(item, build)
        with contextlib.suppress(RuntimeError):  # the app has gone
            self.call_from_thread(self.push_screen, WhyScreen(item, answers))

    def action_trust(self) -> None:
        asked = self.ctl.trust_question()
        if asked.revoke:
            screen = TrustScreen(asked.folder, asked.listing, revoke=True)
            self.push_screen(screen, self._revoke_answer)
            return
        self.push_screen(
            TrustScreen(asked.folder, asked.listing),
            lambda yes: self._trust_answer(yes, asked.key),
        )

    def _revoke_answer(self, yes: bool | None) -> None:
        if not yes:
            return
        self.ctl.revoke()
        self.notify(
            markup=False, message="Trust revoked: context scripts no longer run.", timeout=3
        )
        self.rebuild()

    def _trust_answer(self, yes: bool | None, key: str) -> None:
        if not yes:
            return
        self.ctl.trust(key)
        self.notify(
            markup=False, message="Workspace trusted: running its context scripts.", timeout=3
        )
        self.rebuild()

    def action_rerun_scripts(self) -> None:
        if not self.ctl.rerun_scripts():
            self.notify(
                markup=False,
                message="Scripts do not run until the workspace is trusted (ctrl+t).",
                severity="warning",
                timeout=4,
            )
        self.rebuild()

    def action_export(self, kind: str) -> None:
        """Export the current build as `json`, `md`, `html` or `svg`."""
        self._export((kind,))

    def action_export_all(self) -> None:
        """`x`: the screen as SVG, and the build as JSON, markdown and an HTML page with the
        context maps, side by side."""
        self._export(("svg", "json", "md", "html"))

    def _export(self, kinds: tuple[str, ...], waited: int = 0) -> None:
        if self.build is None:
            return
        settled = len(self.screen_stack) == 1 and bool(self.query_one(KeyBar).keys)
        if "svg" in kinds and not settled and waited < 50:
            # Asked from the command palette or a dialog: take the picture once it has
            # closed and the key bar has its keys.
            self.set_timer(0.02, lambda: self._export(kinds, waited + 1))
            return
        folder = export_mod.export_folder(self.ctl.workspace, self.export_dir)
        stem = "ctxscope-" + self.clock().strftime("%Y%m%d-%H%M%S")
        written = []
        try:
            for kind in kinds:  # the SVG first: before any notice covers the screen
                if kind == "svg":
                    text = self.export_screenshot(title="ctxscope")
                else:
                    text = export_mod.export_text(self.build.report, kind)
                self.last_export[kind] = export_mod.write_export(folder, stem, kind, text)
                written.append(self.last_export[kind])
        except OSError as exc:
            self.notify(markup=False, message=f"export failed: {exc}", severity="error")
            return
        names = ", ".join(p.name for p in written)
        self.notify(
            markup=False, message=f"exported {names} to {folder}", title="Export", timeout=5
        )

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """Textual's own screenshot command (the palette's "Save screenshot"): into the
        export folder (`--export-dir`), like `x`, not the Downloads folder, which may not
        exist."""
        if path is not None:
            return super().deliver_screenshot(filename, path, time_format)
        self._export(("svg",))
        return None

    # -- scenario helpers for the palette --------------------------------------------------
    def set_scenario_field(self, name: str, value: Any) -> None:
        self.apply_scenario({name: value})

    def reset_edits(self) -> None:
        self.ctl.reset_edits()
        self.rebuild()


def make_app(
    workspace: str | Path = ".",
    *,
    overrides: dict[str, Any] | None = None,
    config: str | None = None,
    tokenizer: str | None = None,
    user_space: str | None = None,
    trusted: bool = False,
    watch: bool = True,
    theme: str | None = None,
    frozen: bool = False,
    export_dir: Path | None = None,
    clock: Callable[[], dt.datetime] | None = None,
    inspector: Inspector | None = None,
    builder: Builder | None = None,
    state: str | None = None,
    exact: str = "off",
) -> CtxscopeApp:
    """The app for `workspace` (or for `inspector`'s, or the one `builder` builds). Raises
    the engine's errors (WorkspaceError, ConfigError, ProfileError, TokenizerError) for
    unusable input, before any screen is drawn.

    `frozen` fixes the child session id and the clock and hides timings (snapshots)."""
    if builder is None:
        ins = inspector or Inspector(
            workspace,
            config=config,
            scenario=overrides,
            tokenizer=tokenizer,
            user_space=user_space,
            trusted=trusted,
        )
        builder = Builder(ins, frozen=frozen)
    return CtxscopeApp(
        builder,
        watch=watch,
        theme=theme,
        frozen=frozen,
        export_dir=export_dir,
        clock=clock,
        state=state,
        exact=exact,
    )
