"""The app's state and its scheduling decisions, without Textual.

`Controller` holds what the app shows and decides what happens next: which build or error
is shown (a newer generation wins), when the context scripts, the Rye space check, the
garbage collection and the fill of hidden panels come, which sections a rebuild changed,
what the watcher reported, and the user's decisions (trust, revoke, re-run, exact mode,
scenario edits), and what the prediction is compared with (the pinned side, the recorded
runs read from the state folder and the one put beside the panes). The app (`tui/app.py`)
owns the widgets, the timers and the worker threads: it asks the controller, does what the
answer says, and draws from its state. The delays are here so that a test can check a
decision without a terminal.

A panel plugs in by its name in the `panels` the app passes (`tui.commands.PANELS`): after
each build every panel is out of date (`stale`); the app fills the one on show and, once
keys and rebuilds pause, the hidden ones one by one (`prefill`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ctxscope.check import Finding
from ctxscope.core.model import Diagnostic, Explanation, FileEntry
from ctxscope.remedies import cut_text, file_line
from ctxscope.tui.build import Build, Builder, BuildError
from ctxscope.tui.status import Exact, Status, exact_notice, status_line, top_line

if TYPE_CHECKING:
    from ctxscope.diff.runlist import RunRow, RunsView
    from ctxscope.tui.pinned import PinnedSide
    from ctxscope.tui.recorded import Beside

HISTORY = 24
"""Builds a file's size history keeps."""
CHANGE_MARK_S = 4.0
"""How long the panes mark the sections a rebuild changed."""
CHECK_AFTER_S = 0.5
"""Quiet time after a rebuild before the Rye space check starts (it competes with drawing
and with the next rebuild; a save every few seconds always gets it)."""
COLLECT_AFTER_S = 1.0
"""Quiet time after a rebuild before the garbage it left is collected."""
COLLECT_EVERY = 10
"""Rebuilds after which garbage is collected even without a quiet moment."""
PREFILL_AFTER_S = 0.7
"""Quiet time after a build is shown, and after the last key or click, before the hidden
panels are filled (after the check, before the garbage collection)."""
PREFILL_STEP_S = 0.03
"""Between two hidden panels filled: a key pressed meanwhile waits for one panel at most."""


@dataclass(frozen=True)
class AfterBuild:
    """What the app does once a build is shown."""

    before: Build | None
    """The build shown until now (what the delta strip compares with)."""
    run_scripts: bool
    """Run the context scripts (their results are pending), then build again."""
    check: bool
    """Check the whole Rye space for this build, `CHECK_AFTER_S` from now (a check planned
    before is dropped either way)."""
    calm_collector: bool
    """The first build is on screen: calm the garbage collector."""
    collect_after: float | None
    """Collect the garbage the rebuilds left in this many seconds (None: not at all)."""
    watch: tuple[list[Path], list[Path]] | None
    """(Re)start the watcher on these folders and tops (None: keep it as it is)."""
    unmark_after: float | None
    """A rebuild changed sections: unmark them in this many seconds."""
    say_exact: bool
    """Exact mode was toggled: say whether it runs."""
    load_exact: bool = False
    """The first build is on screen: load the installed runtime now, on a thread of its own
    (`Builder.load_exact`), and build again with its text."""
    add_rye: bool = False
    """The build left the Rye side out (`Build.rye_pending`): build again, with it, once this
    build is drawn."""


@dataclass(frozen=True)
class AfterError:
    """What the app does once a failed rebuild is shown."""

    check: bool
    """Check the kept build again (the failed rebuild gave up its check)."""
    watch: list[Path] | None
    """Watch the workspace (nothing is watched yet), so that a fix rebuilds."""


@dataclass(frozen=True)
class Prefill:
    """The next step of filling hidden panels."""

    panel: str | None = None
    """The panel to fill now."""
    wait: float | None = None
    """Come back in this many seconds (None: nothing left to fill)."""


@dataclass(frozen=True)
class TrustQuestion:
    """What ctrl+t asks: the folder, what would be trusted, and whether it asks to revoke."""

    folder: str
    listing: str
    revoke: bool
    key: str
    """The trust key of what is shown: a yes trusts that, not what is there on answer."""


Outcome = tuple[Literal["build"], Build] | tuple[Literal["error"], Diagnostic]


class Controller:
    """The app's state and scheduling (see the module's doc)."""

    def __init__(
        self,
        builder: Builder,
        *,
        panels: Sequence[str],
        watch: bool = True,
        calm_gc: bool = False,
        exact: str = "off",
        state: str | None = None,
    ) -> None:
        self.builder = builder
        self.exact_default = exact
        """Exact mode when the app opens (`auto`: where an installed OpenClaw is found,
        `required`: with a warning where it cannot run, `off`): the first frame is the
        model's either way, the runtime's text swapped in once it has loaded."""
        self.exact_loading = False
        """The runtime is loading on its thread (the model is shown meanwhile)."""
        self.panels = tuple(panels)
        self.watch_enabled = watch
        self.calm_gc = calm_gc
        """Set by the command that runs the app for a user: after the first build, calm the
        garbage collector. Off for tests sharing one process."""
        self.build: Build | None = None
        """The last good build (kept when a rebuild fails)."""
        self.build_error: Diagnostic | None = None
        """Why the latest rebuild failed (None once it succeeds again)."""
        self.scripts_running = False
        self.diff_mode = False
        self.linked = True
        self.rye_pane = False
        """The main pane shows the Rye thread (y) instead of the main session."""
        self.file_history: dict[str, list[int]] = {}
        """`main:NAME` / `child:NAME` -> injected chars over this session's builds."""
        self.changed_sections: dict[str, set[str]] = {}
        """Per pane, the sections the last rebuild changed (marked for a few seconds)."""
        self.generation = 0
        """The newest build asked for."""
        self.applied = 0
        """The generation of the build or error shown."""
        self.builds_applied = 0
        self.exact_notice = False
        """A toggle of exact mode waits for its build to say how it went."""
        self.scripts_wanted = 0
        """The generation whose scripts run (only a newer scripts run cancels it)."""
        self.stale: set[str] = set()
        """Panels the shown build has not been drawn into yet."""
        self.last_input = 0.0
        """When the last key or click came (`time.monotonic()`)."""
        self.uncollected = 0
        """Rebuilds since the last collection of the garbage they left."""
        self.watched: tuple[Path, ...] = ()
        self.watch_bounds: list[Diagnostic] = []
        """What the file watcher's bounds left unwatched (folders too broad or too big)."""
        self.watch_problem: Diagnostic | None = None
        """Set when the file watcher failed (then it polls, or has stopped)."""
        self._stop_watch: threading.Event | None = None
        # -- what is compared with the prediction -------------------------------------------
        self.pinned: PinnedSide | None = None
        """The before side the app compares with (`B`; None: the last build)."""
        self.runs_state = state
        """OpenClaw's state folder, where recorded runs are read (None: `$OPENCLAW_STATE_DIR`,
        else `~/.openclaw`)."""
        self.runs_view: RunsView | None = None
        """The stores' newest sessions as last read (the Runs panel's tree)."""
        self.runs_shown: list[RunRow] | None = None
        """The rows of `runs_view` the Runs panel shows."""
        self.runs_reads = 0
        """Listings of the stores applied (a test waits on it)."""
        self.recorded: Beside | None = None
        """The recorded run put beside the prediction (the Runs panel's choice)."""

    @property
    def workspace(self) -> Path:
        return self.builder.inspector.workspace

    # -- what the bars say -------------------------------------------------------------------
    def bars(
        self, *, frozen: bool = False, pinned: str | None = None, width: int = 0
    ) -> tuple[str, Status]:
        """The top line (in `width` characters; 0: any) and the status line for the state
        shown (`frozen`: no timings; `pinned`: the before side the view compares against)."""
        ins = self.builder.inspector
        build = self.build
        exact = Exact.of(ins)
        if exact is not None and build is not None and exact.ready:
            drift = [d for s in build.report.sessions for d in s.diagnostics]
            exact = replace(exact, drift=sum(d.code == "drift" for d in drift))
        elif self.exact_loading:
            exact = Exact("OpenClaw", loading_model=True)
        top = top_line(
            scenario=build.report.scenario if build else ins.scenario,
            runtime=build.inputs.runtime if build else ins.inputs.runtime,
            build=build,
            workspace=ins.workspace,
            exact=exact,
            exact_unavailable=ins.exact_unavailable(),
            diff=self.diff_mode,
            pinned=pinned,
            linked=self.linked,
            rye_pane=self.rye_pane,
            width=width,
        )
        status = status_line(
            build=build,
            error=self.build_error,
            exact=exact,
            frozen=frozen,
            watch_problem=self.watch_problem,
            watch_bounded=bool(self.watch_bounds),
            scripts_running=self.scripts_running,
        )
        return top, status

    def exact_outcome(self) -> tuple[str, bool] | None:
        """After exact mode was toggled: what to say, and whether it is a warning."""
        return exact_notice(self.builder.inspector)

    # -- builds ----------------------------------------------------------------------------
    def next_build(self) -> int:
        """A rebuild is asked for: its generation (an older build still running is dropped)."""
        self.generation += 1
        return self.generation

    def build_cancelled(self, generation: int) -> bool:
        return self.generation != generation

    def want_scripts(self, generation: int) -> None:
        self.scripts_wanted = generation

    def scripts_cancelled(self, generation: int) -> bool:
        return self.scripts_wanted != generation

    @staticmethod
    def outcome(
        job: Callable[..., Build | None], doing: str, cancelled: Callable[[], bool]
    ) -> Outcome | None:
        """Run `job(cancelled=...)` (on a worker thread): its build, or the error to show
        (a bad input's diagnostic; anything else as an internal error: never a crash on user
        content); None when it was cancelled."""
        try:
            build = job(cancelled=cancelled)
        except BuildError as exc:
            result: Outcome = ("error", exc.diagnostic)
        except Exception as exc:
            result = ("error", Diagnostic("error", f"internal error while {doing}: {exc!r}"))
        else:
            if build is None:
                return None
            result = ("build", build)
        return None if cancelled() else result

    def apply_build(self, generation: int, build: Build) -> AfterBuild | None:
        """Show `build` (None: a newer build or error is shown already)."""
        if generation < self.applied:
            return None
        self.applied = generation
        before = self.build
        if before is not None and before.rye_pending:
            before = None  # the build the first frame showed, now with its Rye side: no edit
            unmark = False
        else:
            unmark = self.remember_changes(before, build)
        self.build = build
        self.build_error = None
        self.scripts_running = build.scripts_pending
        self.builds_applied += 1
        if build.scripts_pending:
            self.want_scripts(generation)
        say_exact, self.exact_notice = self.exact_notice, False
        collect = None
        if self.calm_gc:
            self.uncollected += 1
            collect = 0.1 if self.uncollected >= COLLECT_EVERY else COLLECT_AFTER_S
        watch = (*build.watch_paths, *build.watch_tops) != self.watched
        return AfterBuild(
            before=before,
            run_scripts=build.scripts_pending,
            check=build.check_pending,
            calm_collector=self.calm_gc and self.builds_applied == 1,
            collect_after=collect,
            watch=(build.watch_paths, build.watch_tops) if self.watch_enabled and watch else None,
            unmark_after=CHANGE_MARK_S if unmark else None,
            say_exact=say_exact,
            load_exact=self._load_exact_now(),
            add_rye=build.rye_pending,
        )

    def _load_exact_now(self) -> bool:
        """Whether to load the runtime now: the first build is shown, exact mode is the app's
        default and nobody turned it on or off meanwhile."""
        wanted = self.exact_default in ("auto", "required") and self.builds_applied == 1
        return wanted and self.builder.exact_wanted is None

    def exact_found(self) -> None:
        """An install was found and loads: the bars say so (none found: nothing is said)."""
        self.exact_loading = True

    def exact_loaded(self, found: bool, failure: str | None) -> tuple[str, bool] | None:
        """The runtime loaded (`failure` None: the next build is the runtime's text) or not
        (`found`: an install was found): what to say, and whether it is a warning; nothing
        where `auto` found no install (the model is what there is)."""
        self.exact_loading = False
        if failure is None:
            return None
        if found or self.exact_default == "required":
            return f"exact unavailable: {failure}; showing ctxscope's model", True
        return None

    def apply_error(self, generation: int, diagnostic: Diagnostic) -> AfterError | None:
        """Show that the rebuild failed, over the last good build (None: a newer build or
        error is shown already)."""
        if generation < self.applied:
            return None
        self.applied = generation
        self.build_error = diagnostic
        self.scripts_running = False
        return AfterError(
            check=self.build is not None and self.build.check_pending,
            watch=[self.builder.inspector.workspace]
            if self.watch_enabled and not self.watched
            else None,
        )

    def check(
        self, generation: int, build: Build, running: Callable[[], bool] = lambda: True
    ) -> list[Finding] | None:
        """On the check thread: `build`'s findings with the whole Rye space checked; None
        when a newer rebuild came (it checks again when it needs to), the app stopped
        (`running()` false) or the check failed (the findings shown stand)."""

        def cancelled() -> bool:
            return self.generation != generation or not running()

        try:
            findings = self.builder.check(build, cancelled=cancelled)
        except Exception:  # never crash on user content
            return None
        return None if findings is None or cancelled() else findings

    def apply_check(self, build: Build, findings: list[Finding]) -> bool:
        """The check's findings into `build`, when it is still the one shown (else False)."""
        if build is not self.build:
            return False
        build.findings, build.check_pending = findings, False
        self.stale.add("problems")
        return True

    def collected(self) -> None:
        self.uncollected = 0

    # -- what a rebuild changed --------------------------------------------------------------
    def remember_changes(self, before: Build | None, after: Build) -> bool:
        """Each file's size for the Files panel's history, and which sections `after`
        changed since `before` (a pane showing another agent's prompt is not an edit).
        True when some section changed (the panes mark them for `CHANGE_MARK_S`)."""
        sessions = [("main", after.report.requester), ("child", after.child)]
        for side, session in sessions:
            for f in session.files if session is not None else []:
                sizes = self.file_history.setdefault(f"{side}:{f.path}", [])
                sizes.append(f.injected_chars)
                del sizes[:-HISTORY]
        if before is None:
            return False
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
        return any(self.changed_sections.values())

    def forget_changes(self) -> None:
        self.changed_sections = {}

    # -- panels ----------------------------------------------------------------------------
    def all_stale(self) -> None:
        """A new build (or view) is shown: every panel is out of date."""
        self.stale = set(self.panels)

    def take(self, name: str) -> Build | None:
        """The build to draw panel `name` from, when it is out of date (it is then marked
        drawn); None when it is up to date or there is no build."""
        if self.build is None or name not in self.stale:
            return None
        self.stale.discard(name)
        return self.build

    def note_input(self, now: float) -> None:
        """A key or a click came at `now` (`time.monotonic()`)."""
        self.last_input = now

    def prefill(self, now: float, active: str, quiet: float = PREFILL_AFTER_S) -> Prefill:
        """What to do when the prefill timer fires at `now`, with panel `active` on show:
        wait while keys are being pressed (a fill could lengthen the next key's frame), else
        fill the first hidden panel out of date and come back `PREFILL_STEP_S` later for
        the next."""
        busy = quiet - (now - self.last_input)
        if busy > 0:
            return Prefill(wait=busy)
        hidden = [p for p in self.panels if p in self.stale and p != active]
        if not hidden:
            return Prefill()
        return Prefill(hidden[0], PREFILL_STEP_S if len(hidden) > 1 else None)

    # -- watching ----------------------------------------------------------------------------
    def start_watch(self, folders: Iterable[Path], tops: Iterable[Path] = ()) -> threading.Event:
        """A watcher is about to start on `folders` (with subfolders) and `tops` (without):
        the previous one is told to stop, and nothing read before is trusted unchecked until
        the new one is ready. Returns the event that stops the new one."""
        self.builder.inspector.watch_stopped()
        self.stop_watch()
        self.watched = (*folders, *tops)
        stop = self._stop_watch = threading.Event()
        return stop

    def stop_watch(self) -> None:
        if self._stop_watch is not None:
            self._stop_watch.set()

    def files_changed(self, paths: Iterable[str]) -> None:
        """The watcher's batch of changed paths (`*`: anything may have changed)."""
        paths = list(paths)
        self.builder.inspector.files_changed(None if "*" in paths else paths)

    def watch_ready(self, folders: Sequence[Path]) -> None:
        if set(folders) <= set(self.watched):  # not a watcher since replaced
            self.builder.inspector.watching(folders)

    def watch_bounded(self, notes: Iterable[tuple[Path, str]]) -> None:
        """What the watcher's bounds left out (shown in Problems and the status line)."""
        self.watch_bounds = [
            Diagnostic("warning", why, str(folder), code="watch-bound") for folder, why in notes
        ]
        self.stale.add("problems")

    def watch_trouble(self, reason: str, *, polling: bool) -> Diagnostic:
        """The watcher failed: it polls (`polling`) or has stopped. Until a polling watcher
        says it runs, nothing is trusted unchecked."""
        self.builder.inspector.watch_stopped()
        self.watch_problem = Diagnostic("warning" if polling else "error", reason, code="watch")
        self.stale.add("problems")
        return self.watch_problem

    # -- the user's decisions --------------------------------------------------------------
    def trust_question(self) -> TrustQuestion:
        ins = self.builder.inspector
        inputs = ins.inputs
        vouched = inputs.trust_set  # what the user saw when asked, not what is there on answer
        return TrustQuestion(
            ins.shown(str(inputs.workspace)),
            ins.shown(vouched.listing()),
            revoke=inputs.trusted,
            key=vouched.key,
        )

    def trust(self, key: str) -> None:
        self.builder.inspector.trust(key)

    def revoke(self) -> None:
        self.builder.inspector.revoke()

    def rerun_scripts(self) -> bool:
        """Drop the scripts' results; False when they will not run (the workspace shown is
        untrusted)."""
        self.builder.inspector.rerun_scripts()
        return self.build is None or self.build.trusted

    def toggle_rye(self) -> bool:
        """The main pane shows the scenario's Rye thread instead of the main session, or
        back; False (nothing changes) when there is no thread to show."""
        thread = self.build.report.thread if self.build else None
        if thread is None and not self.rye_pane:
            return False
        self.rye_pane = not self.rye_pane
        return True

    def toggle_exact(self) -> bool:
        """Exact mode on or off (applied by the next build); True when it goes on."""
        self.exact_loading = False
        on = (
            self.builder.inspector.exact is None
            if self.builder.exact_wanted is None
            else not self.builder.exact_wanted
        )
        self.builder.exact_wanted = on
        self.exact_notice = True
        return on

    def edit_scenario(self, values: dict[str, Any]) -> None:
        """Scenario edits on top of the ones made before (the next build applies them)."""
        self.builder.set_edits({**self.builder.edits, **values})

    def reset_edits(self) -> None:
        self.builder.set_edits({})

    def explain(self, item: str, build: Build) -> list[Explanation]:
        """Why `item` is or is not in each session of `build` (an error as an answer)."""
        try:
            return self.builder.explain(build, item)
        except Exception as exc:
            return [Explanation(item, "error", False, "error", f"could not explain: {exc}")]

    # -- what is compared with the prediction -----------------------------------------------
    def runs_read(self, view: RunsView, fresh: list[str], shown: list[RunRow]) -> str | None:
        """A listing of the stores read (`fresh`: the sessions with a run new since the last
        read): kept for the Runs panel; returns the key of the run beside the panes when it
        has a new run, to be read again."""
        self.runs_view, self.runs_shown = view, shown
        self.runs_reads += 1
        return self.chosen_run if self.chosen_run in fresh else None

    @property
    def chosen_run(self) -> str | None:
        """The session key of the run put beside the panes (None: none is)."""
        return self.recorded.run.session_key if self.recorded is not None else None

    def unpin(self) -> bool:
        """`B`, then `unpin`: False when nothing was pinned."""
        was, self.pinned = self.pinned, None
        return was is not None

    # -- the files behind what is shown ------------------------------------------------------
    def file_line(self, entry: FileEntry, offset: int) -> int:
        """The line of `entry`'s file on disk that char `offset` of its injected text came
        from."""
        return file_line(entry, offset, self.builder.inspector.snapshot)

    def cut_text(self, entry: FileEntry) -> tuple[int, int, int, str] | None:
        """What a truncation dropped from `entry`'s file (first line, last line, lines, the
        text, as shown), None when it was not cut or cannot be read."""
        cut = cut_text(entry, self.builder.inspector.snapshot)
        return self.builder.inspector.shown(cut) if cut is not None else None
