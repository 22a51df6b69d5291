"""One build of the app's state, made off the UI thread.

`Builder.build()` reloads the inspector's frozen `Inputs` and produces a `Build` (the report,
the inputs it came from, and what the panels need: limits, agent ids, folders to watch).
Unusable input raises `BuildError` carrying a diagnostic, so the app can keep its last good
build. No Textual here.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import field
from pathlib import Path
from typing import Any

from ctxscope.api import Inspector
from ctxscope.check import Finding, run_check
from ctxscope.core.model import Diagnostic, Explanation, Session
from ctxscope.core.record import record
from ctxscope.infra import paths
from ctxscope.inputs import Inputs, WorkspaceError
from ctxscope.remedies import lost_in_child
from ctxscope.report import Report
from ctxscope.runtimes.openclaw.config import ConfigError
from ctxscope.runtimes.openclaw.prompt import budget_limits
from ctxscope.runtimes.profiles import ProfileError

FROZEN_CHILD_ID = "00000000-0000-4000-8000-000000000000"
"""The child session id used when the app runs frozen (snapshots, tests)."""


class BuildError(Exception):
    """The inputs cannot be built (bad config, profile or workspace); carries a diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


@record
class Limits:
    """Bootstrap character budgets in force (None: the profile does not truncate)."""

    max_chars: int | None = 20_000
    total_max_chars: int | None = 150_000


@record
class Build:
    """What one rebuild produced, read-only for the UI (but for `findings`, which the check
    that follows a build completes, see `check_pending`)."""

    report: Report
    """What the app shows: values from the environment masked but for allowed names
    (`Report.shown()`); `built` is the report itself."""
    inputs: Inputs
    """What the report was built from (config, scenario, profile, trust)."""
    limits: Limits
    scripts_pending: bool = False
    """True when trusted context scripts have not run yet (their results are not cached)."""
    agent_ids: list[str] = field(default_factory=list)
    directives: list[str] = field(default_factory=list)
    watch_paths: list[Path] = field(default_factory=list)
    """Folders to watch with every subfolder."""
    watch_tops: list[Path] = field(default_factory=list)
    """Folders to watch without their subfolders: too broad to watch whole (an agent's
    workspace or a script's folder at the root or the home folder)."""
    duration_ms: float = 0.0
    number: int = 0
    findings: list[Finding] = field(default_factory=list)
    """What `ctxscope check` reports for this build (truncation, missing files, budgets,
    scripts, chains, errors)."""
    check_pending: bool = False
    """True while the check of every project Rye item is still to be made (`findings` have
    no `chain` findings yet): it runs after the build is shown, see `Builder.check`."""
    rye_pending: bool = False
    """True when the build left the Rye side out (the scenario's thread, the directives
    listed, the space check) so that the first frame does not wait for the Rye engine to
    load (`Builder.start`): the app builds again once that frame is drawn."""
    lost: list[Explanation] = field(default_factory=list)
    """What the subagent does not get that the main session does, with reasons and remedies."""
    built: Report | None = None
    """The report as built, real values and all: what checks and explanations read."""
    digests: dict[str, str | None] = field(default_factory=dict)
    """The sha256 of each session file on disk, by path: an edit that leaves the prompt as
    it was (in the part a cut drops) still shows as an edit."""

    def edited_since(self, before: Build) -> set[str]:
        """The paths of session files whose content differs from `before`'s."""
        old = before.digests
        return {p for p, d in self.digests.items() if p in old and old[p] != d}

    @property
    def source(self) -> Report:
        """The report as built (`built`), for what reads values rather than shows them."""
        return self.built or self.report

    @property
    def thread_building(self) -> bool:
        """The scenario names a directive whose thread this build left to the next one."""
        return self.rye_pending and bool(self.report.scenario.directive)

    @property
    def child(self) -> Session | None:
        """The subagent session of the spawn simulation."""
        return self.report.child

    @property
    def trusted(self) -> bool:
        return self.inputs.trusted

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.report.all_diagnostics


class Builder:
    """Owns an `Inspector` and serialises its builds (they run in threads).

    A build never runs context scripts, which can be slow: it takes their cached results and
    shows the rest as pending. `run_scripts()` runs them for the latest frozen inputs, outside
    the build lock so that edits keep rebuilding meanwhile, and then builds with the results.

    `start()` begins the first build at once, on its own thread, so that it runs while the
    interface is still loading; the first `build()` call then takes its result. That build
    leaves the Rye side out (`Build.rye_pending`): the first screen shows none of it.
    """

    def __init__(self, inspector: Inspector, *, frozen: bool = False) -> None:
        self.inspector = inspector
        self.lock = threading.Lock()
        self.edits: dict[str, Any] = {}
        """Scenario fields edited in the app; they survive reloads of `ctxscope.yaml`."""
        self.base_overrides: dict[str, Any] = dict(inspector.overrides or {})
        self.counter = 0
        self.child_id = FROZEN_CHILD_ID if frozen else str(uuid.uuid4())
        """One child session id for the app's lifetime, so a rebuild keeps the child's key."""
        self.exact_wanted: bool | None = None
        """Exact mode asked for from the app (None: as the command line set it); applied on
        the build thread, where finding and loading the runtime may take seconds."""
        self._early: tuple[Future[Build | None], dict[str, Any], bool | None] | None = None
        """The build `start()` began, with the scenario and exact mode it was made for."""

    def start(self) -> None:
        """Begin a build now, on its own thread: the next `build()` returns it (or builds
        again when the scenario edits or exact mode changed meanwhile)."""
        future: Future[Build | None] = Future()

        def run() -> None:
            try:
                future.set_result(self._build(rye=False))
            except BaseException as exc:  # handed to whoever takes the result
                future.set_exception(exc)

        self._early = (future, self.overrides(), self.exact_wanted)
        threading.Thread(target=run, name="first-build", daemon=True).start()

    def load_exact(self, found_one: Callable[[], None] = lambda: None) -> tuple[bool, str | None]:
        """On a thread of its own: find and load the installed runtime (seconds), then turn
        exact mode on for the next build; the builds meanwhile are the model's. Returns
        whether an install was found, and why exact mode cannot run (None: it is on);
        `found_one()` is called once one is found, before it loads. Exact mode turned on or
        off from the app meanwhile wins."""
        install = self.inspector.find_exact()
        if isinstance(install, str):
            return False, install
        found_one()
        found = self.inspector.load_exact(install)
        if isinstance(found, str):
            return True, found
        with self.lock:
            if self.exact_wanted is None:
                self.inspector.use_exact(found)
                self.exact_wanted = True
            else:
                found.close()
        return True, None

    def set_edits(self, edits: dict[str, Any]) -> None:
        """Replace the app's scenario edits (None or "" values drop an edit)."""
        self.edits = {k: v for k, v in edits.items() if v not in (None, "")}

    def overrides(self) -> dict[str, Any]:
        return {"child_id": self.child_id, **self.base_overrides, **self.edits}

    def _reload(self) -> Inputs:
        ins = self.inspector
        ins.overrides = self.overrides()
        try:
            return ins.reload()
        except (ConfigError, ProfileError) as exc:
            raise BuildError(exc.diagnostic) from None
        except WorkspaceError as exc:
            raise BuildError(
                Diagnostic("error", str(exc), str(ins.workspace), code="workspace-missing")
            ) from None

    def started_build(self) -> Build | None:
        """The build `start()` began, when it has finished, succeeded and still holds (the
        scenario edits and exact mode are as they were); taken: `build()` builds again."""
        return self._take_started(wait=False)

    def build(self, *, cancelled: Callable[[], bool] = lambda: False) -> Build | None:
        """Reload and build with cached script results. None when `cancelled()` turned true
        before the build started."""
        started = self._take_started(wait=True)
        return started if started is not None else self._build(cancelled)

    def _take_started(self, *, wait: bool) -> Build | None:
        """The build `start()` began, once, if it still holds. `wait`: until it has finished
        (a failure is raised); else only when it has finished and succeeded."""
        if self._early is None:
            return None
        future, overrides, exact = self._early
        if not wait and (not future.done() or future.exception() is not None):
            return None
        self._early = None
        build = future.result()
        return build if overrides == self.overrides() and exact == self.exact_wanted else None

    def _build(
        self, cancelled: Callable[[], bool] = lambda: False, *, rye: bool = True
    ) -> Build | None:
        """One build with cached script results; `rye` False: without the Rye side (see
        `Build.rye_pending`)."""
        with self.lock:
            if cancelled():
                return None
            start = time.perf_counter()
            if self.exact_wanted is not None:
                self.inspector.set_exact(self.exact_wanted)
            inputs = self._reload()
            report = self.inspector.report(run_scripts=False, thread=rye)
            self.counter += 1
            return self._finish(inputs, report, start, rye=rye)

    def run_scripts(self, *, cancelled: Callable[[], bool] = lambda: False) -> Build | None:
        """Run the context scripts into the cache, then build with their results."""
        self.inspector.run_scripts()
        return self.build(cancelled=cancelled)

    def check(
        self, build: Build, *, cancelled: Callable[[], bool] = lambda: False
    ) -> list[Finding] | None:
        """`build`'s findings with every project Rye item checked (it builds each project
        directive: on a large space, seconds). Run after the build is shown; None when
        `cancelled()` turned true first (a newer edit wants the build thread)."""
        from ctxscope.runtimes.rye import check_space_cancellable

        with self.lock:
            if cancelled():
                return None
            inputs = build.inputs
            space = check_space_cancellable(
                inputs.workspace,
                inputs.user_space,
                snapshot=self.inspector.snapshot,
                cancelled=cancelled,
            )
            if space is None:
                return None
            return self.inspector.shown(_findings(inputs, build.source, self.inspector, space))

    def explain(self, build: Build, item: str) -> list[Explanation]:
        """Why `item` is or is not in each session of `build` (display copies), as
        `ctxscope explain` answers; between builds (it reads files through the snapshot)."""
        from ctxscope.explain import explain

        report = build.source
        with self.lock:
            answers = explain(
                build.inputs,
                report,
                item,
                snapshot=self.inspector.snapshot,
                directive=report.scenario.directive,
            )
        return self.inspector.shown(answers)

    def _finish(self, inputs: Inputs, report: Report, start: float, *, rye: bool) -> Build:
        spawn = report.spawn
        folders, tops = folders_to_watch(inputs)
        space = self._kept_space_check(inputs) if rye else None
        return Build(
            report=report.shown(),
            built=report,
            inputs=inputs,
            limits=Limits(*budget_limits(inputs.profile, inputs.config, inputs.scenario.requester)),
            scripts_pending=spawn is not None and spawn.scripts_pending,
            agent_ids=_agent_ids(inputs),
            directives=_directives(inputs, self.inspector) if rye else [],
            watch_paths=folders,
            watch_tops=tops,
            duration_ms=(time.perf_counter() - start) * 1000,
            number=self.counter,
            findings=self.inspector.shown(_findings(inputs, report, self.inspector, space or [])),
            check_pending=space is None,
            rye_pending=not rye,
            lost=self.inspector.shown(
                lost_in_child(
                    report.requester, report.child, inputs.profile, self.inspector.snapshot
                )
                if report.child is not None
                else []
            ),
            digests=_digests(report, self.inspector),
        )

    def _kept_space_check(self, inputs: Inputs) -> list[Diagnostic] | None:
        from ctxscope.runtimes.rye import kept_space_check  # the Rye engine: not first

        return kept_space_check(inputs.workspace, inputs.user_space, self.inspector.snapshot)


def _digests(report: Report, ins: Inspector) -> dict[str, str | None]:
    sessions = [s for s in (report.requester, report.child) if s is not None]
    return {
        f.path: ins.snapshot.digest(f.path)
        for s in sessions
        for f in s.files
        if f.status != "missing"
    }


def _findings(
    inputs: Inputs, report: Report, ins: Inspector, space: list[Diagnostic]
) -> list[Finding]:
    try:
        return run_check(inputs, report, snapshot=ins.snapshot, space=space)
    except Exception:  # a check that fails must not cost the build
        return []


def _agent_ids(inputs: Inputs) -> list[str]:
    ids = list(inputs.config.agent_ids())
    for extra in (inputs.scenario.requester, inputs.scenario.target_agent):
        if extra and extra not in ids:
            ids.append(extra)
    return ids


def _directives(inputs: Inputs, ins: Inspector) -> list[str]:
    try:
        from ctxscope.runtimes.rye import list_directives

        return list_directives(inputs.workspace, inputs.user_space, snapshot=ins.snapshot)
    except Exception:
        return []


def folders_to_watch(inputs: Inputs) -> tuple[list[Path], list[Path]]:
    """Folders whose changes can change the build: the workspace, the config's folder, agent
    workspaces, the Rye user space and the context scripts' folders. Nested ones are dropped.
    Second, those too broad to watch whole (`too_broad`): what the runtime reads there is the
    folder's own files, and watching every folder below would set up watches on the whole
    disk or home folder."""
    found: list[Path] = [inputs.workspace]
    if inputs.config.folder is not None:
        found.append(inputs.config.folder)
    for agent_id in _agent_ids(inputs):
        found.append(inputs.workspace_for(agent_id))
    if inputs.user_space is not None:
        found.append(Path(inputs.user_space))
    found += [p.parent for p in inputs.script_files]
    # Agents mostly share a few workspaces: each distinct folder is checked once.
    folders = [p.absolute() for p in dict.fromkeys(found) if p.is_dir()]
    tops = sorted({p for p in folders if too_broad(p)})
    return _outermost([p for p in folders if p not in tops]), tops


def too_broad(folder: Path) -> bool:
    """The root of a file system, the home folder or a folder that holds it."""
    real = Path(os.path.realpath(folder))  # `..` and links taken: a link to / is broad
    if real.parent == real:
        return True
    try:
        home = Path(os.path.realpath(paths.home()))
    except KeyError:  # no home folder known (no $HOME, no password entry)
        return False
    return real == home or real in home.parents


def _outermost(paths: list[Path]) -> list[Path]:
    resolved = sorted({Path(p).absolute() for p in paths}, key=lambda p: len(p.parts))
    out: list[Path] = []
    for p in resolved:
        if not any(p == q or q in p.parents for q in out):
            out.append(p)
    return out
