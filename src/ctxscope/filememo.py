"""What is made from a file, made again only once the file changed: one memo for the small
read-heavy lookups a build repeats (an install's `package.json`, its skills, a catalog kept
in the cache). A file is taken as changed when its inode, modification time or size is."""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

Stamp = tuple[int, int, int]


def file_stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """The file's inode, modification time (ns) and size; None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


class FileMemo(Generic[T]):
    """Values made from files, each kept with the stamp its file had then."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[Stamp, T]] = {}

    def get(self, key: Hashable, path: str | os.PathLike[str], make: Callable[[], T]) -> T:
        """The value kept for `key` while `path` is unchanged, else `make()` (kept only when
        `path` exists)."""
        stamp = file_stamp(path)
        kept = self._kept.get(key)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return kept[1]
        value = make()
        if stamp is not None:
            self._kept[key] = (stamp, value)
        return value
