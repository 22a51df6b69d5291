"""The Rye layered-context engine: directives, extends chains, hooks, knowledge
tiers and the tool palette. Pure: reads files through a `Snapshot`, never runs tool files.

Public API: `build_thread`, `ThreadReport`, `list_directives`, `explain_item`, `check_space`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxscope.runtimes.rye.space import check_space, explain_item, list_directives
    from ctxscope.runtimes.rye.thread import build_thread
    from ctxscope.runtimes.rye.threadreport import ThreadReport

__all__ = ["ThreadReport", "build_thread", "check_space", "explain_item", "list_directives"]

_HOME = {
    "ThreadReport": "ctxscope.runtimes.rye.threadreport",
    "build_thread": "ctxscope.runtimes.rye.thread",
    "check_space": "ctxscope.runtimes.rye.space",
    "explain_item": "ctxscope.runtimes.rye.space",
    "list_directives": "ctxscope.runtimes.rye.space",
}


def __getattr__(name: str) -> Any:
    """The public names, imported on first use: a command that builds no Rye thread never
    pays for importing the engine."""
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'ctxscope.runtimes.rye' has no attribute {name!r}")
