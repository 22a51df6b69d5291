"""The app's builds: a rebuild on its worker thread (a newer one cancels an older), the
context scripts on a second worker so the panes never wait for them, the Rye check after a
build is shown, the garbage collection once rebuilds pause, and the file watcher's news. What
happens after each is decided by the controller (`AfterBuild`, `AfterError`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.notifications import SeverityLevel
from textual.timer import Timer

from ctxscope.check import Finding
from ctxscope.core.model import Diagnostic
from ctxscope.infra import tuning
from ctxscope.tui.background import Latest, in_background, to_app
from ctxscope.tui.build import Build
from ctxscope.tui.controller import (
    CHECK_AFTER_S,
    PREFILL_AFTER_S,
    AfterBuild,
)
from ctxscope.tui.pinned import pinned_delta
from ctxscope.tui.status import (
    delta_text,
    lost_text,
)
from ctxscope.tui.view_refresh import ViewRefresh
from ctxscope.tui.watch import (
    FilesChanged,
    WatchBounded,
    WatchReady,
    WatchTrouble,
    run_watcher,
)
from ctxscope.tui.widgets.lost_line import LostLine
from ctxscope.tui.widgets.one_line import OneLine

LOAD_AFTER_S = 0.2
"""How long after the first frame is drawn exact mode's runtime starts loading: its Node
process would otherwise take the CPU from the frames that follow the first (the panels)."""


class BuildFlow(ViewRefresh):
    """The builds of the inspector (its base for `CtxscopeApp`)."""

    _builds: Latest[int]
    _checks: Latest[tuple[int, Build]]
    _script_runs: Latest[int]
    _collect_timer: Timer | None
    _check_timer: Timer | None
    _first_frame_drawn: bool = False

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
        to_app(self, apply, generation, outcome[1])

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
        if after.collect_after is not None:
            self._collect_timer = self._restart(
                self._collect_timer, after.collect_after, self._collect
            )
        self.call_after_refresh(self._after_build_drawn, after)

    def _after_build_drawn(self, after: AfterBuild) -> None:
        """Once the frame showing a build is drawn: what it does not show starts now (the
        watcher; the first time, the runs, the collector's calm and exact mode)."""
        if not self._view_mounted:
            return
        self._after_first_frame()
        # A later build asked for the same folders meanwhile: one watcher starts, not two.
        if after.watch is not None and (*after.watch[0], *after.watch[1]) != self.watched:
            self.start_watching(*after.watch)
        self.follow_stores()
        if after.calm_collector:
            tuning.calm_app()
        if after.load_exact:  # it waits for nothing: its Node process starts a moment later
            self.set_timer(LOAD_AFTER_S, self._load_exact)
        if after.add_rye:
            self.rebuild()

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
            to_app(self, self._apply_check, build, findings)

    def _apply_check(self, build: Build, findings: list[Finding]) -> None:
        if not self._view_mounted or not self.ctl.apply_check(build, findings):
            return
        self._refresh_bars()
        self._refresh_active_panel()
        # Problems, when hidden, is out of date again: fill it once keys pause.
        self._prefill_timer = self._restart(self._prefill_timer, PREFILL_AFTER_S, self._prefill)

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
        self.call_after_refresh(self._after_error_drawn, after.watch)

    def _after_error_drawn(self, watch: list[Path] | None) -> None:
        """Once the frame showing a failed build is drawn (`_after_build_drawn`)."""
        if not self._view_mounted:
            return
        self._after_first_frame()
        if watch is not None and not self.watched:
            self.start_watching(watch)

    def _after_first_frame(self) -> None:
        """What the first frame does not show, once it is drawn: the recorded runs read and
        their stores watched (once)."""
        if self._first_frame_drawn:
            return
        self._first_frame_drawn = True
        self.start_runs()

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
