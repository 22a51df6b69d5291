"""The agent runtimes ctxscope models, by their profile's family: how each builds a session,
whether its sessions spawn subagents, and what it lets a user change. The one place a
runtime is chosen by family."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxscope.core.model import FileEntry, Session
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.goclaw.remedies import exclusion_remedies
from ctxscope.runtimes.goclaw.session import goclaw_session
from ctxscope.runtimes.openclaw.session import openclaw_session
from ctxscope.runtimes.openclaw.subagent import SubagentInfo
from ctxscope.runtimes.profiles import Profile

if TYPE_CHECKING:  # Inputs are made above the runtimes (ctxscope.inputs)
    from ctxscope.inputs import Inputs

SessionMaker = Callable[..., Session]
"""Builds a session: `(inputs, snapshot, session_key=None, *, subagent=None, model=None,
thinking=None, task=None)`, as `session_for` calls it."""


def _goclaw(
    inputs: Inputs,
    snapshot: Snapshot,
    session_key: str | None = None,
    *,
    subagent: SubagentInfo | None = None,
    task: str | None = None,
    **_config_decides: str | None,
) -> Session:
    """GoClaw's session (its builder takes no model or thinking level: the config's)."""
    return goclaw_session(inputs, snapshot, session_key, subagent=subagent is not None, task=task)


@record(frozen=True)
class Runtime:
    """One agent runtime as ctxscope models it."""

    family: str
    session: SessionMaker
    spawns: bool
    """Its sessions can spawn a subagent (`sessions_spawn`); else a spawn is refused and the
    child shown is a what-if view of its builder's subagent mode."""
    bootstrap_hooks: bool
    """A bootstrap hook can change the files a run loads (a remedy to name)."""
    exclusion_remedies: Callable[[Session, FileEntry], list[str]] | None
    """What would give a session a file the runtime's own rules left out, where it excludes
    by rules of its own rather than the profile's allowlists (None: by the allowlists)."""
    releases: bool
    """Its rules are modelled release by release: a recorded run is predicted with the rules
    of the release that recorded it."""


RUNTIMES = {
    "openclaw": Runtime("openclaw", openclaw_session, True, True, None, True),
    "goclaw": Runtime("goclaw", _goclaw, False, False, exclusion_remedies, False),
}


def runtime_of(profile: Profile) -> Runtime:
    """The runtime `profile` models (OpenClaw's for a family ctxscope does not know, which
    `profiles.unknown_family` reports)."""
    return RUNTIMES.get(profile.family, RUNTIMES["openclaw"])


def modelled_by_release(profile: Profile) -> bool:
    """`profile` is of a runtime whose rules are modelled release by release (a profile of
    no family, or of one ctxscope does not know, is taken as it is)."""
    runtime = RUNTIMES.get(profile.family)
    return runtime is not None and runtime.releases


def session_for(
    inputs: Inputs,
    snapshot: Snapshot,
    session_key: str | None = None,
    *,
    subagent: SubagentInfo | None = None,
    model: str | None = None,
    thinking: str | None = None,
    task: str | None = None,
) -> Session:
    """The session named by `session_key` (default: the requester's), built by the runtime
    the inputs' profile models.

    A subagent key with no `subagent` info gets one from the scenario (task, label,
    requester session, depth + 1 of the configured max); `task` replaces the scenario's
    task (the spawn's, with the context scripts' output around it)."""
    return runtime_of(inputs.profile).session(
        inputs, snapshot, session_key, subagent=subagent, model=model, thinking=thinking, task=task
    )
