"""One build of the app's state, made off the UI thread.

`Builder.build()` reloads the inspector's inputs and produces a `Build` (the report plus what
the panels need: limits, trust, agent ids, folders to watch). Unusable input raises
`BuildError` carrying a diagnostic, so the app can keep its last good build. No Textual here.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.api import Inspector, Report, WorkspaceError
from ctxscope.config import ConfigError, normalize_agent_id
from ctxscope.model import Diagnostic, Session
from ctxscope.openclaw.profiles import ProfileError
from ctxscope.openclaw.prompt import budget_limits
from ctxscope.scripts import resolve_entries
from ctxscope.scripts.run import resolve_path
from ctxscope.spawn import is_trusted

FROZEN_CHILD_ID = "00000000-0000-4000-8000-000000000000"
"""The child session id used when the app runs frozen (snapshots, tests)."""


class BuildError(Exception):
    """The inputs cannot be built (bad config, profile or workspace); carries a diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


@dataclass
class Limits:
    """Bootstrap character budgets in force (None: the profile does not truncate)."""

    max_chars: int | None = 20_000
    total_max_chars: int | None = 150_000


@dataclass
class Build:
    """What one rebuild produced, read-only for the UI."""

    report: Report
    limits: Limits
    trusted: bool
    scripts_pending: bool = False
    """True when trusted context scripts have not run yet (their results are not cached)."""
    agent_ids: list[str] = field(default_factory=list)
    directives: list[str] = field(default_factory=list)
    watch_paths: list[Path] = field(default_factory=list)
    duration_ms: float = 0.0
    number: int = 0

    @property
    def child(self) -> Session | None:
        """The subagent session of the spawn simulation."""
        return self.report.child

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.report.all_diagnostics


class Builder:
    """Owns an `Inspector` and serialises its builds (they run in threads).

    A build never runs context scripts, which can be slow: it takes their cached results and
    shows the rest as pending. `run_scripts()` fills the cache in the background, outside the
    build lock so that edits keep rebuilding meanwhile, and then builds with the results.
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

    def set_edits(self, edits: dict[str, Any]) -> None:
        """Replace the app's scenario edits (None or "" values drop an edit)."""
        self.edits = {k: v for k, v in edits.items() if v not in (None, "")}

    def overrides(self) -> dict[str, Any]:
        return {"child_id": self.child_id, **self.base_overrides, **self.edits}

    def _reload(self) -> Inspector:
        ins = self.inspector
        ins.overrides = self.overrides()
        try:
            ins.reload()
        except (ConfigError, ProfileError) as exc:
            raise BuildError(exc.diagnostic) from None
        except WorkspaceError as exc:
            raise BuildError(
                Diagnostic("error", str(exc), str(ins.workspace), code="workspace-missing")
            ) from None
        return ins

    def build(self, *, cancelled: Callable[[], bool] = lambda: False) -> Build | None:
        """Reload and build with cached script results. None when `cancelled()` turned true
        before the build started."""
        with self.lock:
            if cancelled():
                return None
            start = time.perf_counter()
            ins = self._reload()
            report = ins.report(run_scripts=False)
            self.counter += 1
            return self._finish(ins, report, start)

    def run_scripts(self, *, cancelled: Callable[[], bool] = lambda: False) -> Build | None:
        """Run the context scripts into the cache, then build with their results."""
        self.inspector.run_scripts()
        return self.build(cancelled=cancelled)

    def _finish(self, ins: Inspector, report: Report, start: float) -> Build:
        spawn = report.spawn
        return Build(
            report=report,
            limits=Limits(*budget_limits(ins.profile, ins.config)),
            trusted=bool(spawn.trusted) if spawn is not None else is_trusted(ins),
            scripts_pending=spawn is not None and spawn.scripts_pending,
            agent_ids=_agent_ids(ins),
            directives=_directives(ins),
            watch_paths=watch_folders(ins),
            duration_ms=(time.perf_counter() - start) * 1000,
            number=self.counter,
        )


def _agent_ids(ins: Inspector) -> list[str]:
    ids = list(ins.config.agent_ids())
    for extra in (ins.scenario.requester, ins.scenario.target_agent):
        if extra and extra not in ids:
            ids.append(extra)
    return ids


def _directives(ins: Inspector) -> list[str]:
    try:
        from ctxscope.rye import list_directives

        return list_directives(ins.workspace, ins.user_space, snapshot=ins.snapshot)
    except Exception:
        return []


def watch_folders(ins: Inspector) -> list[Path]:
    """Folders whose changes can change the build: the workspace, the config's folder, agent
    workspaces, the Rye user space and the context scripts' folders. Nested ones are dropped."""
    found: list[Path] = [ins.workspace]
    if ins.config.folder is not None:
        found.append(ins.config.folder)
    for agent_id in _agent_ids(ins):
        found.append(ins.workspace_for(agent_id))
    if ins.user_space is not None:
        found.append(Path(ins.user_space))
    found += _script_folders(ins)
    return _outermost([p for p in found if p.is_dir()])


def _script_folders(ins: Inspector) -> list[Path]:
    folder = ins.config.folder or ins.workspace
    out: list[Path] = []
    entries, _ = resolve_entries(ins.config.data, normalize_agent_id(ins.scenario.requester))
    for entry in entries:
        if not entry.is_url:
            out.append(resolve_path(entry.uri, folder).parent)
    return out


def _outermost(paths: list[Path]) -> list[Path]:
    resolved = sorted({Path(p).absolute() for p in paths}, key=lambda p: len(p.parts))
    out: list[Path] = []
    for p in resolved:
        if not any(p == q or q in p.parents for q in out):
            out.append(p)
    return out
