"""Dataclasses of the context-scripts subsystem (OpenClaw `sessions_spawn` pre-spawn hooks)."""

from __future__ import annotations

import json
from dataclasses import field, replace
from pathlib import Path
from typing import Any, Literal

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.secrets import shown_text

Format = Literal["arguments", "json"]
Position = Literal["prepend", "append"]
LogLevel = Literal[False, True, "verbose"]
ErrorHandling = Literal["continue", "stop"]

ScriptStatus = Literal["ok", "empty", "error", "timeout", "not-run", "skipped", "pending"]
"""What happened to one script entry:

- `ok`: it ran and its content is injected (`output_truncated` says if the 1 MiB cap cut it);
- `empty`: it ran and had nothing to say (no output, or an empty extracted value): a no-op;
- `error`: it failed (could not start, non-zero exit, HTTP error, an error in its JSON, ...);
- `timeout`: it ran past its timeout and was killed (URL scripts: the request timed out);
- `not-run`: the workspace is not trusted, so it was not executed;
- `skipped`: an earlier script failed with `errorHandling: "stop"`.
"""

FAILED_STATUSES: frozenset[str] = frozenset({"error", "timeout"})

DEFAULT_TIMEOUT_MS = 10_000
MAX_OUTPUT_BYTES = 1024 * 1024
"""Script output (stdout or an HTTP body) is cut at 1 MiB and flagged."""

NOT_RUN_TEXT = "not run (untrusted workspace)"

VARIABLE_NAMES = (
    "targetAgentId",
    "task",
    "label",
    "requesterAgentId",
    "requesterSessionKey",
    "cleanup",
    "cfg",
)
"""The spawn variables an `argMap` value may name."""


@record
class SpawnVariables:
    """The spawn variables passed to context scripts, under the seed's names."""

    targetAgentId: str
    """The requested agent id, before any override."""
    task: str
    """The raw task, before any context-script injection."""
    label: str | None = None
    requesterAgentId: str = "main"
    requesterSessionKey: str | None = None
    cleanup: str | None = None
    """`"delete"`, `"keep"` or None."""
    cfg: dict[str, Any] = field(default_factory=dict)
    """The whole gateway config."""

    def to_vars(self) -> dict[str, Any]:
        """The variables by their seed names (None = undefined)."""
        return {name: getattr(self, name) for name in VARIABLE_NAMES}


@record(frozen=True)
class ScriptEntry:
    """One validated `contextScripts.run[]` entry, defaults applied."""

    id: str
    uri: str
    format: Format = "arguments"
    method: str = "GET"
    priority: float = 0
    position: Position = "append"
    log: LogLevel = False
    error_handling: ErrorHandling = "continue"
    return_key: str | None = None
    error_key: str | None = None
    agent_id_override_key: str | None = None
    arg_map: tuple[tuple[str, str], ...] = ()
    """(argument name, variable name) pairs in config order."""
    timeout_ms: float = DEFAULT_TIMEOUT_MS
    source: str = ""
    """The JSON path of the entry in the config, e.g. `agents.list[0].subagents...run[1]`."""
    raw: str = "{}"
    """The entry exactly as configured, as canonical JSON (part of the cache key)."""

    @property
    def is_url(self) -> bool:
        return self.uri.lower().startswith(("http://", "https://"))

    @property
    def shown_uri(self) -> str:
        """The uri as every face shows it: a URL's password and secret query values masked."""
        return shown_text(self.uri)

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000


@record
class ScriptResult:
    """What one entry did, in execution order."""

    id: str
    uri: str
    priority: float
    position: Position
    status: ScriptStatus
    chars: int = 0
    """Characters of injected content (0 unless `ok`)."""
    duration_ms: float = 0.0
    """Wall time of the run that produced this result (for a cached result: the original run)."""
    output: str | None = None
    """The content injected into the task (None unless `ok`)."""
    error: str | None = None
    override: str | None = None
    """The agent id this script proposed (trimmed), valid or not."""
    log_lines: list[str] = field(default_factory=list)
    cached: bool = False
    output_truncated: bool = False
    raw_output: str | None = None
    """What the script printed (stripped), before the JSON pipeline."""
    source: str = ""
    """The entry's JSON path in the config."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """A short human text for the status."""
        if self.status == "not-run":
            return NOT_RUN_TEXT
        if self.status == "skipped":
            return "skipped (an earlier script stopped the run)"
        if self.status == "pending":
            return "pending (not run yet)"
        if self.status == "empty":
            return "no output (no-op)"
        if self.status == "ok":
            return f"{self.chars} chars" + (
                " (output cut at 1 MiB)" if self.output_truncated else ""
            )
        return self.error or self.status

    def to_dict(self) -> dict[str, Any]:
        """The `scripts[]` item of `ctxscope spawn --format json`."""
        return {
            "id": self.id,
            "uri": self.uri,
            "priority": self.priority,
            "position": self.position,
            "status": self.status,
            "chars": self.chars,
            "duration_ms": round(self.duration_ms, 3),
            "output": self.output,
            "error": self.error,
            "override": self.override,
        }

    def as_cached(self) -> ScriptResult:
        return replace(
            self, cached=True, log_lines=list(self.log_lines), diagnostics=list(self.diagnostics)
        )


@record(frozen=True)
class OverrideCandidate:
    """An `agentIdOverride` proposed by one script."""

    script_id: str
    agent_id: str
    """The proposed id, trimmed and case-folded."""
    priority: float
    valid: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "script_id": self.script_id,
            "agent_id": self.agent_id,
            "priority": self.priority,
            "valid": self.valid,
            "reason": self.reason,
        }


@record
class ScriptsOutcome:
    """Everything the context scripts of one spawn did."""

    results: list[ScriptResult] = field(default_factory=list)
    prepend: str = ""
    append: str = ""
    candidates: list[OverrideCandidate] = field(default_factory=list)
    winner: OverrideCandidate | None = None
    log_lines: list[str] = field(default_factory=list)
    stopped_by: str | None = None
    """The id of the script whose failure (with `errorHandling: "stop"`) ended the run."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def target_override(self) -> str | None:
        """The agent id the spawn should use instead of the requested one, if any."""
        return self.winner.agent_id if self.winner else None

    def apply_to_task(self, task: str) -> str:
        return apply_to_task(task, self.prepend, self.append)

    def override_dict(self) -> dict[str, Any]:
        """The `override` object of `ctxscope spawn --format json`."""
        return {
            "candidates": [c.to_dict() for c in self.candidates],
            "winner": self.winner.to_dict() if self.winner else None,
        }

    def to_dicts(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.results]


def apply_to_task(task: str, prepend: str, append: str) -> str:
    """`prepend + "\\n\\n" + task + "\\n\\n" + append`, leaving out empty parts."""
    return "\n\n".join(part for part in (prepend, task, append) if part)


def canonical_json(value: Any) -> str:
    """Stable JSON for cache keys and hashing."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def resolve_path(uri: str, config_dir: Path) -> Path:
    """`~` expanded; a relative path is taken from the config file's folder."""
    path = Path(uri).expanduser()
    return path if path.is_absolute() else config_dir / path
