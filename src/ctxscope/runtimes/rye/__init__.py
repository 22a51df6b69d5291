"""The Rye layered-context engine: directives, extends chains, hooks, knowledge tiers and the
tool palette. Pure: reads files through a `Snapshot`, never runs tool files.

This package is Rye's one door: the rest of ctxscope imports the names below from
`ctxscope.runtimes.rye`, never one of its modules (an import contract holds it). Each is
imported on first use, so a command that builds no Rye thread never loads the engine.

- a thread: `scenario_thread` (under the scenario's Rye options; `RyeOptionError` for a bad
  one), `build_thread`, its result `ThreadReport`, the spaces a workspace has (`spaces_for`);
- a space's items: `list_directives`, `explain_item`, `check_space` and the app's
  `check_space_cancellable` and `kept_space_check`;
- its profiles: `profile_names`, `DEFAULT_PROFILE`; the system tier's measure
  (`measured_from`);
- where tool metadata comes from: `ToolSource`, `Serial`, `for_program`, `ToolCache`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxscope.runtimes.rye.build import RyeOptionError, scenario_thread
    from ctxscope.runtimes.rye.measured import measured_from
    from ctxscope.runtimes.rye.semantics import DEFAULT as DEFAULT_PROFILE
    from ctxscope.runtimes.rye.semantics import names as profile_names
    from ctxscope.runtimes.rye.space import (
        check_space,
        check_space_cancellable,
        explain_item,
        kept_space_check,
        list_directives,
    )
    from ctxscope.runtimes.rye.thread import build_thread
    from ctxscope.runtimes.rye.threadreport import ThreadReport
    from ctxscope.runtimes.rye.tiers import spaces_for
    from ctxscope.runtimes.rye.toolcache import ToolCache
    from ctxscope.runtimes.rye.toolsource import Serial, ToolSource, for_program

_HOME = {
    "DEFAULT_PROFILE": ("semantics", "DEFAULT"),
    "RyeOptionError": ("build", "RyeOptionError"),
    "Serial": ("toolsource", "Serial"),
    "ThreadReport": ("threadreport", "ThreadReport"),
    "ToolCache": ("toolcache", "ToolCache"),
    "ToolSource": ("toolsource", "ToolSource"),
    "build_thread": ("thread", "build_thread"),
    "check_space": ("space", "check_space"),
    "check_space_cancellable": ("space", "check_space_cancellable"),
    "explain_item": ("space", "explain_item"),
    "for_program": ("toolsource", "for_program"),
    "kept_space_check": ("space", "kept_space_check"),
    "list_directives": ("space", "list_directives"),
    "measured_from": ("measured", "measured_from"),
    "profile_names": ("semantics", "names"),
    "scenario_thread": ("build", "scenario_thread"),
    "spaces_for": ("tiers", "spaces_for"),
}
"""Each public name: (its module in this package, its name there)."""

__all__ = [
    "DEFAULT_PROFILE",
    "RyeOptionError",
    "Serial",
    "ThreadReport",
    "ToolCache",
    "ToolSource",
    "build_thread",
    "check_space",
    "check_space_cancellable",
    "explain_item",
    "for_program",
    "kept_space_check",
    "list_directives",
    "measured_from",
    "profile_names",
    "scenario_thread",
    "spaces_for",
]


def __getattr__(name: str) -> Any:
    """The public names, imported on first use."""
    if name in _HOME:
        module, attr = _HOME[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
