"""A persistent cache of tool metadata, so a new process does not re-parse unchanged tools.

Extracting a tool's metadata means parsing the whole Python file (AST only); for a space with
thousands of tools that dominates a cold build. Results are kept in the user's cache folder
(`ctxscope.infra.paths.cache_dir`), keyed by the tool file's path, mtime, size and inode, like a
compiler's cache. A build only reads and adds to it in memory; the caller saves it. It never
stores anything in the workspace; an unreadable, corrupt or unwritable cache is not used.

The file is written with `marshal` (what Python's own bytecode cache uses: plain dicts, lists
and strings, read back several times faster than JSON), headed by this Python's marshal
format version so a file written by another Python is simply not used. An entry read back is
checked before it is used (`well_formed`: the shape `put` stores, a schema of plain JSON
data); one that is not is dropped, as if never stored, and the next save writes the cache
without it.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.version import __version__
from ctxscope.infra import tuning
from ctxscope.infra.paths import replace_file, tool_cache_file
from ctxscope.infra.snapshot import Stamp, read_own_file

Result = tuple[dict[str, Any] | None, list[Diagnostic]]

MAX_CACHE_BYTES = 256 * 1024 * 1024
"""A larger cache file is not read (a space of 20,000 tools keeps about 10 MB)."""

_SEVERITIES = frozenset(("error", "warning", "info"))
_DIAG_KEYS = frozenset(("severity", "message", "code", "path", "line", "column"))
_META_KEYS = frozenset(("schema", "description", "chars", "repr_chars"))
_LEAVES = frozenset((str, int, bool, type(None)))


def well_formed(hit: Any) -> bool:
    """`hit` is an entry as `put` stores it: [stamp (three ints), metadata (None, or a dict
    with a `schema` of JSON data, a `description` and its sizes), diagnostics (dicts of
    `Diagnostic` fields)]. Written out flat: a cold build of a large space checks thousands."""
    if type(hit) is not list or len(hit) != 3:
        return False
    stamp, meta, diags = hit
    if type(stamp) not in (tuple, list) or len(stamp) != 3:
        return False
    if type(stamp[0]) is not int or type(stamp[1]) is not int or type(stamp[2]) is not int:
        return False
    if meta is not None:
        if type(meta) is not dict or not meta.keys() <= _META_KEYS:
            return False
        chars, size = meta.get("chars"), meta.get("repr_chars", 0)
        if type(chars) is not int or type(size) is not int or chars < 0 or size < 0:
            return False
        if type(meta.get("description")) is not str or not json_object(meta.get("schema")):
            return False
    if type(diags) is not list:
        return False
    return not diags or all(_diagnostic(d) for d in diags)


def json_object(value: Any) -> bool:
    """`value` is a dict of plain JSON data: dicts with string keys, lists, strings, ints,
    finite floats, booleans and None (walked without recursion: no depth is too deep)."""
    if type(value) is not dict:
        return False
    stack: list[Any] = [value]
    pop, push, extend, leaves = stack.pop, stack.append, stack.extend, _LEAVES
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key, inner in item.items():
                if type(key) is not str:
                    return False
                if type(inner) is not str:
                    push(inner)
        elif kind is list:
            extend(item)
        elif kind is float:
            if item - item != 0:  # inf and nan
                return False
        elif kind not in leaves:
            return False
    return True


def _diagnostic(d: Any) -> bool:
    if type(d) is not dict or not d.keys() <= _DIAG_KEYS:
        return False
    if type(d.get("severity")) is not str or d["severity"] not in _SEVERITIES:
        return False
    if type(d.get("message")) is not str or type(d.get("code", "")) is not str:
        return False
    if type(d.get("path")) not in (str, type(None)):
        return False
    return all(
        type(d.get(k)) is type(None) or (type(d[k]) is int and d[k] >= 0)
        for k in ("line", "column")
    )


def stamp_of(path: str) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class ToolCache:
    """path -> (stamp, metadata, diagnostics), loaded lazily, saved when it changed."""

    @classmethod
    def default(cls, workspace: str | Path | None = None) -> ToolCache:
        """The cache file of this ctxscope version (and of `workspace`, when given) in the
        user's cache folder."""
        return cls(lambda: tool_cache_file(__version__, workspace))

    def __init__(self, file: Path | Callable[[], Path]) -> None:
        """`file`: the cache file, or what names it (asked on first use: a run that never
        touches Rye tools never works it out)."""
        self._file = file
        self._entries: dict[str, list[Any]] | None = None
        self._dirty = False
        self._pruned = False
        self._put: set[str] = set()
        """Paths stored by this process: their files were there a moment ago."""
        self._checked: set[str] = set()
        """Paths whose entry was found well formed (or stored by this process)."""
        self._lock = threading.Lock()

    @property
    def file(self) -> Path:
        if not isinstance(self._file, Path):
            self._file = self._file()
        return self._file

    def _load(self) -> dict[str, list[Any]]:
        """The entries, read on first use (with the collector held off meanwhile and the
        entries then settled: a large space's cache holds tens of thousands of containers,
        kept as long as the process)."""
        if self._entries is None:
            raw = read_own_file(self.file, MAX_CACHE_BYTES)
            try:
                if raw is None:
                    raise ValueError("no usable cache file")
                with tuning.paused():
                    version, data = marshal.loads(raw)
                tuning.settle()
                ok = version == marshal.version and isinstance(data, dict)
                self._entries = data if ok else {}
            except (OSError, ValueError, EOFError, TypeError):
                self._entries = {}
        return self._entries

    def _hit(self, path: str) -> list[Any] | None:
        """The entry for `path`, once checked; one not `well_formed` is dropped (and the
        cache is saved without it)."""
        with self._lock:
            entries = self._load()
            hit = entries.get(path)
            if hit is None or path in self._checked:
                return hit
            if well_formed(hit):
                self._checked.add(path)
                return hit
            del entries[path]
            self._dirty = True
            return None

    def get(self, path: str, stamp: Stamp) -> Result | None:
        hit = self._hit(path)
        if hit is None or tuple(hit[0]) != stamp:
            return None
        return hit[1], [Diagnostic(**d) for d in hit[2]]

    def has(self, path: str, stamp: Stamp) -> bool:
        return self.held(path) == stamp

    def held(self, path: str) -> Stamp | None:
        """The stamp of the file the cache holds a result for at `path`, if any (checking
        it first spares a stat of each file the cache has never seen)."""
        hit = self._hit(path)
        return None if hit is None else tuple(hit[0])

    def blank(self) -> bool:
        """Nothing stored yet: no cache file was ever written (the first look at a
        workspace), or the one loaded holds nothing. Checked without loading the file."""
        with self._lock:
            if self._entries is not None:
                return not self._entries
        try:
            return not self.file.exists()
        except OSError:
            return True

    def put(self, path: str, stamp: Stamp, result: Result) -> None:
        """Remember `result`; its metadata must be plain data (the extractors refuse any
        schema JSON cannot carry), or the next save writes nothing."""
        meta, diags = result
        self.put_plain([(path, stamp, meta, [d.to_dict() for d in diags])])

    def put_plain(self, results: list[tuple[str, Stamp, dict[str, Any] | None, list[Any]]]) -> None:
        """Remember many results at once, each with its diagnostics as dictionaries
        (`Diagnostic.to_dict`)."""
        with self._lock:
            entries = self._load()
            for path, stamp, meta, diags in results:
                entries[path] = [stamp, meta, diags]
                self._put.add(path)
                self._checked.add(path)
            self._dirty = self._dirty or bool(results)

    def save(self) -> None:
        """Write the cache atomically if it changed; failures are ignored. The first save of
        a process drops the entries of tool files that are gone (a cache never grows with
        files deleted long ago)."""
        with self._lock:
            if not self._dirty or self._entries is None:
                return
            if not self._pruned:
                self._pruned = True
                gone = [
                    p
                    for p in self._entries
                    if p not in self._put and (type(p) is not str or not os.path.exists(p))
                ]
                for path in gone:
                    del self._entries[path]
            try:
                data = marshal.dumps((marshal.version, self._entries))
            except ValueError:  # something marshal cannot carry: nothing is saved
                return
            self._dirty = False
        with contextlib.suppress(OSError):
            replace_file(self.file, data)
