"""Pre-spawn context scripts (OpenClaw `sessions_spawn`, seed 000).

Scripts configured under `agents.defaults.subagents.contextScripts` (and the requester
agent's own `subagents.contextScripts`) run before a subagent is spawned. Their output is
prepended or appended to the task, and they may propose another target agent.

Entry point: `run_context_scripts(...)` → `ScriptsOutcome`. Pure apart from running the
scripts themselves; never imports the TUI.
"""

from __future__ import annotations

from ctxscope.scripts.cache import ScriptCache
from ctxscope.scripts.engine import run_context_scripts, run_entry
from ctxscope.scripts.model import (
    DEFAULT_TIMEOUT_MS,
    MAX_OUTPUT_BYTES,
    NOT_RUN_TEXT,
    VARIABLE_NAMES,
    OverrideCandidate,
    ScriptEntry,
    ScriptResult,
    ScriptsOutcome,
    ScriptStatus,
    SpawnVariables,
    apply_to_task,
)
from ctxscope.scripts.overrides import validate_agent_id
from ctxscope.scripts.parse import parse_output
from ctxscope.scripts.resolve import default_entries, resolve_entries
from ctxscope.scripts.trust import TrustStore, config_hash, trust_key

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "MAX_OUTPUT_BYTES",
    "NOT_RUN_TEXT",
    "VARIABLE_NAMES",
    "OverrideCandidate",
    "ScriptCache",
    "ScriptEntry",
    "ScriptResult",
    "ScriptStatus",
    "ScriptsOutcome",
    "SpawnVariables",
    "TrustStore",
    "apply_to_task",
    "config_hash",
    "default_entries",
    "parse_output",
    "resolve_entries",
    "run_context_scripts",
    "run_entry",
    "trust_key",
    "validate_agent_id",
]
