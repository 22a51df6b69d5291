"""Work shared between this process and forked copies of it.

The work is cut into batches numbered 0 … n-1, whose numbers wait in a pipe (`numbers`). Each
process, the caller too, takes the next number (`taken`: a one-byte read the kernel gives to
exactly one reader) until none is left, so a process that starts late or runs slower simply
does fewer batches. A forked child (`Forked`) writes what it did to a pipe of its own, which the
caller reads once it has run out of numbers; anything that goes wrong in a child only means
the caller does that child's batches itself.

A child is forked only where that is safe and cheap (`can_fork`): on Linux, from a process
with one thread (a command; the app runs its work on threads). `CTXSCOPE_WORKERS` caps the
processes (1 turns this off).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO

from ctxscope.infra import processes

MAX_WORKERS = 8


def workers() -> int:
    """How many processes may work at once here (1: in turn)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    limit = os.environ.get("CTXSCOPE_WORKERS", "")
    if limit.strip().isdigit():
        cpus = min(cpus, max(1, int(limit)))
    return max(1, min(cpus, MAX_WORKERS))


def can_fork() -> bool:
    """Forking is safe here: Linux, and no other thread (whose locks a child would inherit)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


MAX_BATCHES = 256
"""A batch's number is one byte in the pipe."""


def numbers(count: int) -> int | None:
    """A pipe holding the batch numbers 0 … count-1 (at most `MAX_BATCHES`), all written before
    any process reads (so a read finds whole ones) and no writer left (so a read of the
    emptied pipe is its end): its reading end, or None when the system refused it."""
    try:
        queue, fill = os.pipe()
    except OSError:
        return None
    try:
        written = os.write(fill, bytes(range(count)))  # at most 256 bytes: one atomic write
    except OSError:
        written = -1
    finally:
        os.close(fill)
    if written != count:
        os.close(queue)
        return None
    return queue


def taken(queue: int) -> Iterator[int]:
    """The batch numbers this process takes from `queue`, one at a time, until none is left."""
    while batch := os.read(queue, 1):
        yield batch[0]


PR_SET_PDEATHSIG = 1


def _end_with(parent: int) -> None:
    """This child killed when `parent` ends, whatever ends it (SIGKILL, or SIGTERM, which
    runs no cleanup): its work is only ever the parent's. It ends here when the parent
    already has."""
    import ctypes  # in the child only: a command that forks none never loads it

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


class Forked:
    """A forked copy of this process doing `work`, which writes its results to a pipe."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd

    @classmethod
    def start(cls, role: str, work: Callable[[BinaryIO], None]) -> Forked | None:
        """The child, or None when no process could be made. The child runs `work` with
        the pipe's writing end and ends (never returning, never running the parent's exit
        handlers), whatever `work` raises, and when this process ends first."""
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return None
        parent = os.getpid()
        try:
            pid = processes.fork(role)
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:
            status = 1
            try:
                _end_with(parent)
                os.close(read_end)
                with os.fdopen(write_end, "wb") as out:
                    work(out)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        return cls(pid, read_end)

    def receive(self) -> bytes:
        """What the child wrote, once it has finished (cut short when it failed)."""
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except OSError:
                return b""
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        """The child ended (when still at work: its work is no longer wanted) and reaped."""
        with contextlib.suppress(OSError):
            os.close(self.fd)
        processes.stop(self.pid)
