"""The ctxscope app: two prompt panes (requester and subagent), panels, live rebuilds.

`make_app()` is the one factory shared by the command line and the tests. Builds run in a
thread worker (a newer change cancels an older build); context scripts run in a second
worker so the panes never wait for them. A build that fails (bad config, profile, missing
workspace) keeps the last good view and shows the error until the input is fixed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.widgets import ContentSwitcher

from ctxscope.api import Inspector
from ctxscope.check import Finding
from ctxscope.ids import normalize_agent_id
from ctxscope.model import Diagnostic, Explanation
from ctxscope.openclaw.profiles import bundled_profiles
from ctxscope.openclaw.versions import AUTO
from ctxscope.remedies import lost_line, lost_tokens
from ctxscope.spawn import unknown_agent
from ctxscope.tui import export as export_mod
from ctxscope.tui.background import Latest, in_background
from ctxscope.tui.build import Build, Builder, BuildError
from ctxscope.tui.commands import PANELS, CtxscopeCommands
from ctxscope.tui.pane_actions import PaneActions, item_for_key
from ctxscope.tui.render import delta_line, mark_changed, session_blocks, thread_blocks, with_diff
from ctxscope.tui.safe import TERMINAL_SAFE, safe
from ctxscope.tui.screens.help import HelpScreen
from ctxscope.tui.screens.main import MainScreen
from ctxscope.tui.screens.scenario import FIELDS, ScenarioScreen
from ctxscope.tui.screens.trust import TrustScreen
from ctxscope.tui.screens.why import WhyScreen
from ctxscope.tui.summary import summary_line
from ctxscope.tui.themes import DEFAULT_THEME, load_themes
from ctxscope.tui.watch import (
    FilesChanged,
    WatchBounded,
    WatchReady,
    WatchTrouble,
    watch_folders,
)
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.common import DEFAULTS
from ctxscope.tui.widgets.files_panel import FilesPanel
from ctxscope.tui.widgets.info_panels import BudgetsPanel, PolicyPanel
from ctxscope.tui.widgets.keybar import KeyBar
from ctxscope.tui.widgets.lost_line import LOST, LostLine
from ctxscope.tui.widgets.map_panel import MapColumn, MapPanel
from ctxscope.tui.widgets.one_line import OneLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.panel_tabs import PanelTabs
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.scripts_panel import OverridesPanel, ScriptsPanel
from ctxscope.tui.widgets.tables import KeyedTable
from ctxscope.tui.widgets.tools_panel import ToolsPanel

FROZEN_TIME = dt.datetime(2026, 1, 1, 12, 0, 0)
FIRST_PANEL = "map"
"""The panel on show at start: where each session's tokens go and what the subagent lacks."""
HISTORY = 24
"""Builds a file's size history keeps."""
CHANGE_MARK_S = 4.0
"""How long the panes mark the sections a rebuild changed."""


class CtxscopeApp(PaneActions):
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
            Binding(str(i + 1), f"panel('{name}')", name.title(), show=False)
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
    ) -> None:
        super().__init__()
        self.builder = builder
        self.watch_enabled = watch
        self.frozen = frozen
        self.export_dir = export_dir
        self.clock = clock or ((lambda: FROZEN_TIME) if frozen else dt.datetime.now)
        self.requested_theme = theme
        self.build: Build | None = None
        """The last good build (kept when a rebuild fails)."""
        self.build_error: Diagnostic | None = None
        """Why the latest rebuild failed (None once it succeeds again)."""
        self.scripts_running = False
        self.diff_mode = False
        self.linked = True
        self.rye_pane = False
        self.file_history: dict[str, list[int]] = {}
        """`main:NAME` / `child:NAME` -> injected chars over this session's builds."""
        self.changed_sections: dict[str, set[str]] = {}
        """Per pane, the sections the last rebuild changed (marked for a few seconds)."""
        """The main pane shows the Rye thread (y) instead of the main session."""
        self.generation = 0
        self.applied = 0
        self.builds_applied = 0
        self.exact_notice = False
        """A toggle of exact mode waits for its build to say how it went."""
        self.calm_gc = False
        """Set by the command that runs the app for a user: after the first build, calm the
        garbage collector (`calm_garbage_collector`). Off for tests sharing one process."""
        self._collect_timer: Timer | None = None
        self._check_timer: Timer | None = None
        self._prefill_timer: Timer | None = None
        self._last_input = 0.0
        """When the last key or click came (`time.monotonic()`)."""
        self._uncollected = 0
        """Rebuilds since the last collection of the garbage they left."""
        self.greeting = ""
        """A notice shown once the screen is up (`ctxscope demo` names its folder)."""
        self.theme_errors: list[str] = []
        self.ctx_themes: list[str] = []
        self.watched: tuple[Path, ...] = ()
        self.last_export: dict[str, Path] = {}
        self._stop_watch: threading.Event | None = None
        self.watch_bounds: list[Diagnostic] = []
        """What the file watcher's bounds left unwatched (folders too broad or too big)."""
        self._scripts_wanted = 0
        self.watch_problem: Diagnostic | None = None
        """Set when the file watcher failed (then it polls, or has stopped)."""
        self._builds: Latest[int] = Latest("build", self._run_build)
        self._checks: Latest[tuple[int, Build]] = Latest("check", self._run_check)
        self._script_runs: Latest[int] = Latest("scripts", self._run_scripts)
        self._stale_panels: set[str] = set()
        self._load_themes()

    # -- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield OneLine(id="topbar", markup=False)
        yield OneLine(id="deltabar", markup=False)
        yield LostLine(id="lostbar", markup=False)
        with Horizontal(id="panes"):
            yield PromptPane("MAIN", id="main")
            yield PromptPane("SUBAGENT", id="child")
        yield OneLine(id="statusbar", markup=False)
        with Vertical(id="panels"):
            labels = [(name, f"{i} {name.title()}") for i, name in enumerate(PANELS, 1)]
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
        started = self.builder.started_build()
        if started is None:
            self.rebuild()
        else:  # built while the interface loaded: the first frame shows it
            self.generation += 1
            self._apply_build(self.generation, started)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self._last_input = time.monotonic()
        await super().on_event(event)

    # -- builds --------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Start a rebuild; a newer call cancels an older one still running."""
        self.generation += 1
        self._build_worker(self.generation)

    def _build_worker(self, generation: int) -> None:
        self._builds.submit(generation)

    def _scripts_worker(self, generation: int) -> None:
        self._scripts_wanted = generation
        self._script_runs.submit(generation)

    def _run_build(self, generation: int) -> None:
        """On the build thread: a rebuild with cached script results; a newer rebuild
        cancels it."""
        self._background(
            generation, "building", self.builder.build, lambda: self.generation != generation
        )

    def _run_scripts(self, generation: int) -> None:
        """On the scripts thread: run the context scripts, then rebuild with their results;
        only a newer scripts run cancels it."""
        self._background(
            generation,
            "running context scripts",
            self.builder.run_scripts,
            lambda: self._scripts_wanted != generation,
        )

    def _background(
        self,
        generation: int,
        doing: str,
        job: Callable[..., Build | None],
        cancelled: Callable[[], bool],
    ) -> None:
        try:
            build = job(cancelled=cancelled)
        except BuildError as exc:
            result: tuple[Callable[..., None], object] = (self._apply_error, exc.diagnostic)
        except Exception as exc:  # never crash on user content
            diag = Diagnostic("error", f"internal error while {doing}: {exc!r}")
            result = (self._apply_error, diag)
        else:
            if build is None:
                return
            result = (self._apply_build, build)
        if cancelled():
            return
        with contextlib.suppress(RuntimeError):  # the app has gone
            self.call_from_thread(result[0], generation, result[1])

    def _apply_build(self, generation: int, build: Build) -> None:
        if generation < self.applied:
            return
        self.applied = generation
        self._show_delta(self.build, build)
        self._show_lost(build)
        self._remember_changes(self.build, build)
        self.build = build
        self.build_error = None
        self.scripts_running = build.scripts_pending
        self.builds_applied += 1
        if build.scripts_pending:
            self._scripts_worker(generation)
        self._schedule_check(generation, build)
        self.refresh_view()
        if self.exact_notice:
            self._say_exact()
        if self.calm_gc:
            if self.builds_applied == 1:
                calm_garbage_collector()
            self._schedule_collection()
        if self.watch_enabled and (*build.watch_paths, *build.watch_tops) != self.watched:
            self.start_watching(build.watch_paths, build.watch_tops)

    def _schedule_check(self, generation: int, build: Build) -> None:
        """The check of every project Rye item for `build`, `CHECK_AFTER_S` from now, when
        it is still to be made; a check scheduled before is dropped."""
        if self._check_timer is not None:
            self._check_timer.stop()
            self._check_timer = None
        if build.check_pending:
            job = (generation, build)
            self._check_timer = self.set_timer(
                CHECK_AFTER_S, lambda: self._checks.submit(job), name="check"
            )

    def _run_check(self, job: tuple[int, Build]) -> None:
        """On the check thread, `CHECK_AFTER_S` after a build is shown: its findings with the
        whole Rye space checked; given up for a newer rebuild (which checks again when it
        needs to)."""
        generation, build = job

        def cancelled() -> bool:
            return self.generation != generation or not self.is_running

        try:
            findings = self.builder.check(build, cancelled=cancelled)
        except Exception:  # the findings shown stand; never crash on user content
            return
        if findings is not None and not cancelled():
            with contextlib.suppress(RuntimeError):  # the app has gone
                self.call_from_thread(self._apply_check, build, findings)

    def _apply_check(self, build: Build, findings: list[Finding]) -> None:
        if build is not self.build or not self._view_mounted:
            return
        build.findings, build.check_pending = findings, False
        self._refresh_bars()
        self._stale_panels.add("problems")
        self._refresh_active_panel()

    def _schedule_collection(self) -> None:
        """A full garbage collection once rebuilds have paused for `COLLECT_AFTER_S`: a
        rebuild leaves some cyclic garbage, which the calmed collector would let pile up
        (≈15 MB over 100 edits of the sample). Only what is not frozen is scanned (≈20 ms),
        after the frame is drawn; edits that never pause get one every `COLLECT_EVERY`
        rebuilds."""
        self._uncollected += 1
        wait = 0.1 if self._uncollected >= COLLECT_EVERY else COLLECT_AFTER_S
        self._collect_timer = self._restart(self._collect_timer, wait, self._collect)

    def _restart(self, timer: Timer | None, wait: float, callback: Callable[[], None]) -> Timer:
        """`callback` in `wait` seconds, instead of when `timer` (stopped) would have run it."""
        if timer is not None:
            timer.stop()
        return self.set_timer(wait, callback, name=callback.__name__)

    def _collect(self) -> None:
        self._uncollected = 0
        gc.collect()

    def _say_exact(self) -> None:
        """After a toggle: whether exact mode runs, and why not."""
        self.exact_notice = False
        ins = self.builder.inspector
        failure = ins.exact_unavailable()
        if failure:
            message = f"exact unavailable: {failure}"
            self.notify(markup=False, message=message, severity="warning", timeout=8)
        elif ins.exact is not None:
            self.notify(markup=False, message=f"exact mode on: {ins.exact.label}", timeout=4)

    def _show_lost(self, build: Build) -> None:
        """The line above the panes: what the subagent does not get (w or a click: why)."""
        line = self.query_one("#lostbar", LostLine)
        line.display = build.child is not None
        if build.child is None:
            line.update("")
            return
        main = build.report.requester
        line.update(lost_line(build.lost, " (W: why, and remedies)", lost_tokens(main, build.lost)))

    def _remember_changes(self, before: Build | None, after: Build) -> None:
        """Each file's size for the Files panel's history, and which sections this rebuild
        changed (marked in the panes for `CHANGE_MARK_S` seconds)."""
        sessions = [("main", after.report.requester), ("child", after.child)]
        for side, session in sessions:
            for f in session.files if session is not None else []:
                sizes = self.file_history.setdefault(f"{side}:{f.path}", [])
                sizes.append(f.injected_chars)
                del sizes[:-HISTORY]
        if before is None:
            return
        olds = {"main": before.report.requester, "child": before.child}
        for side, session in sessions:
            old = olds[side]
            if session is None or old is None or old.agent_id != session.agent_id:
                continue  # another agent's prompt (the target switched) is not an edit
            texts = {s.id: s.text for s in old.sections}
            changed = {s.id for s in session.sections if texts.get(s.id, s.text) != s.text}
            if old.task_message != session.task_message and session.task_message is not None:
                changed.add("task")
            self.changed_sections[side] = changed
        if any(self.changed_sections.values()):
            self.set_timer(CHANGE_MARK_S, self._forget_changes)

    def _forget_changes(self) -> None:
        self.changed_sections = {}
        if self.build is not None and self._view_mounted:
            self._refresh_panes(self.build)

    def _show_delta(self, before: Build | None, after: Build) -> None:
        """The strip above the panes: what the last rebuild changed, main then child (hidden
        until there is a rebuild to compare)."""
        bar = self.query_one("#deltabar", OneLine)
        bar.display = before is not None
        if before is None:
            bar.update("")
            return
        edited = after.edited_since(before)
        main = delta_line(before.report.requester, after.report.requester, "main", edited)
        child = delta_line(before.child, after.child, "child", edited)
        text = f"Δ build #{after.number}: {main}  │  {child}"
        if main == "main unchanged" and child in ("child unchanged", ""):
            text = f"Δ build #{after.number}: no change in either prompt"
        bar.update(text)

    def _apply_error(self, generation: int, diagnostic: Diagnostic) -> None:
        if generation < self.applied:
            return
        self.applied = generation
        self.build_error = diagnostic
        self.scripts_running = False
        if self.build is not None:  # the failed rebuild gave up the kept build's check
            self._schedule_check(generation, self.build)
        self.refresh_view()
        if self.watch_enabled and not self.watched:
            self.start_watching([self.builder.inspector.workspace])

    # -- watching ------------------------------------------------------------------------
    def start_watching(self, folders: list[Path], tops: list[Path] | None = None) -> None:
        """(Re)start the watcher on `folders` (with their subfolders) and `tops` (without),
        on threads that never hold up the screen or `q`."""
        self.builder.inspector.snapshot.changes.stopped()  # until the new one is ready
        if self._stop_watch is not None:
            self._stop_watch.set()
        tops = list(tops or [])
        self.watched = (*folders, *tops)
        stop = self._stop_watch = threading.Event()
        in_background("watch", lambda: watch_folders(self, list(folders), tops=tops, stop=stop))

    def on_files_changed(self, message: FilesChanged) -> None:
        paths = None if "*" in message.paths else message.paths
        self.builder.inspector.snapshot.changes.changed(paths)
        self.rebuild()

    def on_watch_ready(self, message: WatchReady) -> None:
        if set(message.folders) <= set(self.watched):  # not a watcher since replaced
            self.builder.inspector.snapshot.changes.watching(message.folders)

    def on_watch_bounded(self, message: WatchBounded) -> None:
        """What the watcher's bounds left out, in Problems and the status line."""
        self.watch_bounds = [
            Diagnostic("warning", why, str(folder), code="watch-bound")
            for folder, why in message.notes
        ]
        self._stale_panels.add("problems")
        self._refresh_bars()
        self._refresh_panel(self.active_panel)

    def on_watch_trouble(self, message: WatchTrouble) -> None:
        # Until the polling watcher reports it is running, nothing is trusted unchecked.
        self.builder.inspector.snapshot.changes.stopped()
        severity: Literal["warning", "error"] = "warning" if message.polling else "error"
        self.watch_problem = Diagnostic(severity, message.reason, code="watch")
        self.notify(message.reason, severity=severity, markup=False, timeout=6)
        self._stale_panels.add("problems")
        self._refresh_bars()
        self._refresh_panel(self.active_panel)

    def on_unmount(self) -> None:
        if self._stop_watch is not None:
            self._stop_watch.set()

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
        self._stale_panels = set(PANELS)
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
        busy = PREFILL_AFTER_S - (time.monotonic() - self._last_input)
        if busy > 0:  # keys are being pressed: a fill now could lengthen the next key's frame
            self._prefill_timer = self.set_timer(busy, self._prefill, name="prefill")
            return
        hidden = [p for p in PANELS if p in self._stale_panels and p != self.active_panel]
        if hidden:
            self._refresh_panel(hidden[0])
        if len(hidden) > 1:
            self._prefill_timer = self.set_timer(PREFILL_STEP_S, self._prefill, name="prefill")

    @property
    def _view_mounted(self) -> bool:
        """False while quitting: a timer or deferred callback may still fire then."""
        return bool(self.query("#main"))

    def _refresh_panel(self, name: str) -> None:
        build = self.build
        if build is None or name not in self._stale_panels:
            return
        self._stale_panels.discard(name)
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
            self.query_one(MapPanel).show(build.report.requester, build.child)
        elif name == "tools":
            self.query_one(ToolsPanel).show(build)

    @on(MapColumn.Chosen)
    def _map_chosen(self, event: MapColumn.Chosen) -> None:
        """Enter on a map legend row: show that category's section in its pane."""
        view = self.query_one(f"#{event.side}", PromptPane).view
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
        self.action_panel(event.name)

    def _refresh_panes(self, build: Build) -> None:
        main_pane = self.query_one("#main", PromptPane)
        child_pane = self.query_one("#child", PromptPane)
        main, child = build.report.requester, build.child
        stale = "⚠ stale" if self.build_error else ""
        thread = build.report.thread if self.rye_pane else None
        main_blocks = session_blocks(main) if thread is None else thread_blocks(thread)
        child_blocks = session_blocks(child) if child is not None else []
        if self.diff_mode and child is not None and thread is None:
            main_blocks = with_diff(main, child, main_blocks, main_side=True)
            child_blocks = with_diff(main, child, child_blocks, main_side=False)
        else:
            main_blocks = mark_changed(main_blocks, self.changed_sections.get("main", set()))
            child_blocks = mark_changed(child_blocks, self.changed_sections.get("child", set()))
        if thread is None:
            main_pane.header.show(
                main,
                stale=stale,
                alarm=self._unknown(build, main.agent_id),
                summary=summary_line(main),
            )
        else:
            tier = "stand-in system tier" if thread.system_stand_in else "installed ryeos"
            used = (
                thread.tokenizer.count(thread.system_message)
                + sum(p.tokens for p in thread.parts)
                + thread.palette.used_tokens
            )
            main_pane.header.show_lines(
                "RYE THREAD",
                thread.directive,
                f"{thread.profile.name} · {tier} · system {len(thread.system_message):,} ch · "
                f"first message {len(thread.first_message):,} ch · "
                f"{len(thread.palette.registered)} tools",
                alarm="⛔ not started" if thread.refused else "",
                tokens=(used, main.context_window),
            )
        main_pane.view.set_blocks(main_blocks)
        notice = ""
        spawn = build.report.spawn
        if self.scripts_running:
            notice = "⟳ context scripts running… the task below does not include their output yet"
        elif spawn is not None and not spawn.policy.allowed:
            notice = (
                f"✗ spawn forbidden: {spawn.policy.error}. Shown: what the child would "
                "have received."
            )
        extra = (
            f"target {spawn.target_agent_id}"
            if spawn is not None and (spawn.target_agent_id != spawn.requested_target)
            else ""
        )
        forbidden = spawn is not None and not spawn.policy.allowed
        unknown = self._unknown(build, child.agent_id) if child is not None else ""
        child_pane.header.show(
            child,
            stale=stale,
            extra=extra or ("no subagent" if child is None else ""),
            alarm=" ".join(a for a in ("✗ spawn forbidden" if forbidden else "", unknown) if a),
            summary=summary_line(child, build.lost, main) if child is not None else "",
        )
        child_pane.view.set_blocks(child_blocks, notice=notice)

    @staticmethod
    def _unknown(build: Build, agent_id: str) -> str:
        """`? unknown agent` when the agent is not in `agents.list` (it gets the defaults);
        the pane's key, beside it, names the agent."""
        return "? unknown agent" if unknown_agent(build.inputs, agent_id) else ""

    def _spawn_arrow(self, sc: Any) -> str:
        """`requester → target` as the spawn resolved it: the agent an override chose (with
        the one asked for), and whether policy forbids it."""
        spawn = self.build.report.spawn if self.build else None
        if spawn is None:
            return f"{sc.requester} → {sc.target_agent}"
        build = self.build
        assert build is not None
        arrow = " → ".join(
            f"{a} (unknown)" if unknown_agent(build.inputs, a) else a
            for a in (normalize_agent_id(sc.requester), spawn.target_agent_id)
        )
        if spawn.target_agent_id != spawn.requested_target:
            arrow += f" (override; asked {spawn.requested_target})"
        return arrow + ("  ✗ forbidden" if not spawn.policy.allowed else "")

    def _refresh_bars(self) -> None:
        top = self.query_one("#topbar", OneLine)
        status = self.query_one("#statusbar", OneLine)
        ins = self.builder.inspector
        sc = self.build.report.scenario if self.build else ins.scenario
        flags = []
        if self.diff_mode and not self.rye_pane:
            flags.append("diff")
        if self.linked and not self.rye_pane:
            flags.append("linked")
        if self.rye_pane:
            flags.append("rye thread")
        runtime = self.build.inputs.runtime if self.build else ins.inputs.runtime
        profile = runtime.profile or sc.profile
        if runtime.version and sc.profile == AUTO:
            profile = f"OpenClaw {runtime.version} ({runtime.how})"
        exact = ins.exact
        why = ins.exact_unavailable()
        if why is not None:
            profile += f"  ·  exact unavailable: {why}"
        elif exact is not None:
            profile += f"  ·  exact mode {'on' if exact.helper.ready else 'loading'}"
        top.update(
            (f"[{' '.join(flags)}] " if flags else "")
            + f"{self._spawn_arrow(sc)}  ·  {profile}"
            + (f"  ·  {sc.directive}" if sc.directive else "")
            + f"  ·  {ins.workspace}"
        )
        status.set_class(self.build_error is not None, "-error")
        if self.build_error is not None:
            status.update(f"✗ {self.build_error}  — showing the last good build")
            return
        if self.build is None:
            loading = exact is not None and exact.helper.ready is None and not exact.failure
            status.update(
                f"loading {exact.label} for exact mode (takes a few seconds)…"
                if loading and exact is not None
                else "building…"
            )
            return
        diags = self.build.diagnostics
        errors = sum(d.severity == "error" for d in diags)
        warnings = sum(d.severity == "warning" for d in diags)
        parts = [f"build #{self.build.number}"]
        if not self.frozen:
            parts.append(f"{self.build.duration_ms:.0f} ms")
        findings = sum(not f.info for f in self.build.findings)
        checking = ", checking the Rye space…" if self.build.check_pending else ""
        parts.append(
            f"{errors} error(s), {warnings} warning(s), {findings} check finding(s)"
            f"{checking} (7: Problems)"
        )
        spawn = self.build.report.spawn
        if self.watch_problem is not None:
            parts.append(
                "⚠ polling for changes"
                if self.watch_problem.severity == "warning"
                else "✗ not watching: r rebuilds"
            )
        if self.watch_bounds:
            parts.append("⚠ watching bounded (7: Problems)")
        if self.scripts_running:
            parts.append("⟳ scripts running…")
        elif spawn is not None and spawn.scripts.results and not spawn.trusted:
            parts.append(f"{len(spawn.scripts.results)} script(s) not run: untrusted (ctrl+t)")
        status.set_class(errors > 0, "-warn")
        status.update("  ·  ".join(parts))

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
        thread = self.build.report.thread if self.build else None
        if thread is None and not self.rye_pane:
            self.notify(
                markup=False,
                message="No directive in the scenario: set one with e (edit scenario).",
                severity="warning",
                timeout=3,
            )
            return
        self.rye_pane = not self.rye_pane
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

    def action_toggle_exact(self) -> None:
        """Exact mode on/off: the installed OpenClaw writes the text (loading it takes a few
        seconds, on the build thread)."""
        ins = self.builder.inspector
        on = (
            ins.exact is None
            if self.builder.exact_wanted is None
            else not self.builder.exact_wanted
        )
        self.builder.exact_wanted = on
        self.exact_notice = True
        self.notify(
            markup=False,
            message="exact mode: finding and loading OpenClaw…" if on else "exact mode off",
            timeout=3,
        )
        self.rebuild()

    def action_toggle_link(self) -> None:
        self.linked = not self.linked
        self._refresh_bars()

    @property
    def active_panel(self) -> str:
        """The name of the panel on show (one of `PANELS`)."""
        return self.query_one(PanelTabs).active

    def action_panel(self, name: str) -> None:
        self._leave_panel()
        self.query_one(PanelTabs).active = name
        self.query_one("#panel-stack", ContentSwitcher).current = name
        self._refresh_panel(name)
        self.screen.remove_class("-zoomed")

    def _leave_panel(self) -> None:
        """Move focus out of the panels before switching them: a focused widget in the panel
        being hidden would hand focus to whatever comes next, not to the panes."""
        focused = self.focused
        stack = self.query_one("#panel-stack", ContentSwitcher)
        if focused is not None and stack in focused.ancestors:
            self.query_one("#main-view", PromptView).focus()

    def action_zoom(self) -> None:
        """Hide or show the panels (more room for the panes on small terminals)."""
        self.screen.remove_class("-panel-max")
        self.screen.toggle_class("-zoomed")

    def action_maximise_panel(self) -> None:
        """Let the panels take the screen (the panes hide), and back."""
        self.screen.remove_class("-zoomed")
        self.screen.toggle_class("-panel-max")

    def action_next_panel(self) -> None:
        index = PANELS.index(self.active_panel) if self.active_panel in PANELS else -1
        self.action_panel(PANELS[(index + 1) % len(PANELS)])

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
        self.builder.set_edits({**self.builder.edits, **values})
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
        from ctxscope.explain import explain

        report = build.source
        try:
            with self.builder.lock:
                answers = explain(
                    build.inputs,
                    report,
                    item,
                    snapshot=self.builder.inspector.snapshot,
                    directive=report.scenario.directive,
                )
            answers = self.builder.inspector.shown(answers)
        except Exception as exc:
            answers = [Explanation(item, "error", False, "error", f"could not explain: {exc}")]
        with contextlib.suppress(RuntimeError):  # the app has gone
            self.call_from_thread(self.push_screen, WhyScreen(item, answers))

    def action_trust(self) -> None:
        inputs = self.builder.inspector.inputs
        vouched = inputs.trust_set  # what the user saw when asked, not what is there on answer
        shown = self.builder.inspector.shown
        folder, listed = shown(str(inputs.workspace)), shown(vouched.listing())
        if inputs.trusted:
            self.push_screen(TrustScreen(folder, listed, revoke=True), self._revoke_answer)
            return
        self.push_screen(
            TrustScreen(folder, listed),
            lambda yes: self._trust_answer(yes, vouched.key),
        )

    def _revoke_answer(self, yes: bool | None) -> None:
        if not yes:
            return
        ins = self.builder.inspector
        ins.trust_store.revoke(ins.workspace)
        ins.script_cache.clear()
        self.notify(
            markup=False, message="Trust revoked: context scripts no longer run.", timeout=3
        )
        self.rebuild()

    def _trust_answer(self, yes: bool | None, key: str) -> None:
        if not yes:
            return
        ins = self.builder.inspector
        ins.trust_store.trust(ins.workspace, key)
        ins.script_cache.clear()
        self.notify(
            markup=False, message="Workspace trusted: running its context scripts.", timeout=3
        )
        self.rebuild()

    def action_rerun_scripts(self) -> None:
        self.builder.inspector.script_cache.clear()
        if self.build is not None and not self.build.trusted:
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
        # The renderers only when exporting: the app need not keep them in memory.
        from ctxscope.output import terminal_safe
        from ctxscope.output.report import report_html, report_json, report_markdown

        folder = export_mod.export_folder(self.builder.inspector.workspace, self.export_dir)
        stem = "ctxscope-" + self.clock().strftime("%Y%m%d-%H%M%S")
        written = []
        try:
            for kind in kinds:  # the SVG first: before any notice covers the screen
                if kind == "json":
                    text = report_json(self.build.report)
                elif kind == "md":  # as the CLI writes it: no raw control characters
                    text = terminal_safe(report_markdown(self.build.report))
                elif kind == "html":
                    text = report_html(self.build.report)
                else:
                    text = self.export_screenshot(title="ctxscope")
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
        self.builder.set_edits({})
        self.rebuild()


CHECK_AFTER_S = 0.5
"""Quiet time after a rebuild before the Rye space check starts (it competes with drawing
and with the next rebuild; a save every few seconds always gets it)."""
COLLECT_AFTER_S = 1.0
"""Quiet time after a rebuild before the garbage it left is collected."""
COLLECT_EVERY = 10
"""Rebuilds after which garbage is collected even without a quiet moment."""
GC_THRESHOLDS = (10_000, 50, 100)
"""Generation 0/1/2 collection thresholds for the running app (Python's: 700, 10, 10)."""
PREFILL_AFTER_S = 0.7
"""Quiet time after a build is shown, and after the last key or click, before the hidden
panels are filled (after the check, before the garbage collection)."""
PREFILL_STEP_S = 0.03
"""Between two hidden panels filled: a key pressed meanwhile waits for one panel at most."""


def calm_garbage_collector() -> None:
    """Once the first build is on screen: move everything alive into the permanent
    generation (never scanned again) and make full collections rarer. A full collection
    of a big heap stalls the screen for 100 ms or more; what a rebuild allocates is short-lived
    and freed by reference counting."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


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
    )
