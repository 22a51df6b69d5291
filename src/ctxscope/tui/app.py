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

import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.widgets import ContentSwitcher

from ctxscope.api import Inspector
from ctxscope.tui.background import Latest
from ctxscope.tui.build import Build, Builder
from ctxscope.tui.commands import PANELS, CtxscopeCommands, panel_key
from ctxscope.tui.controller import (
    Controller,
)
from ctxscope.tui.safe import TERMINAL_SAFE, safe
from ctxscope.tui.screens.help import HelpScreen
from ctxscope.tui.screens.main import MainScreen
from ctxscope.tui.themes import DEFAULT_THEME, load_themes
from ctxscope.tui.why_actions import WhyActions
from ctxscope.tui.widgets.chain_panel import BUILDING, NO_THREAD
from ctxscope.tui.widgets.common import DEFAULTS
from ctxscope.tui.widgets.keybar import KeyBar
from ctxscope.tui.widgets.lost_line import LostLine
from ctxscope.tui.widgets.one_line import FitLine, OneLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.panel_tabs import PanelTabs
from ctxscope.tui.widgets.panels import make_panel
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.workspace_actions import WorkspaceActions

FROZEN_TIME = dt.datetime(2026, 1, 1, 12, 0, 0)
FIRST_PANEL = "map"
"""The panel on show at start: where each session's tokens go and what the subagent lacks."""


class CtxscopeApp(WhyActions, WorkspaceActions):
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
        self.ctl = Controller(builder, panels=PANELS, watch=watch, exact=exact, state=state)
        """The app's state and scheduling (Textual-free); the app draws from it."""
        self.setup_runs()
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
                yield make_panel(FIRST_PANEL, shown=True)  # the others once it is drawn
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
        self.call_after_refresh(self.mount_panels)
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

    # -- watching ------------------------------------------------------------------------

    def on_unmount(self) -> None:
        self.ctl.stop_watch()
        self.stop_runs()
        for jobs in (self._builds, self._checks, self._script_runs):
            jobs.close()

    # -- view ----------------------------------------------------------------------------

    @on(PanelTabs.Chosen)
    async def _panel_chosen(self, event: PanelTabs.Chosen) -> None:
        await self.action_panel(event.name, focus=not event.stepped)

    # -- pane events ---------------------------------------------------------------------
    @on(PromptView.Scrolled)
    def _linked_scroll(self, message: PromptView.Scrolled) -> None:
        if not self.linked:
            return
        for view in self.query(PromptView):
            if view is not message.view:
                view.follow(message.view, message.key, message.offset)

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
            pending = self.build is not None and self.build.thread_building
            self.notify(
                markup=False,
                message=BUILDING if pending else NO_THREAD,
                severity="information" if pending else "warning",
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

    # -- scenario helpers for the palette --------------------------------------------------


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
