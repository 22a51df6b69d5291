"""A recorded run's identity, for exact mode to build the session as the run had it: what the
runtime's prompt names that is the run's own and not the workspace's (its session id, the
spawn's requester and label, the state folder in the paths of its plugins' skills, the shell
on the Runtime line), read from the record, the state folder and this machine.

The prompt OpenClaw hashes (`systemPrompt.hash`) also holds the Runtime line's host, os and
node, which the runtime reads from the machine it runs on: exact mode's runtime runs on this
machine, which is the gateway's when the state folder is local. The spawn's task is not in the
record; in 2026.9 it reaches the child in its first message, not in the hashed prompt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxscope.core.record import record
from ctxscope.infra.paths import home
from ctxscope.runs.recorded import RecordedRun
from ctxscope.runtimes.openclaw.subagent import SubagentInfo

SHELL_VARIABLES = ("OPENCLAW_SHELL", "SHELL")
"""Where the runtime reads the Runtime line's `shell=` (the first set wins)."""


@record(frozen=True)
class RunIdentity:
    """What exact mode hands the runtime for one recorded run."""

    session_key: str
    session_id: str | None
    state_shown: str | None
    """The state folder as the gateway's prompt shows it (`~/…` inside the home folder);
    None: not known."""
    shell: tuple[tuple[str, str], ...] = ()
    """The shell variables the gateway is taken to have had: ctxscope's own."""
    label: str | None = None
    spawned_by: str | None = None
    spawn_depth: int | None = None

    def helper_fields(self) -> dict[str, Any]:
        """The `run` part of exact mode's request."""
        return {
            "sessionId": self.session_id,
            "stateDir": self.state_shown,
            "shell": dict(self.shell),
        }

    def subagent(self, task: str, max_depth: int, channel: str | None) -> SubagentInfo | None:
        """The spawn as the record names it (requester, label, depth); `task` stands in for
        the one the record lacks. None for a session no session spawned."""
        if not self.spawned_by:
            return None
        return SubagentInfo(
            task=task,
            label=self.label,
            requester_session_key=self.spawned_by,
            child_session_key=self.session_key,
            depth=self.spawn_depth or 1,
            max_depth=max_depth,
            requester_channel=channel,
        )


def shown_state(state: str | os.PathLike[str], mine: Path | None = None) -> str:
    """The state folder as the runtime writes it into a prompt path: `~/…` when it lies in the
    home folder (`mine`, default the user's), else its absolute path."""
    folder = os.path.normpath(os.path.abspath(state))
    base = os.path.normpath(str(mine if mine is not None else home()))
    if folder.startswith(base.rstrip(os.sep) + os.sep):
        return "~" + folder[len(base.rstrip(os.sep)) :]
    return folder


def identity_of(
    run: RecordedRun,
    state: str | os.PathLike[str] | None,
    env: Mapping[str, str],
) -> RunIdentity:
    """`run`'s identity: its key, session id, spawn (from the record) and state folder; the
    shell variables from `env` (the environment the session is built in)."""
    session_id = run.figure("sessionId")
    return RunIdentity(
        session_key=run.session_key,
        session_id=session_id if isinstance(session_id, str) and session_id else None,
        state_shown=shown_state(state) if state is not None else None,
        shell=tuple((n, env[n]) for n in SHELL_VARIABLES if env.get(n)),
        label=run.label,
        spawned_by=run.spawned_by,
        spawn_depth=run.spawn_depth,
    )


__all__ = ["RunIdentity", "identity_of", "shown_state"]
