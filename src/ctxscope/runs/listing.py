"""A state folder's listing kept between reads.

`KeptListing`: the inspector reads the stores again on each change of one: a database read
before is asked only for the entries written since its latest (`updated_at`, which OpenClaw
sets on each write of an entry, its index making the question cheap), merged into what was
read. Where the merged sessions are not as many as the database holds, or their times do
not add up to the database's (one deleted, or written again with an earlier time, as a
session reset writes 0), it is read whole again. A `sessions.json` is read whole each
time (2026.2's; no times to ask by).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxscope.model import Diagnostic
from ctxscope.runs.recorded import RecordedRun, StoreRead
from ctxscope.runs.store import (
    read_database,
    read_state,
    read_store,
    tally,
)


class KeptListing:
    """The listing's runs of each database, and the latest time of an entry in each."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[dict[str, RecordedRun], int]] = {}
        self.partial_reads = 0
        """Reads that asked a database only for its new entries."""

    def read(
        self, state: str | os.PathLike[str] | None, config: Mapping[str, Any] | None = None
    ) -> StoreRead:
        """`read_state(state, config, whole=False)`, each database read in part when it can."""
        return read_state(state, config, whole=False, reader=self._read)

    def _read(self, path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
        if path.suffix != ".sqlite":
            return read_store(path, whole=False)
        now = tally(path)
        kept = self._kept.get(str(path))
        if now is not None and kept is not None:
            runs, problems = read_database(path, whole=False, since=kept[1])
            if not any(p.code == "runs-store" for p in problems):
                merged = dict(kept[0])
                merged.update((r.session_key, r) for r in runs)
                total = sum(r.updated_at or 0 for r in merged.values())
                if (len(merged), total) == (now[0], now[2] or 0):
                    self.partial_reads += 1
                    return self._keep(path, merged, now[1], problems)
        runs, problems = read_database(path, whole=False)
        if now is None or any(p.code == "runs-store" for p in problems):
            self._kept.pop(str(path), None)
            return runs, problems
        return self._keep(path, {r.session_key: r for r in runs}, now[1], problems)

    def _keep(
        self,
        path: Path,
        runs: dict[str, RecordedRun],
        newest: int | None,
        problems: list[Diagnostic],
    ) -> tuple[list[RecordedRun], list[Diagnostic]]:
        """Keep `runs` (by key) up to `newest`; the store's problems, then those of its
        entries, in the order of the sessions."""
        if newest is None:
            self._kept.pop(str(path), None)
        else:
            self._kept[str(path)] = (runs, newest)
        found = [p for p in problems if p.code != "runs-entry"]
        found += [r.problem for r in runs.values() if r.problem is not None]
        return list(runs.values()), found


__all__ = ["KeptListing"]
