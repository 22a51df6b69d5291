"""An in-memory cache of script results, keyed by everything a run depends on.

The key is (the entry as configured, the script file's mtime_ns and size — None for URL
scripts —, the variables the script receives). A change to any of them runs the script again;
`clear()` forgets everything ("re-run scripts" in the TUI). Thread-safe.
"""

from __future__ import annotations

import threading

from ctxscope.scripts.entries import ScriptResult

CacheKey = tuple[str, str, tuple[int, int] | None, str]


class ScriptCache:
    """Results of earlier runs. Keep one across rebuilds."""

    def __init__(self) -> None:
        self._data: dict[CacheKey, ScriptResult] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: CacheKey) -> ScriptResult | None:
        with self._lock:
            found = self._data.get(key)
            if found is None:
                self.misses += 1
                return None
            self.hits += 1
            return found.as_cached()

    def put(self, key: CacheKey, result: ScriptResult) -> None:
        with self._lock:
            self._data[key] = result

    def clear(self) -> None:
        """Forget every result: the next build runs every script again."""
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
