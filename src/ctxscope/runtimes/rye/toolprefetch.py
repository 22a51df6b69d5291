"""Reading many tool files' metadata at once, in worker processes.

A first build of a large space parses thousands of tool files (Python's parser holds the GIL,
so threads would not help). When a build meets at least `MIN_FILES` tool files that neither
this process nor the persistent cache knows, child processes parse them beside the caller,
and the results come back through pipes. The files are cut into at most `CHUNKS` batches whose
numbers wait in a pipe; each process, the caller too, takes the next number (a one-byte read
the kernel gives to exactly one reader) until none is left, so a process that starts late or
runs slower simply parses fewer. Each result is exactly what `toolmeta.tool_metadata` would
compute; it is stored in the snapshot's parse memo (and the persistent cache) so the build
then finds it there.

On a first look at a space (an empty persistent cache), `start_ahead` gives the children every
tool file of the project and user spaces before the build starts its other work, and
`prefetch` joins them later, parsing only the files it wants of the batches left. Which of these
a build uses is the tool source's business (`toolsource.Workers`); the crew of children is
the source's to hold, never the snapshot's.

A child is forked where that is safe and cheap: on Linux, from a process with one thread (the
commands). Elsewhere on POSIX, as in the app, whose builds run on a thread, a child is a new
interpreter running `toolworker.serve` (isolated: `python -I`), which costs a start
and the parser's imports (≈0.07 s), so one is only made for each `SPAWN_SHARE` files.
`CTXSCOPE_WORKERS` caps the processes (1 turns this off). Anything that goes wrong in a child
only means the files it took are parsed by the caller afterwards.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import threading
from typing import TYPE_CHECKING

from ctxscope.core.model import Diagnostic
from ctxscope.infra import crew, processes, tuning
from ctxscope.infra.crew import can_fork, workers
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import toolworker
from ctxscope.runtimes.rye.tiers import TOOL_EXTS, Space, cache_for, walk_ids
from ctxscope.runtimes.rye.toolcache import Result, ToolCache
from ctxscope.runtimes.rye.toolmeta import from_disk
from ctxscope.runtimes.rye.toolworker import Parsed

if TYPE_CHECKING:
    import subprocess

MIN_FILES = 256
"""Fewer unknown tool files than this are parsed in turn: a fork costs a few milliseconds."""

SPAWN_SHARE = 1000
"""A started (not forked) child is made for each this many files: its start and imports cost
about as much as parsing several hundred (measured: ≈0.065 s idle, ≈600 files, on a 2-CPU
machine; more beside a build), during which the others take the batches."""

CHUNKS = crew.MAX_BATCHES
"""At most this many batches of files to take."""

MIN_CHUNK = 16
"""The fewest files in a batch: taking one costs a read from the pipe."""


def start_ahead(snapshot: Snapshot, spaces: list[Space]) -> Crew | None:
    """Children at work on the tool files of `spaces` but the system tier (the runtime's own
    bundle: a handful) that `snapshot` has not parsed, when there are enough of them to be
    worth it; None otherwise. The caller hands them to `prefetch`, or `close`s them."""
    memo = cache_for(snapshot).parsed
    paths = [
        path
        for space in spaces
        if space.tier != "system"
        for path in walk_ids(snapshot, space.root / "tools", TOOL_EXTS, space=space.root).values()
        if ("tool", path) not in memo
    ]
    fork = can_fork()
    n = _processes(len(paths), fork)
    return Crew.start(paths, n, snapshot.cap, fork) if n > 1 else None


def prefetch(
    snapshot: Snapshot, paths: list[str], disk: ToolCache | None, crew: Crew | None = None
) -> dict[str, Result]:
    """Parse, in parallel, those of `paths` that this snapshot has not parsed and `disk` does
    not hold (first taking what `crew`, started ahead, has not done yet); returns the
    results by path of those parsed and of those `disk` holds for the file as it is now
    (what `tool_metadata` gives for each, without another stat), nothing for the rest
    when other processes were not worth it."""
    cache = cache_for(snapshot)
    fresh: dict[str, Result] = {}
    with tuning.paused():
        if crew is not None:
            _keep(snapshot, crew.finish(set(paths)), disk, fresh)
        unknown: list[str] = []
        for path in dict.fromkeys(paths):
            if ("tool", path) in cache.parsed:
                continue
            hit = from_disk(snapshot, path, disk) if disk is not None else None
            if hit is not None:
                fresh[path] = hit
            else:
                unknown.append(path)
        fork = can_fork()
        n = _processes(len(unknown), fork)
        more = Crew.start(unknown, n, snapshot.cap, fork) if n > 1 else None
        if more is not None:
            _keep(snapshot, more.finish(), disk, fresh)
        if len(fresh) >= MIN_FILES:  # many results made at once, to be kept: out of the way
            tuning.settle()
    return fresh


def _processes(count: int, fork: bool) -> int:
    """How many processes should parse `count` unknown files (1: this one, in turn)."""
    if count < MIN_FILES:
        return 1
    return min(workers(), count // (MIN_FILES // 2 if fork else SPAWN_SHARE) or 1)


def _keep(
    snapshot: Snapshot, parsed: list[Parsed], disk: ToolCache | None, fresh: dict[str, Result]
) -> None:
    """Results stored where the build finds them: the parse memo, `disk` and `fresh`."""
    memo = cache_for(snapshot).parsed
    for path, stamp, meta, diags in parsed:
        result = (meta, [Diagnostic(**d) for d in diags] if diags else [])
        memo[("tool", path)] = (None, result, stamp)
        fresh[path] = result
    if disk is not None:
        disk.put_plain(parsed)


class Crew:
    """Children taking batches of `paths` from a pipe until none is left; the caller joins
    them with `finish`."""

    def __init__(
        self, paths: list[str], size: int, queue: int, children: list[_Child], cap: int
    ) -> None:
        self.paths, self.size, self.queue = paths, size, queue
        self.children, self.cap = children, cap
        self.closed = False

    @classmethod
    def start(cls, paths: list[str], n: int, cap: int, fork: bool) -> Crew | None:
        """Up to `n - 1` children at work on `paths`; None when no pipe could be made."""
        size = max(MIN_CHUNK, -(-len(paths) // CHUNKS))
        queue = crew.numbers(-(-len(paths) // size))
        if queue is None:
            return None
        children: list[_Child] = []
        for _ in range(n - 1):
            started = (_Forked.start if fork else _Started.start)(paths, size, queue, cap)
            if started is None:
                break
            children.append(started)
        return cls(paths, size, queue, children, cap)

    def finish(self, wanted: set[str] | None = None) -> list[Parsed]:
        """This process takes the batches left (parsing only the `wanted` files of them, when
        given), then collects the children's results."""
        try:
            parsed = toolworker.parse_taken(self.paths, self.size, self.queue, self.cap, wanted)
            for child in self.children:
                parsed += child.receive()
        finally:
            self.close()
        return parsed

    def close(self) -> None:
        """The children stopped (when still at work) and the pipe closed."""
        if not self.closed:
            self.closed = True
            for child in self.children:
                child.close()
            os.close(self.queue)


class _Child:
    """A process parsing the batches of files it takes."""

    def receive(self) -> list[Parsed]:
        """Its results, once it has finished; nothing when it failed."""
        raise NotImplementedError

    def close(self) -> None:
        """Let the process go (and end it, when it is still running)."""


class _Forked(_Child):
    """A forked copy of this process, writing its results to a pipe."""

    def __init__(self, child: crew.Forked) -> None:
        self.child = child
        self.pid = child.pid

    @classmethod
    def start(cls, paths: list[str], size: int, queue: int, cap: int) -> _Forked | None:
        """The child, or None when no process could be made."""
        child = crew.Forked.start(
            "tool worker", lambda out: toolworker.send(paths, size, queue, cap, out)
        )
        return cls(child) if child is not None else None

    def receive(self) -> list[Parsed]:
        return _results(self.child.receive())

    def close(self) -> None:
        self.child.close()


class _Started(_Child):
    """A new interpreter running `toolworker.serve`: it reads the files and the pipe of
    batches on its standard input and writes the results on its standard output. A thread
    of this process talks to it, so the caller takes batches meanwhile."""

    def __init__(self, process: subprocess.Popen[bytes], payload: bytes) -> None:
        self.process = process
        self.output: list[bytes] = []
        self.talk = threading.Thread(target=self._talk, args=(payload,), daemon=True)
        self.talk.start()

    @classmethod
    def start(cls, paths: list[str], size: int, queue: int, cap: int) -> _Started | None:
        if not sys.executable or os.name != "posix":  # the pipe is passed by its number
            return None
        # Isolated (-I): neither the current folder (a workspace's `yaml.py` must not be
        # imported) nor PYTHON* variables; ctxscope's own folder is searched last.
        root = toolworker.package_root()
        worker = toolworker.__name__
        code = f"import sys; sys.path.append({root!r}); import {worker} as m; m.serve({root!r})"
        try:
            process = processes.popen(
                "tool worker",
                [sys.executable, "-I", "-c", code],
                stdin=processes.PIPE,
                stdout=processes.PIPE,
                stderr=processes.DEVNULL,
                pass_fds=(queue,),
            )
        except OSError:
            return None
        return cls(process, marshal.dumps((paths, size, queue, cap)))

    def _talk(self, payload: bytes) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.output.append(self.process.communicate(payload)[0])

    def receive(self) -> list[Parsed]:
        self.talk.join()
        if self.process.returncode != 0 or not self.output:
            return []
        return _results(self.output[0])

    def close(self) -> None:
        processes.stop(self.process, reap=False)  # `talk` waits for it
        self.talk.join()


def _results(data: bytes) -> list[Parsed]:
    """A child's results, or nothing when they are not whole (a child that died mid-write
    leaves them cut short)."""
    try:
        parsed = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return []
    return parsed if isinstance(parsed, list) else []
