"""Reading many tool files' metadata at once, in forked worker processes.

A first build of a large space parses thousands of tool files (Python's parser holds the GIL,
so threads would not help). When a build meets at least `MIN_FILES` tool files that neither
this process nor the persistent cache knows, they are split between the CPUs this process may
use: forked children parse their shares while the parent parses its own, and the results come
back through pipes. Each result is exactly what `toolmeta.tool_metadata` would compute; it is
stored in the snapshot's parse memo (and the persistent cache) so the build then finds it there.

Forking is only done where it is safe and cheap: on Linux, from a process with one thread (the
CLI; the app builds in a worker thread, so it parses in turn). `CTXSCOPE_WORKERS` caps the
processes (1 turns this off). Anything that goes wrong in a child only means its files are
parsed by the caller afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import sys
import threading
from typing import Any

from ctxscope.model import Diagnostic
from ctxscope.rye.tiers import cache_for, parse_cached
from ctxscope.rye.toolcache import Stamp, ToolCache, stamp_of
from ctxscope.rye.toolmeta import parse_tool
from ctxscope.snapshot import Snapshot

MIN_FILES = 256
"""Fewer unknown tool files than this are parsed in turn: a fork costs a few milliseconds."""

MAX_WORKERS = 8

Parsed = tuple[str, Stamp, tuple[dict[str, Any] | None, list[Diagnostic]]]


def workers() -> int:
    """How many processes may parse at once here (1: no forking)."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    limit = os.environ.get("CTXSCOPE_WORKERS", "")
    if limit.strip().isdigit():
        cpus = min(cpus, max(1, int(limit)))
    return max(1, min(cpus, MAX_WORKERS))


def prefetch(snapshot: Snapshot, paths: list[str], disk: ToolCache | None) -> int:
    """Parse, in parallel, those of `paths` that this snapshot has not parsed and `disk` does
    not hold; returns how many were parsed this way (0 when it was not worth forking)."""
    memo = cache_for(snapshot).parsed
    unknown: list[str] = []
    for path in dict.fromkeys(paths):
        if ("tool", path) in memo:
            continue
        if disk is not None:
            stamp = stamp_of(path)
            if stamp is not None and disk.has(path, stamp):
                continue
        unknown.append(path)
    n = min(workers(), len(unknown) // (MIN_FILES // 2) or 1)
    if len(unknown) < MIN_FILES or n < 2:
        return 0
    shares = [unknown[i::n] for i in range(n)]
    children: list[tuple[int, int]] = []  # (pid, read end of its pipe)
    parsed: list[Parsed] = []
    try:
        for share in shares[1:]:
            child = _fork(share, snapshot.cap)
            if child is None:
                break
            children.append(child)
        parsed += _parse(shares[0], snapshot.cap)
        for _pid, fd in children:
            parsed += _receive(fd)
    finally:
        for pid, fd in children:
            with contextlib.suppress(OSError):
                os.close(fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    for path, stamp, result in parsed:
        memo[("tool", path)] = (None, result, stamp)
        if disk is not None:
            disk.put(path, stamp, result)
    return len(parsed)


def _parse(paths: list[str], cap: int) -> list[Parsed]:
    """Each file read and parsed as a build does (`parse_cached` on a snapshot of the same
    cap), with the stamp it was parsed at. Unreadable files are left to the caller."""
    reader = Snapshot(cap)
    memo = cache_for(reader).parsed
    out: list[Parsed] = []
    for path in paths:
        result = parse_cached(reader, "tool", path, functools.partial(_parse_text, path))
        if result is not None:
            out.append((path, memo[("tool", path)][2], result))
    return out


def _parse_text(path: str, text: str) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    return parse_tool(text, path)


def _fork(paths: list[str], cap: int) -> tuple[int, int] | None:
    """A child that parses `paths` and writes the pickled results to a pipe; (pid, read
    end), or None when no process could be made."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: never returns, never runs the parent's exit handlers
        status = 1
        try:
            os.close(read_end)
            data = pickle.dumps(_parse(paths, cap), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _receive(fd: int) -> list[Parsed]:
    """A child's results, or nothing when it failed (its files are then parsed in turn)."""
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except OSError:
            return []
        if not chunk:
            break
        chunks.append(chunk)
    try:
        result = pickle.loads(b"".join(chunks))
    except Exception:  # a child that died mid-write leaves a truncated pickle
        return []
    return result if isinstance(result, list) else []
