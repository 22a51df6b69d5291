"""Pre-spawn context scripts (run by OpenClaw's `sessions_spawn` before a subagent starts).

Scripts configured under `agents.defaults.subagents.contextScripts` (and the requester
agent's own `subagents.contextScripts`) run before a subagent is spawned. Their output is
prepended or appended to the task, and they may propose another target agent.

Entry point: `run_context_scripts(...)` → `ScriptsOutcome`. Pure apart from running the
scripts themselves; never imports the TUI.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxscope.scripts.cache import ScriptCache
    from ctxscope.scripts.engine import run_context_scripts, run_entry
    from ctxscope.scripts.entries import (
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
    from ctxscope.scripts.trust import TrustSet, TrustStore, config_hash, trust_set

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
    "TrustSet",
    "TrustStore",
    "apply_to_task",
    "config_hash",
    "default_entries",
    "parse_output",
    "resolve_entries",
    "run_context_scripts",
    "run_entry",
    "trust_set",
    "validate_agent_id",
]

_HOME = {
    "DEFAULT_TIMEOUT_MS": "ctxscope.scripts.entries",
    "MAX_OUTPUT_BYTES": "ctxscope.scripts.entries",
    "NOT_RUN_TEXT": "ctxscope.scripts.entries",
    "OverrideCandidate": "ctxscope.scripts.entries",
    "ScriptCache": "ctxscope.scripts.cache",
    "ScriptEntry": "ctxscope.scripts.entries",
    "ScriptResult": "ctxscope.scripts.entries",
    "ScriptStatus": "ctxscope.scripts.entries",
    "ScriptsOutcome": "ctxscope.scripts.entries",
    "SpawnVariables": "ctxscope.scripts.entries",
    "TrustSet": "ctxscope.scripts.trust",
    "TrustStore": "ctxscope.scripts.trust",
    "VARIABLE_NAMES": "ctxscope.scripts.entries",
    "apply_to_task": "ctxscope.scripts.entries",
    "config_hash": "ctxscope.scripts.trust",
    "default_entries": "ctxscope.scripts.resolve",
    "parse_output": "ctxscope.scripts.parse",
    "resolve_entries": "ctxscope.scripts.resolve",
    "run_context_scripts": "ctxscope.scripts.engine",
    "run_entry": "ctxscope.scripts.engine",
    "trust_set": "ctxscope.scripts.trust",
    "validate_agent_id": "ctxscope.scripts.overrides",
}


def __getattr__(name: str) -> Any:
    """The public names, imported on first use: a command that runs no script (`render`)
    loads only the parts it needs (not the runner and its subprocess machinery)."""
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'ctxscope.scripts' has no attribute {name!r}")
