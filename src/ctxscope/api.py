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

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.config import GatewayConfig
from ctxscope.inputs import (
    Caches,
    Inputs,
    WorkspaceError,
    env_user_space,
    load_inputs,
    resolve_workspace,
)
from ctxscope.model import Diagnostic, Session
from ctxscope.openclaw.profiles import Profile
from ctxscope.report import Report, build_report, thread_for
from ctxscope.rye.toolcache import ToolCache
from ctxscope.scenario import Scenario
from ctxscope.scripts import ScriptCache, ScriptsOutcome, TrustStore
from ctxscope.session import session_for
from ctxscope.snapshot import Snapshot
from ctxscope.spawn import SpawnReport, context_scripts, simulate_spawn
from ctxscope.tokens import Tokenizer, get_tokenizer

if TYPE_CHECKING:
    from ctxscope.rye import ThreadReport

__all__ = ["Inspector", "Report", "WorkspaceError", "env_user_space", "inspect"]


class Inspector:
    """Builds sessions, spawns and threads for one workspace, caching between builds.

    `scenario` maps scenario fields to values that override `WORKSPACE/ctxscope.yaml`
    (None values are ignored). `trust_store` and `tool_cache` default to the user's own
    (see `ctxscope.paths`). Raises `WorkspaceError`, `ConfigError` or `ProfileError` for
    unusable input.
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
    ) -> None:
        self.workspace = resolve_workspace(workspace)
        self.explicit_config = config
        self.overrides = scenario
        """Scenario fields that override `ctxscope.yaml`; read again by every `reload()`."""
        self.tokenizer: Tokenizer = get_tokenizer(tokenizer)
        self.user_space = Path(user_space) if user_space else env_user_space()
        self.trusted = trusted
        """Trust given for this run (`--trust`), on top of the user's remembered trust."""
        self.trust_store = trust_store or TrustStore()
        self.snapshot = Snapshot()
        self.caches = Caches(ScriptCache(), tool_cache or ToolCache.default(self.workspace))
        self.inputs: Inputs = self._load(None)
        self.latest: Report | None = None
        """The last report `report()` built."""

    # -- inputs -------------------------------------------------------------------------
    def _load(self, previous: Inputs | None) -> Inputs:
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
        )

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
        """Problems found reading the config and the scenario file."""
        return list(self.inputs.diagnostics)

    @property
    def script_cache(self) -> ScriptCache:
        return self.caches.scripts

    # -- builds -------------------------------------------------------------------------
    def session(self, session_key: str | None = None) -> Session:
        """The session named by `session_key` (default: the requester's)."""
        return session_for(self.inputs, self.snapshot, session_key)

    def run_scripts(self) -> ScriptsOutcome:
        """Run the scenario's trusted context scripts into the cache (an app does this in the
        background, then rebuilds with `run_scripts=False`)."""
        return context_scripts(self.inputs, self.caches.scripts, execute=True)

    def spawn(self, *, run_scripts: bool = True) -> SpawnReport:
        """Simulate `sessions_spawn` for the scenario; trusted scripts run first unless
        `run_scripts=False` (then only their cached results are used)."""
        if run_scripts:
            self.run_scripts()
        return simulate_spawn(self.inputs, self.snapshot, self.caches.scripts)

    def thread(self) -> ThreadReport | None:
        """The Rye thread of the scenario's directive (None when it names none)."""
        thread = thread_for(self.inputs, self.snapshot, self.caches)
        self._save_caches()
        return thread

    def report(self, *, run_scripts: bool = True) -> Report:
        """Build everything the scenario asks for: requester, spawn + child, Rye thread."""
        if run_scripts:
            self.run_scripts()
        self.latest = build_report(self.inputs, self.snapshot, self.caches)
        self._save_caches()
        return self.latest

    def _save_caches(self) -> None:
        if self.caches.tools is not None:
            self.caches.tools.save()


def inspect(workspace: str | os.PathLike[str] = ".", **options: Any) -> Report:
    """Build a `Report` for `workspace`. Keyword options are those of `Inspector`, plus any
    scenario field (`requester`, `target`, `task`, `label`, `model`, `depth`, ...)."""
    inspector_keys = {"config", "tokenizer", "user_space", "trusted", "trust_store", "tool_cache"}
    scenario = {k: v for k, v in options.items() if k not in inspector_keys}
    kwargs = {k: v for k, v in options.items() if k in inspector_keys}
    return Inspector(workspace, scenario=scenario or None, **kwargs).report()
