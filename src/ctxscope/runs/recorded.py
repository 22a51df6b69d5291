"""A run OpenClaw recorded: one session entry of its session store, with the
`systemPromptReport` its last run left (field names as OpenClaw writes them)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import field
from typing import Any, Generic, TypeVar, overload

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record

_T = TypeVar("_T")


class _kept(Generic[_T]):
    """A property worked out on its first read and kept in the instance, as
    `functools.cached_property`, without the lock Python 3.11's takes on each first read
    (a listing reads two of each of thousands of runs)."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    @overload
    def __get__(self, obj: None, owner: type) -> _kept[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> _T: ...
    def __get__(self, obj: object | None, owner: type) -> _T | _kept[_T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


@record(frozen=True)
class RecordedFile:
    """One entry of the report's `injectedWorkspaceFiles`."""

    name: str
    path: str
    missing: bool
    raw_chars: int | None
    injected_chars: int | None
    truncated: bool


@record(frozen=True)
class RecordedRun:
    """One session of a store: who it is, where it came from, and the report of its last run
    (`report` is None for a session whose runs recorded none, as 2026.2 for `openclaw agent`
    and subagent runs)."""

    session_key: str
    agent_id: str
    store: str
    """The file the entry was read from (a `openclaw-agent.sqlite` or a `sessions.json`)."""
    store_kind: str
    """`sqlite` (OpenClaw 2026.9) or `json` (2026.2's `sessions.json`)."""
    spawned_by: str | None = None
    spawn_depth: int | None = None
    label: str | None = None
    updated_at: int | None = None
    """When OpenClaw last wrote the entry (ms since the epoch)."""
    report: dict[str, Any] | None = None
    """The entry's `systemPromptReport`, as recorded."""
    app_version: str | None = None
    """The OpenClaw release that wrote the store (2026.9's `schema_meta.app_version`)."""
    problem: Diagnostic | None = None
    """Why the entry could not be read whole (a corrupt `entry_json`), naming the store."""
    whole: bool = True
    """False for a run read for a listing: `report` holds only the figures a listing shows
    (`database.LISTED` and `generatedAt`); `store.read_whole` reads the rest."""
    recorded_files: tuple[RecordedFile, ...] | None = None
    """`files()` already made (shared by the runs of one shape), else made from `report`."""
    shape: str | None = None
    """For a run read for a listing: its listed figures as text. Runs of one agent with the
    same `shape` have the same figures but their `generatedAt`."""
    entry_model: str | None = None
    """The model the entry itself names (`modelProvider/model`, written after a run whether
    or not a report was recorded)."""

    @_kept  # a listing asks each run several times (tree, comparison, cells)
    def generated_at(self) -> int | None:
        """When the recorded report was made (ms since the epoch)."""
        value = self.report.get("generatedAt") if self.report is not None else None
        return value if type(value) is int else None  # an int, not a bool

    @_kept
    def when(self) -> int | None:
        """The report's time, else the entry's."""
        generated = self.generated_at
        return generated if generated is not None else self.updated_at

    @property
    def depth(self) -> int:
        """The spawn depth: recorded, else 0 for a session nobody spawned."""
        if isinstance(self.spawn_depth, int):
            return self.spawn_depth
        return 1 if self.spawned_by else 0

    def files(self) -> list[RecordedFile]:
        if self.recorded_files is not None:
            return list(self.recorded_files)
        return files_of(self.report)

    def model(self) -> str | None:
        """The model the run used: the report's `provider/model` (or its model alone), else
        the one the entry names; None when neither says."""
        provider, model = self.figure("provider"), self.figure("model")
        if isinstance(provider, str) and isinstance(model, str):
            return f"{provider}/{model}"
        return model if isinstance(model, str) else self.entry_model

    def figure(self, *path: str) -> Any:
        """A value of the report by its OpenClaw path (`figure("systemPrompt", "chars")`)."""
        value: Any = self.report
        for key in path:
            if not isinstance(value, dict):
                return None
            value = value.get(key)
        return value


def run_release(run: RecordedRun) -> tuple[str, str]:
    """The OpenClaw release that recorded `run` and how that is known: the store's own
    `app_version`, else its format (a `sessions.json` store is what the 2026.2 line writes,
    2026.9 writes SQLite)."""
    if run.app_version:
        return run.app_version, "its store says so"
    if run.store_kind == "json":
        return "2026.2", "a sessions.json store, which the 2026.2 line writes"
    if run.store_kind == "sqlite":
        return "2026.9", "a SQLite store, which the 2026.9 line writes"
    return "", ""


def same_release(a: str, b: str) -> bool:
    """Whether two releases are one: equal where both are whole (`2026.9.6`), else of one
    line (`2026.2` and `2026.2.19`)."""
    pa, pb = a.split("."), b.split(".")
    if len(pa) >= 3 and len(pb) >= 3:
        return pa[:3] == pb[:3]
    return pa[:2] == pb[:2]


@record
class StoreRead:
    """What reading a state folder's stores gave: the runs, and the problems (a missing,
    locked, corrupt or newer store), each naming its file."""

    state: str
    runs: list[RecordedRun] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    """Every store file read."""
    not_shown: int = 0
    """Sessions the read matched but left out: older than the newest it was asked for."""


def files_of(report: dict[str, Any] | None) -> list[RecordedFile]:
    """The report's `injectedWorkspaceFiles`."""
    out = []
    for item in _list(report, "injectedWorkspaceFiles"):
        if not isinstance(item, dict):
            continue
        out.append(
            RecordedFile(
                str(item.get("name") or ""),
                str(item.get("path") or ""),
                item.get("missing") is True,
                int_figure(item.get("rawChars")),
                int_figure(item.get("injectedChars")),
                item.get("truncated") is True,
            )
        )
    return out


def _list(report: dict[str, Any] | None, key: str) -> list[Any]:
    value = (report or {}).get(key)
    return value if isinstance(value, list) else []


@overload
def int_figure(value: Any) -> int | None: ...
@overload
def int_figure(value: Any, default: int) -> int: ...
def int_figure(value: Any, default: int | None = None) -> int | None:
    """A recorded figure as an int (a JSON number that is not a bool), else `default`."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def utc_time(seconds: float, suffix: str = "", fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
    """`seconds` since the epoch in UTC as `fmt` writes it, then `suffix`; a time no
    calendar date holds (a store's figure out of range) as its count of seconds."""
    try:
        return time.strftime(fmt, time.gmtime(seconds)) + suffix
    except (OverflowError, OSError, ValueError):
        return f"{seconds:.0f} s from 1970-01-01 (no date)"


_MINUTES: dict[int, str] = {}
"""Each minute's `YYYY-MM-DD HH:MM:` as `run_time` writes it (a listing's runs fall on few)."""
_SECONDS = [f"{n:02}" for n in range(60)]


def run_time(ms: int | None) -> str:
    """A run's time (ms since the epoch) in UTC, to the second, as a listing shows it (`-`
    for none)."""
    if not ms:
        return "-"
    minute, second = divmod(int(ms // 1000), 60)
    prefix = _MINUTES.get(minute)
    if prefix is None:
        if len(_MINUTES) >= 65536:  # a long-lived app's: kept bounded
            _MINUTES.clear()
        whole = utc_time(minute * 60)
        if len(whole) != 19:  # a time no date holds, or a year past 9999: not kept
            return utc_time(ms / 1000)
        prefix = _MINUTES[minute] = whole[:-2]
    return prefix + _SECONDS[second]


def same_folder(a: str, b: str) -> bool:
    """Whether two paths name the same folder as written (`~` expanded, normalised)."""
    return os.path.normpath(os.path.expanduser(a)) == os.path.normpath(os.path.expanduser(b))


def path_now(recorded: RecordedFile, run: RecordedRun, session: Session) -> str:
    """Where a file the run had is looked for today: its recorded path, or, when the run's
    workspace (`workspaceDir`) is not the one ctxscope reads (the workspace moved, or the run
    was elsewhere), the same place under today's workspace for a file under the run's."""
    then = run.figure("workspaceDir")
    return moved(recorded.path, then if isinstance(then, str) else "", session.workspace)


def moved(path: str, then: str, workspace: str) -> str:
    """`path`, which a run in workspace `then` read, where it is looked for under
    `workspace` today (itself where the run's workspace is unknown or the same, or the file
    was outside it)."""
    if not path or not then or same_folder(then, workspace):
        return path
    then = os.path.normpath(os.path.expanduser(then))
    norm = os.path.normpath(os.path.expanduser(path))
    try:
        inside = os.path.commonpath([then, norm]) == then
    except ValueError:  # one absolute, one relative
        inside = False
    if not inside:
        return path
    return os.path.join(workspace, os.path.relpath(norm, then))
