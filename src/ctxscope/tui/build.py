"""One build of the app's state, made off the UI thread.

`Builder.build()` reloads the inspector's inputs and produces a `Build` (the report plus what
the panels need: limits, trust, agent ids, folders to watch). Unusable input raises
`BuildError` carrying a diagnostic, so the app can keep its last good build. No Textual here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.api import Inspector, Report, WorkspaceError
from ctxscope.config import ConfigError, int_setting, normalize_agent_id
from ctxscope.model import Diagnostic, Session
from ctxscope.openclaw.profiles import ProfileError
from ctxscope.openclaw.sessions import child_session_key
from ctxscope.scripts import ScriptEntry, resolve_entries
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
    """Bootstrap character budgets from the config."""

    max_chars: int = 20_000
    total_max_chars: int = 150_000


@dataclass
class Build:
    """What one rebuild produced, read-only for the UI."""

    report: Report
    child: Session | None
    """The subagent session (from the spawn simulation, or a preview without it)."""
    child_preview: bool
    """True when `child` was built directly because no spawn simulation ran."""
    limits: Limits
    trusted: bool
    scripts_pending: bool = False
    """True when scripts are configured and trusted but this build did not run them yet."""
    agent_ids: list[str] = field(default_factory=list)
    directives: list[str] = field(default_factory=list)
    watch_paths: list[Path] = field(default_factory=list)
    script_entries: list[ScriptEntry] = field(default_factory=list)
    """The requester's context-script entries (shown as "running…" while they run)."""
    duration_ms: float = 0.0
    number: int = 0

    @property
    def diagnostics(self) -> list[Diagnostic]:
        out = list(self.report.all_diagnostics)
        if self.child is not None and self.child_preview:
            out += [d for d in self.child.diagnostics if d not in out]
        return out


class Builder:
    """Owns an `Inspector` and serialises every use of it (builds run in threads).

    Scripts can be slow, so a build whose scripts would run is split in two: `build()` returns
    at once a build without the spawn simulation (`scripts_pending`), and `full_build()` —
    run on a twin inspector, so it never holds up the next fast build — adds it.
    """

    def __init__(self, inspector: Inspector, *, frozen: bool = False) -> None:
        self.inspector = inspector
        self.frozen = frozen
        self.lock = threading.Lock()
        self.edits: dict[str, Any] = {}
        """Scenario fields edited in the app; they survive reloads of `ctxscope.yaml`."""
        self.base_overrides: dict[str, Any] = dict(inspector.overrides or {})
        self.counter = 0
        self.target_hint: tuple[str, str] | None = None
        """(requested target, final target) of the last spawn: the fast child's guess."""
        self._twin: Builder | None = None

    def set_edits(self, edits: dict[str, Any]) -> None:
        """Replace the app's scenario edits (None or "" values drop an edit)."""
        self.edits = {k: v for k, v in edits.items() if v not in (None, "")}

    def overrides(self) -> dict[str, Any]:
        out = {**self.base_overrides, **self.edits}
        if self.frozen and not out.get("child_id"):
            out["child_id"] = FROZEN_CHILD_ID
        return out

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

    def build(
        self, *, cancelled: Callable[[], bool] = lambda: False, defer_scripts: bool = True
    ) -> Build | None:
        """Reload and build. When scripts would run and `defer_scripts`, the spawn is left
        out (`scripts_pending`). None when `cancelled()` turned true before the build."""
        with self.lock:
            if cancelled():
                return None
            start = time.perf_counter()
            ins = self._reload()
            pending = defer_scripts and scripts_wanted(ins)
            if pending:
                report = Report(
                    str(ins.workspace),
                    ins.config.path,
                    ins.scenario,
                    ins.session(),
                    thread=ins.thread(),
                    diagnostics=list(ins.diagnostics),
                )
                child, preview = self._fast_child(ins), True
            else:
                report = ins.report()
                child, preview = report.child, False
                if report.spawn is not None:
                    self.target_hint = (ins.scenario.target_agent, report.spawn.target_agent_id)
            self.counter += 1
            return self._finish(ins, report, child, preview, pending, start)

    def full_build(self, *, cancelled: Callable[[], bool] = lambda: False) -> Build | None:
        """The complete build, context scripts included, on a twin inspector."""
        twin = self.twin()
        twin.edits = dict(self.edits)
        result = twin.build(cancelled=cancelled, defer_scripts=False)
        if result is not None:
            self.target_hint = twin.target_hint
            result.number = self.counter
        return result

    def twin(self) -> Builder:
        """A second builder over a fresh inspector sharing the script cache."""
        if self._twin is None:
            ins = self.inspector
            try:
                other = Inspector(
                    ins.workspace,
                    config=ins.explicit_config,
                    scenario=self.overrides(),
                    user_space=ins.user_space,
                    trusted=ins.trusted,
                )
            except (ConfigError, ProfileError) as exc:
                raise BuildError(exc.diagnostic) from None
            except WorkspaceError as exc:
                raise BuildError(
                    Diagnostic("error", str(exc), str(ins.workspace), code="workspace-missing")
                ) from None
            other.tokenizer = ins.tokenizer
            other.script_cache = ins.script_cache
            self._twin = Builder(other, frozen=self.frozen)
            self._twin.base_overrides = dict(self.base_overrides)
        return self._twin

    def _fast_child(self, ins: Inspector) -> Session | None:
        sc = ins.scenario
        target = sc.target_agent
        if self.target_hint and self.target_hint[0] == target:
            target = self.target_hint[1]
        try:
            return ins.session(child_session_key(ins.profile, target, sc.child_id))
        except Exception:  # a preview is best effort; the full build reports real errors
            return None

    def _finish(
        self,
        ins: Inspector,
        report: Report,
        child: Session | None,
        preview: bool,
        pending: bool,
        start: float,
    ) -> Build:
        spawn = report.spawn
        return Build(
            report=report,
            child=child,
            child_preview=preview,
            limits=Limits(
                int_setting(ins.config, "bootstrapMaxChars", 20_000),
                int_setting(ins.config, "bootstrapTotalMaxChars", 150_000),
            ),
            trusted=bool(spawn.trusted) if spawn is not None else is_trusted(ins),
            scripts_pending=pending,
            script_entries=resolve_entries(
                ins.config.data, normalize_agent_id(ins.scenario.requester)
            )[0],
            agent_ids=_agent_ids(ins),
            directives=_directives(ins),
            watch_paths=watch_folders(ins),
            duration_ms=(time.perf_counter() - start) * 1000,
            number=self.counter,
        )


def scripts_wanted(ins: Inspector) -> bool:
    """True when the requester has context scripts and the workspace is trusted."""
    entries, _ = resolve_entries(ins.config.data, normalize_agent_id(ins.scenario.requester))
    return bool(entries) and is_trusted(ins)


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
