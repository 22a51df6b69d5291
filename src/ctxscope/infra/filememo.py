"""What is made from a file, made again only once the file changed: one memo for the small
read-heavy lookups a build repeats (an install's `package.json`, its skills, a catalog kept
in the cache). A file is taken as changed when its inode, modification time or size is.
Such files, and OpenClaw's session stores, are read by `read_regular`: a regular file only,
opened without blocking (a FIFO never hangs a read), up to a size."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

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


def read_regular(path: str | os.PathLike[str], cap: int) -> bytes:
    """The bytes of the regular file at `path` (links followed); OSError, its `strerror`
    saying why, for anything else: a folder, a FIFO, a device (`/dev/zero`), a socket, or a
    file of more than `cap` bytes. Opened non-blocking, so that a FIFO no one writes never
    hangs the read; the size is checked on the opened file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > cap:
            raise OSError(
                errno.EFBIG, f"{st.st_size:,} bytes, more than the {cap:,} read", str(path)
            )
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise OSError(errno.EFBIG, f"more than the {cap:,} bytes read", str(path))
    return data


PACKAGE_MAX = 16 * 1024 * 1024
"""The most bytes read of a runtime's `package.json`, SKILL.md or kept catalog (OpenClaw's
`package.json` is a few kB)."""


def read_json(path: str | os.PathLike[str], cap: int = PACKAGE_MAX) -> Any:
    """The JSON in the regular file at `path` (`read_regular`); ValueError for text that is
    no JSON, not UTF-8, or nested too deeply to parse; OSError for a file not read."""
    text = read_regular(path, cap).decode("utf-8")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
