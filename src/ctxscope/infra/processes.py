"""Every process ctxscope starts, in one registry.

Context scripts, tool workers (forked, or a new interpreter), the exact-mode Node helper,
`node --version` and the editor all start through `popen`, `run` or `fork`, which record the
child's pid with its start time (so a pid the system hands out again is never taken for
ours). The script reaper (`scripts/reaper.py`) never kills a registered process; and since
those are ctxscope's direct children, the reaper can tell them, and a program's own children,
from what a script left behind.

Every process ctxscope ends, it ends through `stop` (a child of its own, or what a script
left behind): nothing else sends a signal.

Entries are dropped once their process is gone (`discard`, else on the next start).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import TYPE_CHECKING, Any

from ctxscope.core.record import record

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence

_lock = threading.Lock()
_mine: dict[int, tuple[str, int | None]] = {}
"""pid → (role, start time in clock ticks since boot; None without `/proc`)."""


@record(frozen=True)
class ProcStat:
    """What `/proc/PID/stat` says of a process."""

    state: str
    ppid: int
    session: int
    start: int
    """Clock ticks since boot."""


def stat(pid: int) -> ProcStat | None:
    """The process's `/proc/PID/stat` (None when it is gone, or without `/proc`)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        fields = data[data.rindex(b")") + 2 :].split()  # the name may hold spaces and ')'
        return ProcStat(fields[0].decode(), int(fields[1]), int(fields[3]), int(fields[19]))
    except (OSError, ValueError, IndexError):
        return None


_SUBPROCESS = frozenset({"PIPE", "DEVNULL", "TimeoutExpired", "SubprocessError"})


def __getattr__(name: str) -> Any:
    """`PIPE`, `DEVNULL`, `TimeoutExpired`, `SubprocessError`: subprocess's own, for the modules
    that start processes here (so that only this module imports subprocess)."""
    if name in _SUBPROCESS:
        import subprocess

        return getattr(subprocess, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def popen(role: str, args: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """`subprocess.Popen(args, **kwargs)`, registered as `role`."""
    import subprocess  # only once a process starts (its import takes milliseconds)

    proc = subprocess.Popen(args, **kwargs)
    add(proc.pid, role)
    return proc


def run(
    role: str,
    args: Sequence[str],
    *,
    input: Any = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(args, ...)`, registered as `role` while it runs (killed on a timeout)."""
    import subprocess

    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with popen(role, args, **kwargs) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except BaseException:
            stop(proc)
            raise
        finally:
            discard(proc.pid)
    if check and proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, args, out, err)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def stop(target: int | subprocess.Popen[Any], *, group: bool = False, reap: bool = True) -> bool:
    """`target` (a pid, or a child started by `popen`) killed (SIGKILL), with its whole
    process group where `group` (a child started in a session of its own). `reap`: waited
    for (`Popen.wait`, at most 5 s; else `waitpid`: a child of this process) and dropped from
    the registry; leave it to whoever waits for it already. Whether a signal was sent (not
    when the process had ended, or is not this user's)."""
    proc = None if isinstance(target, int) else target
    pid = target if isinstance(target, int) else target.pid
    sent = False
    if proc is None or proc.poll() is None or group:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if group:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            sent = True
    if not reap:
        return sent
    if proc is not None:
        import subprocess

        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
    else:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    discard(pid)
    return sent


def fork(role: str) -> int:
    """`os.fork()`; in the parent, the child is registered as `role`."""
    pid = os.fork()
    if pid:
        add(pid, role)
    return pid


def add(pid: int, role: str) -> None:
    """`pid`, a child just started, is ctxscope's own."""
    start = stat(pid)
    with _lock:
        for old in [p for p, (_, t) in _mine.items() if not _same(p, t)]:
            del _mine[old]
        _mine[pid] = (role, start.start if start else None)


def discard(pid: int) -> None:
    """`pid` has been waited for."""
    with _lock:
        _mine.pop(pid, None)


def owns(pid: int, start: int | None) -> bool:
    """Whether `pid` (started at `start` ticks, when known) is a process ctxscope started."""
    with _lock:
        entry = _mine.get(pid)
    return entry is not None and (entry[1] is None or start is None or entry[1] == start)


def running(role: str) -> list[int]:
    """The registered pids of `role`."""
    with _lock:
        return [pid for pid, (r, _) in _mine.items() if r == role]


def _same(pid: int, start: int | None) -> bool:
    """Whether the process registered as (`pid`, `start`) is still there."""
    if start is not None:
        now = stat(pid)
        return now is not None and now.start == start
    try:
        os.kill(pid, 0)
    except OSError:  # gone, or the pid now another user's
        return False
    return True
