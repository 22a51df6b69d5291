"""No process a context script starts outlives it.

A script runs in its own process group, which is killed when it ends; but a descendant that
calls `setsid()` leaves that group, and one whose parent exits is re-parented. On Linux two
more nets catch those:

- every run carries a token in its environment (`RUN_ENV`), inherited by all descendants that
  do not scrub their environment; after the run, every process holding the token is killed;
- ctxscope makes itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), so orphans of a
  script are re-parented to ctxscope instead of init; after the run, orphans started since the
  run began (and not themselves a running script) are killed and reaped.

Elsewhere only the process group is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

RUN_ENV = "CTXSCOPE_SCRIPT_RUN"
PR_SET_CHILD_SUBREAPER = 36
SWEEPS = 5
"""Kill rounds per run: a descendant caught mid-fork leaves a new orphan for the next round."""

_lock = threading.Lock()
_live: set[int] = set()
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


def started(pid: int) -> None:
    """A script process is running: never sweep it."""
    with _lock:
        _live.add(pid)


def finished(pid: int) -> None:
    with _lock:
        _live.discard(pid)


def kill_running() -> None:
    """Kill every script still running, with its process group (the app is quitting)."""
    with _lock:
        pids = list(_live)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def boot_ticks() -> int:
    """Now, in the clock ticks since boot that `/proc/PID/stat` start times use."""
    try:
        with open("/proc/uptime") as fh:
            return int(float(fh.read().split()[0]) * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0


def sweep(token: str, since_ticks: int) -> int:
    """Kill what a finished run left behind; returns how many processes were killed."""
    if not os.path.isdir("/proc"):
        return 0
    me = os.getpid()
    killed = 0
    for _ in range(SWEEPS):
        victims = [pid for pid in _pids() if pid != me and _left_by(pid, token, me, since_ticks)]
        if not victims:
            break
        for pid in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        _reap(victims)
    return killed


def _left_by(pid: int, token: str, me: int, since_ticks: int) -> bool:
    with _lock:
        if pid in _live:  # a running script (its own group is killed, and Popen waits it)
            return False
    stat = _stat(pid)
    if stat is None:
        return False
    state, ppid, start = stat
    if state == "Z":
        return False
    if _holds(pid, token):
        return True
    return bool(_subreaper) and ppid == me and start >= since_ticks


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time in ticks) from `/proc/PID/stat`."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        fields = data[data.rindex(b")") + 2 :].split()
        return fields[0].decode(), int(fields[1]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _holds(pid: int, token: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return f"{RUN_ENV}={token}".encode() in fh.read().split(b"\0")
    except OSError:
        return False


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
