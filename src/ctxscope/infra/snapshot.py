"""Cached, capped, forgiving file reading.

Every file the engine looks at goes through a `Snapshot`. A read is cached by the file's
(mtime_ns, size, inode); a rebuild re-stats every path but re-reads only the ones that
changed. Reading never raises on user content: binary, non-UTF-8, unreadable, oversized files
and symlink loops come back as a `FileRead` with diagnostics.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from functools import cached_property
from pathlib import Path

from ctxscope.core.changefeed import ChangeFeed
from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record

MAX_READ_BYTES = 2 * 1024 * 1024
"""OpenClaw reads each bootstrap file with a 2 MiB cap; the same cap applies to every file."""

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""What JavaScript's `trimEnd()` removes (WhiteSpace and LineTerminator code points): the
runtimes trim each file they inject."""


@record(frozen=True)
class FileRead:
    """The outcome of reading one path."""

    path: str
    exists: bool
    """True when the path names a readable regular file."""
    text: str
    """Decoded content (UTF-8, undecodable bytes replaced), at most the cap."""
    size: int
    """Bytes on disk (0 when missing)."""
    capped: bool = False
    """True when the file was larger than the cap and only its head was read."""
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str = ""
    """Why a path that is there could not be read: an errno name (`EACCES`, `ELOOP`, ...) or
    `not-regular`; empty when it was read or is simply absent."""
    bom: bool = False
    """The file starts with a UTF-8 byte-order mark (taken out of `text`)."""

    @cached_property
    def realpath(self) -> str:
        """The path with every link resolved (computed on first use: it costs an lstat per
        path component)."""
        return os.path.realpath(self.path)

    @cached_property
    def as_loaded(self) -> str:
        """The text as OpenClaw's loader injects it: a byte-order mark kept, trailing
        whitespace trimmed (`trimEnd()`, which also takes a mark with nothing after it)."""
        return ("\ufeff" + self.text).rstrip(JS_WHITESPACE) if self.bom else self.trimmed_end

    @cached_property
    def trimmed_end(self) -> str:
        """`text` without its trailing whitespace as JavaScript's `trimEnd()` sees it (made
        once per read: for a 2 MiB file the copy costs a millisecond per use)."""
        return self.text.rstrip(JS_WHITESPACE)


Stamp = tuple[int, int, int]
"""A file's (mtime_ns, size, inode): it changes when the file is written or replaced."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
"""Opening to read never waits (on a FIFO: a path replaced between its listing or stat and its
open) and never makes a terminal device this process's controlling terminal."""


@record(frozen=True)
class Listing:
    """One folder's entries (links followed), each sorted by name."""

    mtime: int
    """The folder's mtime_ns when listed; -1 when it could not be read."""
    files: tuple[str, ...]
    dirs: tuple[str, ...]
    links: frozenset[str] = frozenset()
    """The names among `files` and `dirs` that are symbolic links."""


class Snapshot:
    """Reads files through a stat-keyed cache. Not thread-safe; one per engine."""

    def __init__(self, cap: int = MAX_READ_BYTES) -> None:
        self.cap = cap
        self._cache: dict[str, tuple[Stamp, FileRead]] = {}
        self._dirs: dict[str, Listing] = {}
        self._digests: dict[str, tuple[tuple[int, ...], str]] = {}
        self.reads = 0
        """How many times a file was actually read from disk (for tests and benchmarks)."""
        self.changes = ChangeFeed()
        """What the app's file watcher reported (nothing, without one)."""

    def read(self, path: str | os.PathLike[str]) -> FileRead:
        """Read `path` (absolute or relative to the cwd), from cache when unchanged."""
        apath = os.path.abspath(path)
        try:
            st = os.stat(apath)
        except OSError as exc:
            self._cache.pop(apath, None)
            return self._missing(apath, exc)
        if not _is_regular(st.st_mode):
            self._cache.pop(apath, None)
            return FileRead(
                apath,
                False,
                "",
                0,
                diagnostics=(
                    Diagnostic("warning", "not a regular file", apath, code="file-not-regular"),
                ),
                error="not-regular",
            )
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        hit = self._cache.get(apath)
        if hit is not None and hit[0] == key:
            return hit[1]
        result = self._read_fresh(apath, st.st_size)
        self._cache[apath] = (key, result)
        return result

    def stamp(self, path: str | os.PathLike[str]) -> Stamp | None:
        """(mtime_ns, size, inode) of `path` as it was when this snapshot last read it (taken
        before reading: a change made during the read shows as a change later); None when it
        was never read or could not be."""
        hit = self._cache.get(os.path.abspath(path))
        return hit[0] if hit is not None else None

    def listdir(self, path: str | os.PathLike[str]) -> Listing:
        """The sorted files and subfolders of a folder (empty when it is not one), cached
        by the folder's mtime: adding, removing or renaming an entry changes it."""
        apath = os.path.abspath(path)
        try:
            mtime = os.stat(apath).st_mtime_ns
        except OSError:
            self._dirs.pop(apath, None)
            return Listing(-1, (), ())
        hit = self._dirs.get(apath)
        if hit is not None and hit.mtime == mtime:
            return hit
        files: list[str] = []
        dirs: list[str] = []
        links: list[str] = []
        try:
            with os.scandir(apath) as it:
                for entry in it:
                    try:  # the entry's own type comes with the listing: no stat
                        if entry.is_file(follow_symlinks=False):
                            files.append(entry.name)
                        elif entry.is_dir(follow_symlinks=False):
                            dirs.append(entry.name)
                        elif entry.is_symlink():  # what it links to decides
                            if entry.is_dir():
                                dirs.append(entry.name)
                            elif entry.is_file():
                                files.append(entry.name)
                            else:
                                continue
                            links.append(entry.name)
                    except OSError:
                        continue
        except OSError:
            return Listing(mtime, (), ())
        listing = Listing(mtime, tuple(sorted(files)), tuple(sorted(dirs)), frozenset(links))
        self._dirs[apath] = listing
        return listing

    def digest(self, path: str | os.PathLike[str]) -> str | None:
        """The sha256 (hex) of a regular file's whole content, None when there is none; cached
        by the file's stat, ctime included (a same-size edit with its mtime put back still
        changes the ctime)."""
        apath = os.path.abspath(path)
        try:
            st = os.stat(apath)
            if not _is_regular(st.st_mode):
                return None
            key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
            hit = self._digests.get(apath)
            if hit is not None and hit[0] == key:
                return hit[1]

            with open(apath, "rb") as fh:
                value = hashlib.file_digest(fh, "sha256").hexdigest()
        except OSError:
            self._digests.pop(apath, None)
            return None
        self._digests[apath] = (key, value)
        return value

    def _missing(self, apath: str, exc: OSError) -> FileRead:
        diags: tuple[Diagnostic, ...] = ()
        absent = exc.errno in (errno.ENOENT, errno.ENOTDIR)
        code = "" if absent else errno.errorcode.get(exc.errno or 0, "")
        if exc.errno == errno.ELOOP:
            diags = (Diagnostic("error", "symlink loop", apath, code="file-symlink-loop"),)
        elif not absent:
            diags = (
                Diagnostic("error", f"cannot read: {exc.strerror}", apath, code="file-unreadable"),
            )
        return FileRead(apath, False, "", 0, diagnostics=diags, error=code)

    def _read_fresh(self, apath: str, size: int) -> FileRead:
        self.reads += 1
        try:
            data = _read_bytes(apath, size, self.cap)
        except OSError as exc:
            return (
                self._missing(apath, exc)
                if exc.errno != errno.ENOENT
                else FileRead(apath, False, "", 0)
            )
        return decoded(apath, data, size, self.cap)


def read_stamped(path: str, cap: int = MAX_READ_BYTES) -> tuple[FileRead, Stamp] | None:
    """One regular file read as `Snapshot.read` reads it, with the (mtime_ns, size, inode)
    of the file opened, taken before reading, and no cache; None when it is not a readable
    regular file (a snapshot's read says why). The file is opened first and its stamp asked
    of the open file: one path lookup, not two, and a stamp that is the read file's even
    when the path is replaced meanwhile."""
    opened = _read_regular(path, cap)
    if opened is None:
        return None
    data, st = opened
    return decoded(path, data, st.st_size, cap), (st.st_mtime_ns, st.st_size, st.st_ino)


def read_own_file(path: str | os.PathLike[str], cap: int) -> bytes | None:
    """The bytes of a file ctxscope wrote itself (a cache), read back as untrusted input:
    None when it is absent, not a regular file (a FIFO put in its place never blocks the
    read) or larger than `cap`."""
    opened = _read_regular(path, cap)
    if opened is None or len(opened[0]) > cap:
        return None
    return opened[0]


def _read_regular(path: str | os.PathLike[str], cap: int) -> tuple[bytes, os.stat_result] | None:
    """What the regular file at `path` holds, to `cap` bytes and one more, with the stat of
    the file opened; None when it cannot be opened or is not a regular file."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
        try:
            st = os.fstat(fd)
            if not _is_regular(st.st_mode):
                return None
            return _read_fd(fd, st.st_size, cap), st
        finally:
            os.close(fd)
    except OSError:
        return None


def _read_bytes(path: str, size: int, cap: int) -> bytes:
    """`_read_fd` of `path`, opened as a plain descriptor (a buffered file object costs more
    system calls than the read itself)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        return _read_fd(fd, size, cap)
    finally:
        os.close(fd)


def _read_fd(fd: int, size: int, cap: int) -> bytes:
    """What an open file of `size` bytes holds, to `cap` bytes and one more (to see growth
    past the cap): asking for the whole cap would allocate 2 MiB for every small file."""
    want = min(size, cap) + 1
    chunks: list[bytes] = []
    while want > 0:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        want -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def decoded(apath: str, data: bytes, size: int, cap: int) -> FileRead:
    """The bytes read of a file of `size` bytes, as text with what a reader must know: past
    the cap, UTF-16, binary, not UTF-8."""
    diags: list[Diagnostic] = []
    capped = len(data) > cap
    if capped:
        data = data[:cap]
        diags.append(
            Diagnostic(
                "warning",
                f"file is {size:,} bytes; only the first {cap:,} bytes are read (2 MiB cap)",
                apath,
                code="file-over-cap",
            )
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = data.decode("utf-16", errors="replace")
        diags.append(
            Diagnostic(
                "warning",
                "UTF-16 text (byte-order mark): shown decoded as UTF-16, but the runtime "
                "reads files as UTF-8 and would see it garbled; save it as UTF-8",
                apath,
                code="file-encoding",
            )
        )
        return FileRead(apath, True, text, size, capped, tuple(diags))
    if b"\x00" in data[:8192]:
        diags.append(
            Diagnostic(
                "warning",
                "binary file (NUL bytes); decoded as text anyway",
                apath,
                code="file-binary",
            )
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if capped and exc.start >= len(data) - 3:
            # The cap cut a multi-byte character in half: not the file's fault.
            text = data[: exc.start].decode("utf-8", errors="replace")
        else:
            line = data[: exc.start].count(b"\n") + 1
            diags.append(
                Diagnostic(
                    "warning",
                    f"not valid UTF-8 (byte {exc.start}); invalid bytes replaced",
                    apath,
                    line=line,
                    code="file-encoding",
                )
            )
            text = data.decode("utf-8", errors="replace")
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    return FileRead(apath, True, text, size, capped, tuple(diags), bom=bom)


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)


def is_dir(path: str | Path) -> bool:
    """True when `path` is a folder (following links), False on any error."""
    try:
        return os.path.isdir(path)
    except OSError:
        return False
