"""A listing reads the newest sessions of a state folder, and the sessions they were spawned by.

A database is asked first for each session's key and time (through its `updated_at` index,
newest first; `since` as the `WHERE`), no entry read; the newest `limit` sessions of all the
stores are picked, and only their entries are read, by key. Then the sessions they were
spawned by, at any depth and whatever their time, are read by key, so that each child shows
under its parent. A `sessions.json` (2026.2's, no index) is read whole. `limit=None` (`--all`)
reads every session.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.runs.database import Database
from ctxscope.runs.entries import agent_of
from ctxscope.runs.recorded import RecordedRun, StoreRead
from ctxscope.runs.store import read_state, read_store, state_dir, store_files

SCREENFUL = 50
"""The sessions a listing shows unless asked for more (`--limit N`, `--all`)."""

KEYS_AT_ONCE = 500
"""Keys asked for in one statement (SQLite's limit on a statement's parameters is higher)."""


def read_newest(
    state: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
    agents: Iterable[str] = (),
    *,
    limit: int | None = SCREENFUL,
    since: int | None = None,
    agent: str | None = None,
    whole: bool = False,
    keep: Iterable[str] = (),
    cache: bool = False,
) -> StoreRead:
    """The newest `limit` sessions of the state folder (None: all) written at or after
    `since` (ms), of the agent `agent` (None: all); the sessions they (and the sessions
    `keep`) were spawned by; and, as `not_shown`, how many sessions matched but are left
    out. `whole`: each report whole, else the figures a listing shows. Where two stores
    hold one key, the first store's session is the one (databases before `sessions.json`).
    `cache`: a database listed whole (`limit=None`) is kept in the cache folder for the next
    listing, or taken from it (`listcache`)."""
    folder = state_dir(state)
    if not folder.is_dir():
        return read_state(folder)  # the problem that names the missing folder
    read = StoreRead(str(folder))
    paths = store_files(folder, config, agents, read.problems)
    if not paths and not read.problems:
        return read_state(folder)  # the note that no store is here
    read.stores = [str(p) for p in paths]
    listing = _Listing(paths, whole, cache)
    try:
        wanted = agent.strip().lower() if agent else None
        newest, matched = listing.newest(limit, since, wanted)
        runs = listing.runs(newest)
        runs += listing.parents(runs, set(keep))
        # a parent older than the newest shown is one of those matched too, when it matches
        shown = {r.session_key for r in runs if _matches(r, since, wanted)} | {
            r.session_key for r in runs if r.session_key in listing.matched
        }
        read.not_shown = matched - len(shown)
    finally:
        listing.close()
    read.runs = runs
    # a store that cannot be read says so once, however often it was asked
    read.problems = list(dict.fromkeys([*read.problems, *listing.problems()]))
    return read


def _matches(run: RecordedRun, since: int | None, agent: str | None) -> bool:
    """Whether `run` is one of those the listing picks from (written since, the agent's)."""
    if agent is not None and run.agent_id != agent:
        return False
    return since is None or (run.updated_at is not None and run.updated_at >= since)


class _Listing:
    """The stores of one listing, each database open for all of the listing's reads."""

    def __init__(self, paths: list[Path], whole: bool, cache: bool) -> None:
        self.paths, self.whole, self.cache = paths, whole, cache
        self.databases = {p: Database(p) for p in paths if p.suffix == ".sqlite"}
        self.known: dict[Path, dict[str, RecordedRun]] = {}
        """The runs read with their keys (a `sessions.json`, or every session: `--all`)."""
        self.said: dict[Path, list[Diagnostic]] = {}
        """The problems of the stores read whole (`sessions.json`)."""
        self.matched: set[str] = set()
        """The keys of the sessions picked from (the newest of each store)."""

    def newest(
        self, limit: int | None, since: int | None, agent: str | None
    ) -> tuple[list[tuple[Path, str]], int]:
        """The newest `limit` sessions of all the stores (store, key), and how many match."""
        times: dict[str, tuple[int, Path]] = {}
        counted = 0
        limited: list[Database] = []
        """The databases asked for their newest only (the keys they hold past those unknown)."""
        for path in self.paths:
            database = self.databases.get(path)
            if database is not None and limit is not None:
                # an agent's sessions are picked from all its store's (rarely another's)
                found, count = database.times(since, None if agent else limit)
                limited.append(database)
            else:
                found = self._read_all(path, since)
                count = len(found)
            kept = [k for k, _ in found if agent is None or agent_of(k, path) == agent]
            kept = [k for k in kept if k not in times]
            if count == len(found) and limited and database not in limited:
                held: set[str] = set()  # a session of an earlier database is that one's
                for earlier in limited:
                    held |= earlier.held(kept)
                kept = [k for k in kept if k not in held]
            counted += count - len(found) + len(kept)
            when = dict(found)
            times.update((k, (when[k] or 0, path)) for k in kept)
        self.matched = set(times)
        newest = sorted(times, key=lambda k: (-times[k][0], k))[:limit]
        return [(times[k][1], k) for k in newest], counted

    def _read_all(self, path: Path, since: int | None) -> list[tuple[str, int | None]]:
        """Each session of the store at `path` written at or after `since`, (key, time),
        its runs kept (a `sessions.json`'s all of them)."""
        database = self.databases.get(path)
        if database is not None:
            runs = database.runs(whole=self.whole, since=since, cache=self.cache)
        else:
            runs, self.said[path] = read_store(path, whole=self.whole)
        self.known[path] = {r.session_key: r for r in runs}
        return [
            (r.session_key, r.updated_at)
            for r in runs
            if since is None or (r.updated_at is not None and r.updated_at >= since)
        ]

    def runs(self, wanted: Iterable[tuple[Path, str]]) -> list[RecordedRun]:
        """The runs of the (store, key) pairs `wanted`, read by key where not read already."""
        by_store: dict[Path, list[str]] = {}
        for path, key in wanted:
            by_store.setdefault(path, []).append(key)
        out: list[RecordedRun] = []
        for path, keys in by_store.items():
            known = self.known.get(path, {})
            out += [known[k] for k in keys if k in known]
            missing = [k for k in keys if k not in known]
            database = self.databases.get(path)
            if database is not None:
                for at in range(0, len(missing), KEYS_AT_ONCE):
                    part = missing[at : at + KEYS_AT_ONCE]
                    out += database.runs(whole=self.whole, keys=part)
        return out

    def parents(self, runs: list[RecordedRun], keep: set[str]) -> list[RecordedRun]:
        """The sessions `keep` and those `runs` (and they) were spawned by, at any depth,
        that `runs` lacks: each looked for by key in the stores in turn (the first wins)."""
        have = {r.session_key for r in runs}
        out: list[RecordedRun] = []
        wanted = (keep | {r.spawned_by for r in runs if r.spawned_by}) - have
        while wanted:
            found: list[RecordedRun] = []
            for path in self.paths:
                if not wanted:
                    break
                got = self.runs((path, k) for k in sorted(wanted))
                wanted -= {r.session_key for r in got}
                found += got
            have |= {r.session_key for r in found}
            out += found
            wanted = {r.spawned_by for r in found if r.spawned_by} - have
        return out

    def problems(self) -> list[Diagnostic]:
        """What each store read said, in the stores' order (of a database, about the
        entries read; of a `sessions.json`, about all of them)."""
        out: list[Diagnostic] = []
        for path in self.paths:
            database = self.databases.get(path)
            out += database.problems if database is not None else self.said.get(path, [])
        return out

    def close(self) -> None:
        for database in self.databases.values():
            database.close()


__all__ = ["SCREENFUL", "read_newest"]
