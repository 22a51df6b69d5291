"""Where a build gets Rye tool metadata: a source behind one small interface, chosen by the
program that builds and carried in the build's caches (`Caches.tools`), the way an HTTP
client takes a transport.

The palette asks a source for the metadata of the tool files it wants, grouped by the tools
folder of their tier (`metadata`), and of one primary tool (`one`); it never sees how they
are had:

- `Serial`: each file parsed in this process, in turn, once per file version (the snapshot's
  parse memo), or read from the persistent cache. The Python API's default: a build with it
  starts no process and touches nothing but the files it reads.
- `Workers`: many files no cache holds are parsed in worker processes beside the build
  (`toolprefetch`); on a first look at a space (an empty persistent cache) they start before
  the build's other work (`ahead`). The `ctxscope` commands and the app use it.
- `Remembered`: around another source; under a file watcher (`Snapshot.changes`), the results
  of a tools folder with no change reported since the last build are kept without a stat of
  each file. The app, whose watcher reports edits, and the commands (harmless unwatched).

A source's `cache` (a `ToolCache`, or None) is read and added to by builds; only `save`
writes it, called at the edge (`Inspector`, the `thread` command).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.toolcache import Result, ToolCache

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ctxscope.runtimes.rye.tiers import Space
    from ctxscope.runtimes.rye.toolprefetch import Crew

Folders = Mapping[Path, Sequence[str]]
"""Tool files by the tools folder of their tier (`<space>/tools`)."""


class ToolSource:
    """The interface (and the serial source): `ahead`, `metadata`, `one`, `save`."""

    def __init__(self, cache: ToolCache | None = None) -> None:
        self.cache = cache

    def ahead(self, snapshot: Snapshot, spaces: list[Space]) -> AbstractContextManager[None]:
        """Meanwhile, a build of `spaces`' Rye thread runs (the source may start work early)."""
        return contextlib.nullcontext()

    def metadata(self, snapshot: Snapshot, folders: Folders) -> dict[str, Result]:
        """Each tool file's (metadata, diagnostics), by path."""
        from ctxscope.runtimes.rye.toolmeta import tool_metadata  # the parser only for a Rye thread

        return {
            path: tool_metadata(snapshot, path, self.cache)
            for paths in folders.values()
            for path in paths
        }

    def one(self, snapshot: Snapshot, path: str) -> Result:
        """One tool file's (metadata, diagnostics)."""
        from ctxscope.runtimes.rye.toolmeta import tool_metadata

        return tool_metadata(snapshot, path, self.cache)

    def save(self) -> None:
        """Write the persistent cache, when there is one and it changed."""
        if self.cache is not None:
            self.cache.save()


class Serial(ToolSource):
    """Every file parsed in this process, in turn."""


class Workers(ToolSource):
    """Many unknown files parsed in worker processes (`toolprefetch`). The children started
    ahead of a build are held here, by snapshot, until the palette joins them or the build
    ends."""

    def __init__(self, cache: ToolCache | None = None) -> None:
        super().__init__(cache)
        self._looked: weakref.WeakSet[Snapshot] = weakref.WeakSet()
        self._crews: weakref.WeakKeyDictionary[Snapshot, Crew] = weakref.WeakKeyDictionary()

    @contextlib.contextmanager
    def ahead(self, snapshot: Snapshot, spaces: list[Space]) -> Iterator[None]:
        """On a first look at a space (nothing parsed by this snapshot and nothing in the
        persistent cache), children parse the tool files of `spaces` while the build does its
        other work (the OpenClaw sessions, the Rye chain); `metadata` then takes only what they
        have not done. Once per snapshot (its rebuilds find the tools parsed, a later look
        finds them in the cache); children still at work at the end are stopped. When they
        start, the collector is held off through the build (what it makes is mostly kept)
        and what it made is settled at its end (`tuning`: only where a program turned it on)."""
        from ctxscope.infra import tuning
        from ctxscope.runtimes.rye import toolprefetch

        if snapshot in self._looked or (self.cache is not None and not self.cache.blank()):
            self._looked.add(snapshot)
            yield
            return
        self._looked.add(snapshot)
        with tuning.paused():
            crew = toolprefetch.start_ahead(snapshot, spaces)
            if crew is not None:
                self._crews[snapshot] = crew
                try:
                    yield
                finally:
                    left = self._crews.pop(snapshot, None)
                    if left is not None:
                        left.close()
        if crew is not None:
            tuning.settle()
        else:
            yield

    def metadata(self, snapshot: Snapshot, folders: Folders) -> dict[str, Result]:
        from ctxscope.runtimes.rye import toolprefetch
        from ctxscope.runtimes.rye.toolmeta import tool_metadata

        paths = [path for paths in folders.values() for path in paths]
        crew = self._crews.pop(snapshot, None)
        fresh = toolprefetch.prefetch(snapshot, paths, self.cache, crew)
        return {
            path: fresh.get(path) or tool_metadata(snapshot, path, self.cache) for path in paths
        }


class Remembered(ToolSource):
    """`source`, with the results of each tools folder kept from the last build of the same
    snapshot while its watcher reports no change under that folder."""

    def __init__(self, source: ToolSource) -> None:
        super().__init__(source.cache)
        self.source = source
        self._last: weakref.WeakKeyDictionary[
            Snapshot, dict[Path, tuple[int, dict[str, Result]]]
        ] = weakref.WeakKeyDictionary()
        self._covered: weakref.WeakKeyDictionary[Snapshot, dict[Path, Sequence[str]]] = (
            weakref.WeakKeyDictionary()
        )
        self._merged: weakref.WeakKeyDictionary[
            Snapshot, tuple[tuple[int, ...], dict[str, Result]]
        ] = weakref.WeakKeyDictionary()

    def ahead(self, snapshot: Snapshot, spaces: list[Space]) -> AbstractContextManager[None]:
        return self.source.ahead(snapshot, spaces)

    def metadata(self, snapshot: Snapshot, folders: Folders) -> dict[str, Result]:
        """Builds of other palettes on the same snapshot (another directive, the other Rye
        profile) add to what a folder keeps; a change reported under it drops it all. While
        nothing changed, the answer is the very same object as the last one (its results the
        same objects too), so what the caller derived from it stands."""
        since = snapshot.changes.now()  # taken before any file is looked at
        last = self._last.setdefault(snapshot, {})
        covered = self._covered.setdefault(snapshot, {})
        asked: dict[Path, list[str]] = {}
        known: dict[Path, dict[str, Result]] = {}
        for folder, paths in folders.items():
            held = last.get(folder)
            quiet = held is not None and snapshot.changes.quiet(folder, held[0])
            have = known[folder] = held[1] if held is not None and quiet else {}
            if quiet and covered.get(folder) is paths:
                continue  # the very list of files it answered for last time: all held
            missing = [path for path in paths if path not in have]
            if missing:
                asked[folder] = missing
        fresh = self.source.metadata(snapshot, asked) if asked else {}
        for folder, missing in asked.items():
            held = last.get(folder)
            if known[folder]:  # quiet: what it held, and the files it did not hold yet
                known[folder] = {**known[folder], **{path: fresh[path] for path in missing}}
            elif held is not None and len(held[1]) == len(missing) and _same(held, missing, fresh):
                known[folder] = held[1]  # every file it held checked again: each as it was
            else:
                known[folder] = {path: fresh[path] for path in missing}
        for folder, results in known.items():
            last[folder] = (since, results)
            covered[folder] = folders[folder]
        if len(folders) == 1:
            return known[next(iter(folders))]
        parts = tuple(id(known[folder]) for folder in folders)
        merged = self._merged.get(snapshot)
        if merged is None or merged[0] != parts:
            out: dict[str, Result] = {}
            for folder in folders:
                out.update(known[folder])
            self._merged[snapshot] = merged = (parts, out)
        return merged[1]

    def one(self, snapshot: Snapshot, path: str) -> Result:
        return self.source.one(snapshot, path)

    def save(self) -> None:
        self.source.save()


def _same(held: tuple[int, dict[str, Result]], paths: list[str], fresh: dict[str, Result]) -> bool:
    """`fresh` gives each of `paths` the very result `held` has for it."""
    return all(held[1].get(path) is fresh[path] for path in paths)


def for_program(workspace: str | Path) -> ToolSource:
    """The source the `ctxscope` commands and the app build with: workers, results kept under
    the watcher, and the workspace's persistent cache in the user's cache folder."""
    return Remembered(Workers(ToolCache.default(Path(workspace).expanduser())))
