"""No process a context script starts outlives it, and no other process is touched.

A script runs in its own process group, which is killed when it ends; but a descendant that
calls `setsid()` leaves that group, and one whose parent exits is re-parented. On Linux two
more nets catch those:

- every run carries a token in its environment (`RUN_ENV`), inherited by all descendants that
  do not scrub their environment; after the run, every process holding the token is killed;
- ctxscope makes itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), so orphans of a
  script are re-parented to ctxscope instead of init; after the run, the orphans started since
  the run began are killed and reaped.

An orphan is told from ctxscope's own children by the registry (`ctxscope.infra.processes`: every
process ctxscope starts), and from the children of the program ctxscope runs in (a user of
the Python API starting processes on another thread meanwhile) by its session. A direct
child of ours is in our session, or leads its own (`setsid()` after the fork). A script runs
in a session of its own, which its descendants leave only by `setsid()`: a re-parented one is
in the script's session, or in one whose leader has exited (a double fork after `setsid()`),
never in ours. One that leads its own session and scrubbed its environment looks like a
child of ours, and is left alone. A process carrying another run's token, or in the session
of a script still running, is left to that run.

Elsewhere only the process group is killed.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

from ctxscope.infra import processes

RUN_ENV = "CTXSCOPE_SCRIPT_RUN"
PR_SET_CHILD_SUBREAPER = 36
SWEEPS = 5
"""Kill rounds per run: a descendant caught mid-fork leaves a new orphan for the next round."""
ROLE = "script"
"""The scripts' role in `ctxscope.infra.processes`."""

_lock = threading.Lock()
_runs: set[str] = set()
"""The tokens of the runs going on."""
_subreaper: bool | None = None


def enable_subreaper() -> bool:
    """Make this process the subreaper of its descendants (once; False where unsupported)."""
    global _subreaper
    with _lock:
        if _subreaper is None:
            _subreaper = False
            if sys.platform.startswith("linux"):
                import ctypes  # only once a script runs

                with contextlib.suppress(OSError, AttributeError):
                    libc = ctypes.CDLL(None, use_errno=True)
                    _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        return _subreaper


def started(token: str) -> None:
    """A run begins (its script is registered in `ctxscope.infra.processes` as `ROLE`)."""
    with _lock:
        _runs.add(token)


def finished(token: str) -> None:
    with _lock:
        _runs.discard(token)


def kill_running() -> None:
    """Kill every script still running, with its process group (the app is quitting)."""
    for pid in processes.running(ROLE):
        processes.stop(pid, group=True, reap=False)  # the script's run waits for it


def boot_ticks() -> int:
    """Now, in the clock ticks since boot that `/proc/PID/stat` start times use."""
    try:
        with open("/proc/uptime") as fh:
            return int(float(fh.read().split()[0]) * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0


def sweep(token: str, since_ticks: int, script: int) -> int:
    """Kill what the run `token` of the script `script`, which has ended, left behind;
    returns how many processes were killed."""
    if not os.path.isdir("/proc"):
        return 0
    run = _Run(token, since_ticks, script)
    killed = 0
    for _ in range(SWEEPS):
        victims = [pid for pid in _pids() if run.left(pid)]
        if not victims:
            break
        for pid in victims:
            killed += processes.stop(pid, reap=False)  # not ours to wait for: `_reap`
        _reap(victims)
    return killed


class _Run:
    """One finished run, and what tells its leftovers (see the module's text)."""

    def __init__(self, token: str, since_ticks: int, script: int) -> None:
        self.token, self.since = token, since_ticks
        self.me = os.getpid()
        mine = processes.stat(self.me)
        self.session = mine.session if mine else self.me
        self.others = set(processes.running(ROLE)) - {script}
        """The scripts still running: the sessions they lead are theirs."""

    def left(self, pid: int) -> bool:
        """Whether `pid` is something this run left behind."""
        stat = processes.stat(pid)
        if pid == self.me or stat is None or stat.state == "Z":
            return False
        if processes.owns(pid, stat.start):
            return False
        held = _token(pid)
        if held == self.token:
            return True
        with _lock:
            if held in _runs:  # another run's, swept when that one ends
                return False
        if not _subreaper or stat.ppid != self.me or stat.start < self.since:
            return False
        if stat.session in (self.session, pid):  # a child of ours, not a script's orphan
            return False
        return stat.session not in self.others


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _token(pid: int) -> str | None:
    """The run token in the process's environment, if it has one."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            environ = fh.read()
    except OSError:
        return None
    key = f"{RUN_ENV}=".encode()
    for entry in environ.split(b"\0"):
        if entry.startswith(key):
            return entry[len(key) :].decode(errors="replace")
    return None


def _reap(pids: list[int]) -> None:
    """Collect the killed processes that are our children (orphans handed to the subreaper),
    so none is left a zombie; waits at most a second."""
    pending = set(pids)
    deadline = time.monotonic() + 1.0
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not ours (init or another parent reaps it)
                pending.discard(pid)
                continue
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.01)
