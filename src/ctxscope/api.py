"""The Python API: `inspect()` for one report, `Inspector` to rebuild as files change.

An `Inspector` is a thin holder around the pure engine: it keeps what is worth keeping
between builds (the file snapshot, the context-script and tool caches), the latest `Inputs`
and `Report`, and it is the edge where side effects happen (running trusted scripts, saving
the tool cache):

    >>> import ctxscope
    >>> report = ctxscope.inspect("sample_workspace")
    >>> report.requester.files[1].status
    'injected'
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.secrets import EnvMask
from ctxscope.core.tokens import Tokenizer, get_tokenizer
from ctxscope.infra.paths import env_user_space
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import (
    Caches,
    Inputs,
    WorkspaceError,
    load_inputs,
    resolve_workspace,
)
from ctxscope.report import Report, build_report, thread_for
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.prompt import SessionRequest, build_session
from ctxscope.runtimes.profiles import Profile
from ctxscope.runtimes.registry import session_for
from ctxscope.runtimes.rye import Serial, ToolCache, ToolSource
from ctxscope.scenario import Scenario
from ctxscope.scripts import ScriptCache, ScriptsOutcome, TrustStore
from ctxscope.spawn import SpawnReport, context_scripts, simulate_spawn

if TYPE_CHECKING:
    from ctxscope.runs.identity import RunIdentity
    from ctxscope.runtimes.openclaw.exact import ExactMode, Install
    from ctxscope.runtimes.rye import ThreadReport

T = TypeVar("T")

__all__ = ["Inspector", "Report", "WorkspaceError", "env_user_space", "inspect"]


class Inspector:
    """Builds sessions, spawns and threads for one workspace, caching between builds.

    `scenario` maps scenario fields to values that override `WORKSPACE/ctxscope.yaml`
    (None values are ignored). `exact=True` asks the installed OpenClaw (`runtime`: its
    folder, default: on PATH / npm's global folder; `node`: Node ≥ 22 to run it) for each
    session's real text, with ctxscope's model reported as drift; `close()` stops it.
    `trust_store` and `tool_cache` default to the user's own (see `ctxscope.infra.paths`). Rye tool
    metadata comes from `tools` (`rye.toolsource`), by default `Serial(tool_cache)`: each
    file parsed in this process, no other process started.
    Config values taken from environment variables are shown masked (`⟨$NAME⟩`) by
    `Report.to_dict()` and `shown()`, but for the variables named in `show_env`.
    Raises `WorkspaceError`, `ConfigError` or `ProfileError` for unusable input.
    """

    def __init__(
        self,
        workspace: str | os.PathLike[str] = ".",
        *,
        config: str | os.PathLike[str] | None = None,
        scenario: dict[str, Any] | None = None,
        tokenizer: str | None = None,
        user_space: str | os.PathLike[str] | None = None,
        trusted: bool = False,
        trust_store: TrustStore | None = None,
        tool_cache: ToolCache | None = None,
        tools: ToolSource | None = None,
        exact: bool = False,
        runtime: str | os.PathLike[str] | None = None,
        node: str | None = None,
        show_env: Iterable[str] = (),
    ) -> None:
        self.workspace = resolve_workspace(workspace)
        self.show_env = tuple(show_env)
        """Environment variables whose values are shown as they are."""
        self.exact: ExactMode | None = None
        """Exact mode's link to the installed OpenClaw (None: sessions are ctxscope's model)."""
        self.exact_problem: Diagnostic | None = None
        """Why exact mode was asked for but cannot run."""
        self._exact_reason = ""
        self._runtime_args = (runtime, node)
        self.exact_on = exact
        """Exact mode is asked for (it runs when `exact` is set)."""
        self.explicit_config = config
        self.overrides = scenario
        """Scenario fields that override `ctxscope.yaml`; read again by every `reload()`."""
        self.tokenizer: Tokenizer = get_tokenizer(tokenizer)
        self.user_space = Path(user_space) if user_space else env_user_space()
        self.trusted = trusted
        """Trust given for this run (`--trust`), on top of the user's remembered trust."""
        self.trust_store = trust_store or TrustStore()
        self.snapshot = Snapshot()
        self.caches = Caches(
            ScriptCache(), tools or Serial(tool_cache or ToolCache.default(self.workspace))
        )
        self.inputs: Inputs = self._load(None)
        if exact:  # once the config is read: it names folders the runtime may not come from
            self._find_runtime()
            if self.exact is not None:
                self.inputs = self._load(self.inputs)  # the runtime's version picks the profile
        self.latest: Report | None = None
        """The last report `report()` built."""

    def _find_runtime(self) -> None:
        # Exact mode's modules only where it is asked for: 10–18 ms, 11–20 % of a `render`
        # (docs/benchmarks.md, imports inside functions).
        from ctxscope.runtimes.openclaw.exact import ExactError, ExactMode

        try:
            install = self._install()
        except ExactError as exc:
            self._exact_reason = str(exc)
            self.exact_problem = Diagnostic(
                "warning", f"{exc}; showing ctxscope's model instead", code="exact-unavailable"
            )
        else:
            self.exact = ExactMode(install)

    def _install(self) -> Install:
        """The install exact mode would use (the runtime and Node given at creation, else
        found); raises `ExactError` saying what is missing. Nothing is taken from a folder
        the config names (`untrusted_folders`)."""
        from ctxscope.runtimes.openclaw.exact import find_install
        from ctxscope.runtimes.openclaw.exact.runtime import untrusted_folders

        runtime, node = self._runtime_args
        untrusted = untrusted_folders(self.workspace, self.inputs.config)
        return find_install(str(runtime) if runtime else None, node, untrusted)

    def close(self) -> None:
        """Stop exact mode's helper process (if one runs)."""
        if self.exact is not None:
            self.exact.close()

    def set_exact(self, on: bool) -> None:
        """Turn exact mode on (with the runtime and Node given at creation, else found) or
        off; `exact_problem` says why it could not turn on. Takes effect at `reload()`."""
        if on == self.exact_on:
            return
        self.exact_on = on
        self.close()
        self.exact = self.exact_problem = None
        if on:
            self._find_runtime()

    def find_exact(self) -> Install | str:
        """The install exact mode would use (the runtime and Node given at creation, else as
        `--exact` finds them), or why there is none."""
        from ctxscope.runtimes.openclaw.exact import ExactError

        try:
            return self._install()
        except ExactError as exc:
            return str(exc)

    def load_exact(self, install: Install) -> ExactMode | str:
        """`install` loaded, which takes seconds, for `use_exact`; or why it failed. Changes
        nothing of this inspector, so it may run on a thread of its own beside a build."""
        from ctxscope.runtimes.openclaw.exact import ExactMode

        mode = ExactMode(install)
        failure = mode.start()
        if failure is not None:
            mode.close()
            return failure
        return mode

    def use_exact(self, mode: ExactMode) -> None:
        """Exact mode on with `mode`, as `load_exact` loaded it; takes effect at `reload()`."""
        self.close()
        self.exact_on, self.exact, self.exact_problem = True, mode, None

    def exact_refusal(self) -> Diagnostic | None:
        """The release's refusal of the config, when it refuses it: exact mode does not run
        a config the runtime would not load."""
        return next((d for d in self.inputs.diagnostics if d.code == "config-refused"), None)

    def exact_unavailable(self) -> str | None:
        """Why exact mode, asked for, cannot run (None: it runs, is loading, or was not asked
        for): no runtime or Node found, a config the runtime refuses, a runtime that failed
        to load."""
        if not self.exact_on:
            return None
        if self.exact_problem is not None:
            return self._exact_reason or self.exact_problem.message
        refusal = self.exact_refusal()
        if refusal is not None:
            return f"{refusal.message} (exact mode does not run a config the runtime refuses)"
        if self.exact is not None and self.exact.failure:
            return self.exact.failure
        return None

    # -- inputs -------------------------------------------------------------------------
    def _load(self, previous: Inputs | None) -> Inputs:
        exact = self.exact.install if self.exact is not None else None
        return load_inputs(
            self.workspace,
            self.snapshot,
            config=self.explicit_config,
            overrides=self.overrides,
            tokenizer=self.tokenizer,
            user_space=self.user_space,
            trusted=self.trusted,
            trust_store=self.trust_store,
            previous=previous,
            exact=(exact.version, str(exact.package)) if exact else None,
        )

    def with_profile(self, name: str) -> Inspector:
        """This inspector with the profile `name` in place of the one its scenario picks
        (sharing its snapshot and caches): a recorded run predicted with its release's
        rules. Raises `ProfileError` for an unknown name."""
        other = copy.copy(self)
        other.overrides = {**(self.overrides or {}), "profile": name}
        other.inputs = other._load(None)
        other.latest = None
        return other

    def reload(self) -> Inputs:
        """Re-read the config, the scenario file, the profile and the trust decision. Raises
        on unusable input (the caller keeps its last good build)."""
        self.inputs = self._load(self.inputs)
        return self.inputs

    @property
    def config(self) -> GatewayConfig:
        return self.inputs.config

    @property
    def scenario(self) -> Scenario:
        return self.inputs.scenario

    @property
    def profile(self) -> Profile:
        return self.inputs.profile

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Problems found reading the config and the scenario file (and why exact mode
        cannot run, when it was asked for)."""
        found = list(self.inputs.diagnostics)
        return [self.exact_problem, *found] if self.exact_problem else found

    @property
    def env_mask(self) -> EnvMask:
        """How this config's values from the environment are shown (see `show_env`)."""
        return EnvMask(self.inputs.config.env_strings, self.show_env)

    def shown(self, value: T) -> T:
        """A display copy of a result (session, spawn, diagnostics, explanations...) with
        values from the environment masked; the result itself when there are none."""
        shown: T = self.env_mask.value(value)
        return shown

    @property
    def script_cache(self) -> ScriptCache:
        return self.caches.scripts

    # -- the user's decisions and the watcher's news ------------------------------------
    def trust(self, key: str | None = None) -> None:
        """Remember that this workspace may run its context scripts: for `key`, the trust
        key of what the user was shown when asked (default: the current inputs' trust set).
        Cached script results are dropped: the next build runs the scripts. Raises OSError
        when the trust store cannot be written."""
        self.trust_store.trust(self.workspace, key or self.inputs.trust_set.key)
        self.caches.scripts.clear()

    def revoke(self) -> None:
        """Forget the remembered trust: context scripts no longer run (their cached results
        are dropped)."""
        self.trust_store.revoke(self.workspace)
        self.caches.scripts.clear()

    def rerun_scripts(self) -> None:
        """Drop the context scripts' cached results: the next build runs them again (when
        the workspace is trusted)."""
        self.caches.scripts.clear()

    def files_changed(self, paths: Iterable[str] | None) -> None:
        """A file watcher's batch of changed paths (None: anything may have changed)."""
        self.snapshot.changes.changed(paths)

    def watching(self, folders: Iterable[str | os.PathLike[str]]) -> None:
        """A file watcher now runs over `folders`: results read under them are kept until
        a change is reported there."""
        self.snapshot.changes.watching(folders)

    def watch_stopped(self) -> None:
        """No watcher runs (or a new one is not ready yet): every file is checked again."""
        self.snapshot.changes.stopped()

    # -- builds -------------------------------------------------------------------------
    def session(
        self,
        session_key: str | None = None,
        *,
        scripts: bool = False,
        run: RunIdentity | None = None,
    ) -> Session:
        """The session named by `session_key` (default: the requester's). With `scripts`, a
        subagent session's first message carries the scenario's context-script output around
        the task, as `spawn()` gives the child: trusted scripts run first; untrusted ones do
        not, and an info diagnostic says the message lacks their output. `run`: a recorded
        run's identity (`ctxscope.runs.identity`): its spawn's requester, label and depth,
        and in exact mode its session id, state folder and shell."""
        inputs = self.inputs
        key = session_key or inputs.scenario.requester_session_key
        if run is not None:
            sc = inputs.scenario
            spawn = (
                run.subagent(sc.task, inputs.max_spawn_depth(), sc.channel)
                if inputs.classify(key).kind == "subagent"
                else None
            )
            made = session_for(inputs, self.snapshot, session_key, subagent=spawn)
            return self._exact(made, run.helper_fields())
        if not scripts or inputs.classify(key).kind != "subagent":
            return self._exact(session_for(inputs, self.snapshot, session_key))
        outcome = self.run_scripts()
        task = outcome.apply_to_task(inputs.scenario.task)
        session = session_for(inputs, self.snapshot, session_key, task=task)
        session.diagnostics += outcome.diagnostics
        untrusted = sum(r.status == "not-run" for r in outcome.results)
        if untrusted:
            session.diagnostics.append(
                Diagnostic(
                    "info",
                    f"{untrusted} context script(s) not run (untrusted workspace): the first "
                    "user message lacks their output; --trust runs them",
                    inputs.config.path,
                    code="context-scripts-untrusted",
                )
            )
        return self._exact(session)

    def _exact(self, session: Session, run: dict[str, Any] | None = None) -> Session:
        """In exact mode, the runtime's own text for `session` (see `_exact_all`); `run`: a
        recorded run's identity for the runner."""
        return self._exact_all([session], [run])[0]

    def _exact_all(
        self, sessions: list[Session], runs: Sequence[dict[str, Any] | None] = ()
    ) -> list[Session]:
        """In exact mode, the runtime's own text for each of `sessions`, asked in one round
        trip. The runtime is asked about the folder as it is on disk, so files its first run
        would write are left out of the model it is compared with, and named in a note."""
        if self.exact is None:
            return sessions
        refusal = self.exact_refusal()
        if refusal is not None:
            note = Diagnostic(
                "warning",
                f"exact mode not run: {refusal.message}; showing ctxscope's model instead",
                refusal.path,
                refusal.line,
                code="exact-unavailable",
            )
            return [dataclasses.replace(s, diagnostics=[note, *s.diagnostics]) for s in sessions]
        self._measure_catalog()
        on_disk = [self._as_on_disk(s) for s in sessions]
        return self.exact.apply_all(on_disk, self.inputs.config, self.inputs.tokenizer, runs)

    def _as_on_disk(self, session: Session) -> Session:
        """`session` as the folder is on disk: without the files its first run would write
        (with a note naming them)."""
        seeded = [f.name for f in session.files if f.status == "first-run"]
        req = session.request
        if not seeded or not isinstance(req, SessionRequest):
            return session
        inputs = self.inputs
        plain = build_session(
            dataclasses.replace(req, first_run=False),
            inputs.profile,
            inputs.config,
            self.snapshot,
            inputs.tokenizer,
        )
        note = Diagnostic(
            "info",
            f"exact mode asks the runtime about the folder as it is: its first run would "
            f"also write {', '.join(seeded)} from its templates (see ctxscope's model "
            "without --exact)",
            session.workspace,
            code="first-run",
        )
        kept = [d for d in session.diagnostics if d.code != "first-run"]
        return dataclasses.replace(
            session,
            system_prompt=plain.system_prompt,
            sections=plain.sections,
            files=plain.files,
            tokens=plain.tokens,
            absent_sections=plain.absent_sections,
            diagnostics=[*kept, note],
        )

    def _measure_catalog(self) -> None:
        """Once per install, in exact mode: the runner's own default tool catalog, kept in the
        user's cache folder for every later build on that install (with or without exact
        mode); the release's recorded facts stand in until then."""
        from ctxscope.runtimes.openclaw import installedcatalog
        from ctxscope.runtimes.openclaw.exact import ExactError

        exact = self.exact
        if exact is None or exact.catalog_asked:
            return
        exact.catalog_asked = True
        package = str(exact.install.package)
        if exact.start() is not None or installedcatalog.is_measured(package):
            return
        if (exact.helper.ready or {}).get("strategy") != "runner":
            return
        try:
            raw = exact.helper.ask({"kind": "catalog"})
        except ExactError:
            return
        if raw.get("ok"):
            with contextlib.suppress(OSError):
                installedcatalog.save(package, exact.install.version, raw)

    def run_scripts(self) -> ScriptsOutcome:
        """Run the scenario's trusted context scripts into the cache (an app does this in the
        background, then rebuilds with `run_scripts=False`)."""
        return context_scripts(self.inputs, self.caches.scripts, execute=True)

    def spawn(self, *, run_scripts: bool = True) -> SpawnReport:
        """Simulate `sessions_spawn` for the scenario; trusted scripts run first unless
        `run_scripts=False` (then only their cached results are used)."""
        if run_scripts:
            self.run_scripts()
        spawn = simulate_spawn(self.inputs, self.snapshot, self.caches.scripts)
        self._exact_spawn(spawn)
        return spawn

    def _exact_spawn(self, spawn: SpawnReport) -> None:
        """In exact mode, the runtime's own text for both sides of `spawn`."""
        if self.exact is not None:
            spawn.requester, spawn.child = self._exact_all([spawn.requester, spawn.child])

    def thread(self) -> ThreadReport | None:
        """The Rye thread of the scenario's directive (None when it names none)."""
        thread = thread_for(self.inputs, self.snapshot, self.caches)
        self._save_caches()
        return thread

    def report(self, *, run_scripts: bool = True, thread: bool = True) -> Report:
        """Build everything the scenario asks for: requester, spawn + child, Rye thread
        (`thread` False: all but the thread, see `build_report`)."""
        if run_scripts:
            self.run_scripts()
        report = build_report(self.inputs, self.snapshot, self.caches, thread=thread)
        report.mask = self.env_mask
        if report.spawn is not None:
            self._exact_spawn(report.spawn)
            report.requester, report.child = report.spawn.requester, report.spawn.child
        self.latest = report
        self._save_caches()
        return self.latest

    def _save_caches(self) -> None:
        if self.caches.tools is not None:
            self.caches.tools.save()


def inspect(workspace: str | os.PathLike[str] = ".", **options: Any) -> Report:
    """Build a `Report` for `workspace`. Keyword options are those of `Inspector`, plus any
    scenario field (`requester`, `target`, `task`, `label`, `model`, `depth`, ...)."""
    inspector_keys = {
        "config",
        "tokenizer",
        "user_space",
        "trusted",
        "trust_store",
        "tool_cache",
        "tools",
        "exact",
        "runtime",
        "node",
        "show_env",
    }
    scenario = {k: v for k, v in options.items() if k not in inspector_keys}
    kwargs = {k: v for k, v in options.items() if k in inspector_keys}
    inspector = Inspector(workspace, scenario=scenario or None, **kwargs)
    try:
        return inspector.report()
    finally:
        inspector.close()
