"""What a side of a comparison is: where its files come from and how to load them
(`SideSource`), what both sides start from (`Base`), and the error a spec that names no side
raises. `sides.py` turns a spec into one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from ctxscope.core.record import record


class SideError(Exception):
    """A spec that names no side, or a side that cannot be read; the message says which."""


@record
class Base:
    """What both sides start from: the workspace and the command's own choices."""

    workspace: Path
    config: str | None = None
    """`--config`, when given (absolute)."""
    overrides: dict[str, Any] = field(default_factory=dict)
    """Scenario fields from the command line."""
    state: str | None = None
    """OpenClaw's state folder for a recorded run's side (`--state`; None: as `ctxscope
    runs` finds it)."""


@record
class SideSource:
    """Where a side's files are and how to load them."""

    spec: str
    kind: str
    """`now`, `git`, `profile`, `config`, `scenario` or `run` (a resolver's name)."""
    label: str
    """The side in words: `HEAD~1 (3f2a9c1d0e4b)`, `profile openclaw-2026.9`, ..."""
    workspace: Path
    config: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    scenario_file: Path | None = None
    """A scenario file read instead of `WORKSPACE/ctxscope.yaml`."""
    revision: Any = None
    """A git side's `gitside.Revision` (its files are extracted by `opened`)."""
    scratch: Path | None = None
    """The scratch folder a git side's files were written to (removed on close)."""
    notes: list[str] = field(default_factory=list)
    """What the reader should know about this side's figures."""
    session_key: str | None = None
    """The one session the side holds (a recorded run's key): the other side builds that
    session only."""
    build: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    """For a side whose sessions come from elsewhere than a workspace build (a recorded
    run): `build(side, session_key=, tokenizer=, user_space=) -> SideBuild`, called by
    `build_side` instead of the engine."""
