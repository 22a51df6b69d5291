"""A large database's listing read by forked copies of the command while it loads the
workspace, and by the command itself once it gets there.

`ctxscope runs` needs both the stores' listing and the workspace's prediction; on a store of
thousands of sessions, finding each entry's figures (`store.TableScan`) is most of the
command's time, and Python work, which threads would not share out. So the command starts
`ReadAhead` before it loads the workspace: for each database it would list that a gateway is
not writing (no `-wal`: read `immutable=1`, the file the whole truth, whichever process
reads it), children forked then take runs of rowids (`crew`) and find their figures. When
the command comes to read that database (`reader`), it takes the runs left, then joins the
children's rows to its own in rowid order: the rows `TableScan` finds in one read.

What may differ from reading in turn is only where the time goes: a database the command
does not read after all (the config moved the store) has its children stopped; a child that
fails, or rows it could not send whole, mean the database is read in turn; so is a
database that changed meanwhile (a `-wal` appeared, or a gateway wrote a turn into the file
and left), and one where two processes settled a shape of entry otherwise
(`scan.Scan.verdicts`: entries OpenClaw does not write). A database with a `-wal` (a
gateway at work) is read in turn: one moment of it, in one transaction.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from ctxscope import crew
from ctxscope.model import Diagnostic
from ctxscope.runs import store
from ctxscope.runs.recorded import RecordedRun

MIN_ROWS = 2000
"""A database with fewer rowids than this is read in turn: a fork costs milliseconds."""

RUN_ROWS = 500
"""The rowids in a run: the command, done with its own, waits for at most one child's run."""

MAX_CHILDREN = 3
"""Children in all, one per other CPU at most: more would cost the command more in joining
their rows than they save."""


class ReadAhead:
    """The databases' listings under way in children; `reader` reads a store with them."""

    def __init__(self, started: dict[str, _Database]) -> None:
        self.started = started

    @classmethod
    def start(cls, paths: Iterable[Path]) -> ReadAhead:
        """Children at work on the listings of those of `paths` worth it (none where this
        process may not fork, or has no other CPU to give them)."""
        started = cls({})
        spare = min(MAX_CHILDREN, crew.workers() - 1) if crew.can_fork() else 0
        try:
            for path in paths:
                if spare > 0 and path.suffix == ".sqlite" and str(path) not in started.started:
                    database = _Database.start(path, spare)
                    if database is not None:
                        started.started[str(path)] = database
                        spare -= len(database.children)
        except BaseException:  # Ctrl-C between two forks: those started stopped
            started.close()
            raise
        return started

    def reader(self, path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
        """The listing of the store `path`, as `store.read_store` reads it."""
        database = self.started.pop(str(path), None)
        try:
            return store.read_store(path, whole=False, ahead=database)
        finally:
            if database is not None:
                database.close()

    def close(self) -> None:
        """The children of the databases not read stopped."""
        for database in self.started.values():
            database.close()
        self.started.clear()


class _Database:
    """The runs of one database's rowids and the children taking them."""

    def __init__(
        self, path: Path, stamp: tuple[int, ...], uri: str, runs: list[tuple[int, int]], queue: int
    ) -> None:
        self.path, self.stamp, self.uri, self.runs, self.queue = path, stamp, uri, runs, queue
        self.children: list[crew.Forked] = []

    @classmethod
    def start(cls, path: Path, children: int) -> _Database | None:
        """Up to `children` children at work on the listing of `path`, when it is worth it."""
        stamp = _stamp(path)
        uri = store.uri_of(path)
        if stamp is None or not uri.endswith("?immutable=1"):
            return None
        try:
            con = store.open_uri(uri)
            try:
                valid = "entry_valid" in store.table_columns(con, "session_nodes")
                span = store.rowid_span(con) if valid else None
            finally:
                con.close()
        except sqlite3.Error:
            return None  # read in turn, which says what is wrong
        if span is None or span[1] - span[0] + 1 < MIN_ROWS:
            return None
        low, high = span
        count = min(crew.MAX_RUNS, -(-(high - low + 1) // RUN_ROWS))
        step = -(-(high - low + 1) // count)
        runs = [(low + n * step, min(high, low + (n + 1) * step - 1)) for n in range(count)]
        queue = crew.numbers(count)
        if queue is None:
            return None
        database = cls(path, stamp, uri, runs, queue)
        try:
            for _ in range(children):
                child = crew.Forked.start("runs reader", database._work)
                if child is None:
                    break
                database.children.append(child)
        except BaseException:
            database.close()
            raise
        if not database.children:
            database.close()
            return None
        return database

    def _work(self, out: BinaryIO) -> None:
        """A child's: the runs it takes, scanned, written as `{run: rows}` with the columns
        it read and how it settled each shape of entry it met (what it did before a
        failure is written all the same)."""
        done: dict[int, list[tuple[Any, ...]] | None] = {}
        picked = ""
        verdicts: dict[bytes, bool] = {}
        try:
            con = store.open_uri(self.uri)
            try:
                picked = store.picked_columns(store.table_columns(con, "session_nodes"))
                scan = store.TableScan(con, self.uri, picked)
                try:
                    for run in crew.taken(self.queue):
                        done[run] = scan.rows(self.runs[run])
                finally:
                    verdicts = scan.scan.verdicts()
            finally:
                con.close()
        except Exception:  # the command reads the runs this one did not send
            pass
        out.write(marshal.dumps((picked, done, verdicts)))

    def rows(self, scan: store.TableScan) -> list[tuple[Any, ...]] | None:
        """The rows of the whole table, as `scan.rows()` finds them: the runs no child took
        scanned here, then the children's joined. None, for the table to be read in turn
        by `scan` (left as it was), where the database is no longer the one the children
        read (a -wal came, or a gateway wrote to the file and left, by the time this read
        ends); where a run was not read (a child that failed, or a run that cannot be: a
        read in turn meets the table's problems in its own order, and says the first);
        where a run is left to SQLite (`TableScan.rows`); or where two processes settled
        a shape of entry otherwise (each settles it by the first entry of it it meets; the
        one that met the table's first, which settles it in turn, agrees with the others
        only if all agree)."""
        try:
            if scan.uri != self.uri or _stamp(self.path) != self.stamp:
                return None
            mine = store.TableScan(scan.con, scan.uri, scan.picked)
            found: dict[int, list[tuple[Any, ...]] | None] = {}
            try:
                for run in crew.taken(self.queue):
                    found[run] = mine.rows(self.runs[run])
            except sqlite3.Error:
                return None
            sent = [_sent(child.receive(), scan.picked) for child in self.children]
            for runs, _ in sent:
                found.update(runs)
            out: list[tuple[Any, ...]] = []
            for run in range(len(self.runs)):
                rows = found.get(run)
                if rows is None:  # a child's that failed, or one `scan` leaves to SQLite
                    return None
                out += rows
            settled = mine.scan.verdicts()
            for _, verdicts in sent:
                if any(settled.setdefault(shape, v) != v for shape, v in verdicts.items()):
                    return None
            return out if _stamp(self.path) == self.stamp else None
        finally:
            self.close()

    def close(self) -> None:
        """The children stopped (when still at work) and the pipe of runs closed."""
        for child in self.children:
            child.close()
        self.children = []
        if self.queue >= 0:
            os.close(self.queue)
            self.queue = -1


def _stamp(path: Path) -> tuple[int, ...] | None:
    """What tells one state of the file `path` from another (a write changes its times);
    None where it cannot be told."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _sent(
    data: bytes, picked: str
) -> tuple[dict[int, list[tuple[Any, ...]] | None], dict[bytes, bool]]:
    """A child's rows by run, and how it settled the shapes it met; nothing when they are
    not whole (a child that died mid-write leaves them cut short) or were read with other
    columns."""
    try:
        got, done, verdicts = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return {}, {}
    if got != picked or not isinstance(done, dict) or not isinstance(verdicts, dict):
        return {}, {}
    return done, verdicts
