"""OpenClaw's session stores, found and read strictly read-only.

Where (read from the runtimes' code):

- the state folder is `$OPENCLAW_STATE_DIR` (`~` expanded), else `~/.openclaw`;
- 2026.9 keeps one SQLite database per agent, `<state>/agents/<id>/agent/openclaw-agent.sqlite`
  (WAL mode; table `session_nodes`, one row per session key, `entry_json` the entry);
- 2026.2 keeps `<state>/agents/<id>/sessions/sessions.json`, a map from session key to
  entry (2026.9 imports such files into its database);
- a config's `session.store` moves the store: `{agentId}` is replaced by each agent's id, `~`
  is the home folder, a relative path is taken from the current folder. 2026.9 keeps its
  database beside it: `<dir>/openclaw-agent.sqlite` and the agent-suffixed
  `<dir>/openclaw-agent.<id>[.N].sqlite` (a `.sqlite` store path is the database itself; a
  `sessions.json` under `agents/<id>/sessions/` is that agent's default database).

Nothing in the state folder changes, not even a database's `-wal` and `-shm` files: a
database with a `-wal` file (a gateway that runs, or one that stopped without merging it) is
opened `mode=ro&readonly_shm=1`, which reads the latest turn from the WAL and writes no lock
mark into the `-shm`; one without is read as `immutable=1`, the file being the whole truth
(a read-only open would create an empty `-wal` and a `-shm` beside it). A missing, locked,
corrupt or newer store, and a corrupt entry, is a problem naming the file; the rest is read.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ctxscope.filememo import read_regular
from ctxscope.ids import normalize_agent_id
from ctxscope.model import Diagnostic
from ctxscope.paths import home
from ctxscope.runs.recorded import RecordedFile, RecordedRun, StoreRead, files_of, int_figure
from ctxscope.runs.scan import Scan

if TYPE_CHECKING:
    from ctxscope.runs.ahead import _Database

SCHEMA_VERSION = 23
"""The newest `schema_meta.schema_version` of an agent database ctxscope knows (2026.9.6's)."""
DATABASE = "openclaw-agent.sqlite"
MAX_JSON_BYTES = 256 * 1024 * 1024
"""A `sessions.json` larger than this is not read (OpenClaw's own stores stay far below)."""


def state_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The state folder: `explicit`, else `$OPENCLAW_STATE_DIR`, else `~/.openclaw`."""
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(str(explicit))))
    override = os.environ.get("OPENCLAW_STATE_DIR", "").strip()
    if override:
        return Path(os.path.abspath(_expand_home(override)))
    return home() / ".openclaw"


def state_folder(given: str | None, config_path: str | None) -> str | None:
    """The state folder `--state` names, else the config's folder when it holds an agent's
    session store (`agents/<id>/agent/openclaw-agent.sqlite` or
    `agents/<id>/sessions/sessions.json`: a config kept in its state folder, as OpenClaw keeps
    it; an `agents/` folder of agent workspaces is not one); None: `$OPENCLAW_STATE_DIR`, else
    `~/.openclaw` (`runs.state_dir`)."""
    if given:
        return os.path.abspath(os.path.expanduser(given))
    if os.environ.get("OPENCLAW_STATE_DIR", "").strip():
        return None  # read_state takes it
    if config_path:
        folder = Path(config_path).parent
        if _holds_a_store(folder / "agents"):
            return str(folder)
    return None


def _holds_a_store(agents: Path) -> bool:
    try:
        with os.scandir(agents) as listing:
            return any(_agent_store(entry) for entry in listing)
    except OSError:
        return False


def _agent_store(entry: os.DirEntry[str]) -> bool:
    """Whether the entry of `agents/` is a folder holding a session store."""
    try:
        return entry.is_dir() and (
            os.path.isfile(os.path.join(entry.path, "agent", DATABASE))
            or os.path.isfile(os.path.join(entry.path, "sessions", "sessions.json"))
        )
    except OSError:  # a loop of links
        return False


def _expand_home(value: str) -> str:
    if value == "~" or value.startswith(("~/", "~" + os.sep)):
        return str(home()) + value[1:]
    return value


def agent_ids(
    state: Path, config: Mapping[str, Any] | None = None, problems: list[Diagnostic] | None = None
) -> list[str]:
    """The agents whose stores to read: those with a folder under `<state>/agents`, those
    the config lists, and `main`. What cannot be listed there is added to `problems`."""
    found: dict[str, None] = {"main": None}
    agents = (config or {}).get("agents")
    if isinstance(agents, dict):
        roster = agents.get("list")
        if isinstance(roster, list):
            for item in roster:
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    found[normalize_agent_id(item["id"])] = None
        entries = agents.get("entries")
        if isinstance(entries, dict):
            for key in entries:
                if isinstance(key, str):
                    found[normalize_agent_id(key)] = None
    try:
        with os.scandir(state / "agents") as listing:
            for entry in listing:
                try:
                    if entry.is_dir():
                        found[entry.name] = None
                except OSError as exc:  # a loop of links: the others are still read
                    _note(problems, entry.path, f"not read: {exc.strerror or exc}")
    except FileNotFoundError:
        pass
    except OSError as exc:
        _note(problems, str(state / "agents"), f"cannot list the agents: {exc.strerror or exc}")
    return sorted(found)


def _note(problems: list[Diagnostic] | None, path: str, message: str) -> None:
    if problems is not None:
        problems.append(Diagnostic("error", message, path, code="runs-store"))


def store_files(
    state: Path,
    config: Mapping[str, Any] | None = None,
    agents: Iterable[str] = (),
    problems: list[Diagnostic] | None = None,
) -> list[Path]:
    """Every store file that exists for the state folder and config, databases before
    `sessions.json` files (the database wins for a key in both); what cannot be looked at
    is added to `problems`."""
    ids = sorted({*agents} | {*agent_ids(state, config, problems)})
    session = (config or {}).get("session")
    template = session.get("store") if isinstance(session, dict) else None
    candidates: list[Path] = []
    if isinstance(template, str) and template.strip():
        for agent in ids:
            candidates += _custom_store(template.strip(), agent)
    else:
        for agent in ids:
            candidates.append(state / "agents" / agent / "agent" / DATABASE)
            candidates.append(state / "agents" / agent / "sessions" / "sessions.json")
    unique = list(dict.fromkeys(candidates))
    present = [p for p in unique if _is_file(p, problems)]
    return sorted(present, key=lambda p: (p.suffix != ".sqlite", str(p)))


def _is_file(path: Path, problems: list[Diagnostic] | None) -> bool:
    try:
        return path.is_file()
    except OSError as exc:
        _note(problems, str(path), f"cannot look at the session store: {exc.strerror or exc}")
        return False


def _custom_store(template: str, agent: str) -> list[Path]:
    path = Path(os.path.abspath(_expand_home(template.replace("{agentId}", agent))))
    if path.suffix == ".sqlite":
        return [path]
    out = [path]  # 2026.2 reads the JSON file itself
    if path.name == "sessions.json" and path.parent.name == "sessions":
        agent_dir = path.parent.parent
        if agent_dir.parent.name == "agents":
            return [agent_dir / "agent" / DATABASE, *out]
    base = path.stem if path.name != "sessions.json" else "openclaw-agent"
    folder = path.parent
    out.insert(0, folder / f"{base}.sqlite")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    out[1:1] = [folder / n for n in names if n.startswith(f"{base}.") and n.endswith(".sqlite")]
    return out


def read_state(
    state: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
    agents: Iterable[str] = (),
    *,
    whole: bool = True,
    lineage: str | None = None,
    reader: Callable[[Path], tuple[list[RecordedRun], list[Diagnostic]]] | None = None,
) -> StoreRead:
    """Every recorded session of the state folder (`state_dir()` by default). `whole`:
    each report whole, else what a listing shows (see `LISTED`; `read_whole` reads the
    rest of the runs wanted). `lineage`: a session key; a database's other sessions than
    it and those it spawned, at any depth, may be left unread. `reader`: reads one store
    file in place of `read_store` (`listing.KeptListing`'s)."""
    folder = state_dir(state)
    read = StoreRead(str(folder))
    if not folder.is_dir():
        read.problems.append(
            Diagnostic(
                "error",
                "no OpenClaw state folder here (set --state DIR or $OPENCLAW_STATE_DIR)",
                str(folder),
                code="runs-no-state",
            )
        )
        return read
    seen: set[str] = set()
    for path in store_files(folder, config, agents, read.problems):
        if reader is not None:
            runs, problems = reader(path)
        else:
            runs, problems = read_store(path, whole=whole, lineage=lineage)
        read.stores.append(str(path))
        read.problems += problems
        for run in runs:
            if run.session_key not in seen:
                seen.add(run.session_key)
                read.runs.append(run)
    if not read.stores and not read.problems:
        read.problems.append(
            Diagnostic(
                "info",
                "no session store in this state folder: OpenClaw has recorded no run here",
                str(folder),
                code="runs-none",
            )
        )
    return read


def read_store(
    path: Path,
    *,
    whole: bool = True,
    keys: Iterable[str] | None = None,
    lineage: str | None = None,
    ahead: _Database | None = None,
) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """The sessions of one store file (`keys`: only these; `lineage`: see `read_state`;
    `ahead`: its listing under way in other processes), and its problems."""
    if path.suffix == ".sqlite":
        return read_database(path, whole=whole, keys=keys, lineage=lineage, ahead=ahead)
    runs, problems = read_sessions_json(path)
    if keys is not None:
        wanted = set(keys)
        runs = [r for r in runs if r.session_key in wanted]
    return runs, problems


def read_whole(runs: Iterable[RecordedRun]) -> list[RecordedRun]:
    """`runs` with their reports whole (those read for a listing are read again, by key,
    from their stores); a run its store no longer holds stays as it was."""
    runs = list(runs)
    by_store: dict[str, list[str]] = {}
    for run in runs:
        if not run.whole:
            by_store.setdefault(run.store, []).append(run.session_key)
    again: dict[tuple[str, str], RecordedRun] = {}
    for store, keys in by_store.items():
        for at in range(0, len(keys), 500):  # SQLite's limit on a statement's parameters
            found, _ = read_store(Path(store), keys=keys[at : at + 500])
            again.update(((store, r.session_key), r) for r in found)
    return [again.get((r.store, r.session_key), r) for r in runs]


def _problem(path: Path, message: str, code: str, severity: str = "error") -> Diagnostic:
    return Diagnostic(severity, message, str(path), code=code)  # type: ignore[arg-type]


def _connect(path: Path) -> sqlite3.Connection:
    """A read-only connection that changes nothing beside the database (see the module)."""
    return open_uri(uri_of(path))


def uri_of(path: Path) -> str:
    wal = Path(f"{path}-wal")
    query = "mode=ro&readonly_shm=1" if wal.exists() else "immutable=1"
    return f"file:{quote(str(path), safe='/')}?{query}"


def _tolerant_text(data: bytes) -> str:
    """A text column's value, its bytes that are not UTF-8 kept as escapes (as a file name
    that is not UTF-8 is shown)."""
    return data.decode("utf-8", "surrogateescape")


def _close_later(con: sqlite3.Connection) -> None:
    """`con` closed on a thread of its own: a listing's connection maps the database into
    memory (`mmap_size`), which takes milliseconds to unmap, without Python's lock, while
    the caller goes on."""
    threading.Thread(target=con.close, daemon=True).start()


READ_SECONDS = 120.0
"""The longest a connection to a store reads: a statement still running then is stopped
(`sqlite3.OperationalError: interrupted`, said as `TOO_LONG`). A store OpenClaw wrote is
read in seconds; only a crafted one runs on."""
TOO_LONG = "reading it took more than {:g} s: stopped"


def open_uri(uri: str) -> sqlite3.Connection:
    """A connection to the database at `uri`, which reads for `READ_SECONDS` at most."""
    con = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
    deadline = time.monotonic() + READ_SECONDS
    con.set_progress_handler(lambda: time.monotonic() > deadline, 100_000)
    return con


_COLUMNS = ("session_key", "entry_json", "spawned_by", "label", "updated_at")


def picked_columns(columns: list[str]) -> str:
    """`_COLUMNS` as a query picks them from a table of `columns` (NULL for one it lacks)."""
    return ", ".join(c if c in columns else "NULL" for c in _COLUMNS)


_R = "$.systemPromptReport"
LISTED = (
    "provider",
    "model",
    "workspaceDir",
    "bootstrapMaxChars",
    "bootstrapTotalMaxChars",
    "sandbox.mode",
    "systemPrompt.chars",
    "systemPrompt.projectContextChars",
    "systemPrompt.nonProjectContextChars",
    "injectedWorkspaceFiles",
    "tools.listChars",
    "tools.schemaChars",
    "skills.promptChars",
    "tools.entries",
    "skills.entries",
)
"""The report's figures a listing reads (its `when` aside): found in each entry's text as
OpenClaw writes it (`scan.Scan`), else pulled out of the entry by SQLite (`json_extract`,
in C), so a listing of thousands of sessions parses no entry in Python. Sessions of one
agent whose figures are the same share one parsed copy. The hashes are left out: a
session's prompt names its key, so its hash is its own, and a listing compares sizes
(exact mode reads each report whole)."""

_VARYING = (
    f"json_extract(entry_json, '$.spawnDepth', '$.updatedAt', '{_R}.generatedAt', "
    "'$.spawnedBy', '$.label')"
)
"""What varies from session to session."""
_FIGURES = "json_extract(entry_json, " + ", ".join(f"'{_R}.{p}'" for p in LISTED) + ")"
"""The listed figures: alike across the sessions of one shape, parsed once per shape.
SQLite parses an entry once for both calls."""
# Each entry is checked first: NULL for one that is no strict JSON (as reading it whole
# finds it), whatever the other entries of the statement hold (`json_extract` alone fails
# the statement on a malformed entry, and takes JSON5 from SQLite 3.42 on). An entry that
# is no JSON object gives only nulls, as an object lacking every field does: those few are
# read again whole (`_raw_entries`). The check costs nothing measurable: SQLite parses an
# entry once for the three calls.
_CHECKED = (
    f"CASE WHEN json_valid(entry_json) THEN {_VARYING} END, "
    f"CASE WHEN json_valid(entry_json) THEN {_FIGURES} END"
)
_ONE = f"SELECT {_CHECKED} FROM session_nodes WHERE rowid = ?"
"""One entry's listed figures as SQLite reads them (a shape's first entry, checked)."""
_ARRAY = json.JSONDecoder()
_NO_VARYING = "[null,null,null,null,null]"
_NO_FIGURES = "[" + ",".join(["null"] * len(LISTED)) + "]"
PARTS = 2
"""A large listing of a database no one writes is read in this many parts at once (each
its own connection and thread: SQLite reads and parses its JSON without Python's lock)."""
PART_ROWS = 2000
"""The fewest rows a part reads."""


def read_database(
    path: Path,
    *,
    whole: bool = True,
    keys: Iterable[str] | None = None,
    lineage: str | None = None,
    since: int | None = None,
    tolerant: bool = False,
    ahead: _Database | None = None,
) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """The sessions of one agent database. `whole`: each entry's report whole (parsed in
    Python), else only the figures a listing shows (`LISTED`, read by SQLite). `keys`: only
    these sessions. `lineage`: only the session of this key (matched without case) and
    those it spawned, at any depth (found by the `spawned_by` column, else the entry's
    `spawnedBy`). `since`: only the entries written at or after this time (`updated_at`,
    ms). `tolerant`: text that is not UTF-8 read with its bytes kept as escapes (done
    again so, with a warning, when a read meets such text). `ahead`: the listing of the
    whole table under way in other processes (`ahead.ReadAhead`)."""
    problems: list[Diagnostic] = []
    uri = uri_of(path)
    try:
        con = open_uri(uri)
        if tolerant:
            con.text_factory = _tolerant_text
    except sqlite3.Error as exc:
        return [], [_problem(path, f"cannot open the session database: {exc}", "runs-store")]
    try:
        version, app = _schema(con)
        if version is not None and version > SCHEMA_VERSION:
            problems.append(
                _problem(
                    path,
                    f"session database of a newer schema (version {version}"
                    + (f", written by OpenClaw {app}" if app else "")
                    + f"; ctxscope knows up to {SCHEMA_VERSION}): read as far as it can be",
                    "runs-schema",
                    "warning",
                )
            )
        columns = table_columns(con, "session_nodes")
        missing = [c for c in ("session_key", "entry_json") if c not in columns]
        if missing:
            kind = table_kind(con, "session_nodes")
            why = f"lacks {', '.join(missing)}" if columns else "is missing"
            if kind not in (None, "table"):
                why = f"is a {kind}, not a table: not read"
            problems.append(
                _problem(
                    path,
                    f"not a session database ctxscope can read: table session_nodes {why}",
                    "runs-schema",
                )
            )
            return [], problems
        picked = picked_columns(columns)
        where = ""
        params: tuple[Any, ...] = ()
        if keys is not None:
            marks, params = _text_params(dict.fromkeys(keys))
            where = f" WHERE session_key IN ({marks})"
        elif since is not None and "updated_at" in columns:
            params = (since,)
            where = " WHERE updated_at >= ?"
        elif lineage is not None:
            found = _lineage(con, "spawned_by" in columns, lineage)
            if found is not None:
                params = (_as_bytes(json.dumps(found, ensure_ascii=False)),)
                where = " WHERE session_key IN (SELECT value FROM json_each(CAST(? AS TEXT)))"
        if whole:
            rows = con.execute(f"SELECT {picked} FROM session_nodes{where}", params).fetchall()
        else:
            scanned = None
            if not where and "entry_valid" in columns:
                scan = TableScan(con, uri, picked)
                scanned = ahead.rows(scan) if ahead is not None else None
                if scanned is None:
                    scanned = scan.rows()
            rows = scanned if scanned is not None else _listed_rows(con, uri, picked, where, params)
            unsure = [r[0] for r in rows if type(r[1]) is not tuple and _no_object(r[1], r[2])]
            raw = dict(_raw_entries(con, unsure))
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "decode to UTF-8" in text and not tolerant:
            runs, more = read_database(
                path, whole=whole, keys=keys, lineage=lineage, since=since, tolerant=True
            )
            note = "holds text that is not UTF-8: shown with its bytes as escapes"
            return runs, [
                _problem(path, f"session database {note}", "runs-store", "warning"),
                *more,
            ]
        why = "locked by another process" if "locked" in text or "busy" in text else text
        if text == "interrupted":
            why = TOO_LONG.format(READ_SECONDS)
        return [], [
            *problems,
            _problem(path, f"cannot read the session database: {why}", "runs-store"),
        ]
    except sqlite3.DatabaseError as exc:
        return [], [
            *problems,
            _problem(path, f"corrupt session database: {exc}", "runs-store"),
        ]
    finally:
        if whole:
            con.close()
        else:
            _close_later(con)
    if not whole:
        return _light_runs(path, app, rows, raw, problems)
    runs = []
    for key, entry_json, spawned_by, label, updated in rows:
        if not isinstance(key, str):
            continue
        run, problem = _entry_run(path, app, key, entry_json, spawned_by, label, updated)
        if problem is not None:
            problems.append(problem)
        runs.append(run)
    return runs, problems


def _entry_run(
    path: Path,
    app: str | None,
    key: str,
    entry_json: Any,
    spawned_by: Any,
    label: Any,
    updated: Any,
) -> tuple[RecordedRun, Diagnostic | None]:
    """A database session's run made from its entry whole, and what is wrong with the
    entry (None: nothing)."""
    entry, problem = _entry(entry_json, path, key)
    made = _run(
        key,
        entry,
        path,
        "sqlite",
        app,
        problem,
        spawned_by=spawned_by,
        label=label,
        updated=updated,
    )
    return made, problem


def _no_object(varying: Any, figures: Any) -> bool:
    """Whether a listed row's entry may be no JSON object (to be read whole)."""
    return varying is None or figures is None or (varying, figures) == (_NO_VARYING, _NO_FIGURES)


def _listed_rows(
    con: sqlite3.Connection, uri: str, picked: str, where: str, params: tuple[Any, ...]
) -> list[tuple[Any, ...]]:
    """The listed figures of each session (`_CHECKED`): the whole table of a database no one
    writes (opened `immutable=1`: the file is all of it, and stays as it is) in `PARTS`
    rowid ranges at once; a database with a `-wal` in one statement, one moment of it."""
    con.execute("PRAGMA mmap_size = 1073741824")  # reads only; a connection setting
    ranges = _ranges(con) if not where and uri.endswith("?immutable=1") else []

    query = f"SELECT {picked.replace('entry_json', _CHECKED)} FROM session_nodes"
    if len(ranges) > 1:
        return _read_parts(con, uri, query, ranges)
    return con.execute(query + where, params).fetchall()


_PROJECTED = (b'"spawnedBy":', b'"label":', b'"updatedAt":')
"""The entry's keys `_COLUMNS`' last three project: the entry's is read where the column
is NULL (an older table lacks it)."""
_UNSET = {
    mask: tuple(key for key, unset in zip(_PROJECTED, mask, strict=True) if unset)
    for mask in itertools.product((False, True), repeat=len(_PROJECTED))
}
"""The keys of the NULL columns, by which columns are NULL."""


class TableScan:
    """The listed figures of each session, as `_listed_rows` gives them, found in the
    entries' text where it can (`scan.Scan`: `varying` already decoded) by one connection;
    those the text cannot settle, and those OpenClaw has not marked valid, read by
    `_listed_rows`. The first entry of each shape is checked against SQLite's reading of it
    once for all the reads of this scan."""

    def __init__(self, con: sqlite3.Connection, uri: str, picked: str) -> None:
        self.con, self.uri, self.picked = con, uri, picked
        self.scan = Scan(LISTED, self._verify)
        con.execute("PRAGMA mmap_size = 1073741824")  # reads only; a connection setting

    def _verify(self, rowid: int, depth: int | None, generated: int, figures: str) -> bool:
        varying, listed = self.con.execute(_ONE, (rowid,)).fetchone() or (None, None)
        if varying is None or listed is None:
            return False
        seen = json.loads(varying)
        return (
            seen[0] == depth
            and type(seen[2]) is int
            and seen[2] == generated
            and json.loads(listed) == json.loads(figures)
        )

    def rows(self, bounds: tuple[int, int] | None = None) -> list[tuple[Any, ...]] | None:
        """The rows of the whole table, in one transaction (one moment of a database a
        gateway writes); `bounds`: of the rowids in this range only. None where the table
        has no rowids, or (the whole table) where no entry is in OpenClaw's form: read whole
        by SQLite, in parts."""
        con, picked = self.con, self.picked
        main = (
            f"SELECT rowid, {picked.replace('entry_json', 'CAST(entry_json AS BLOB)')}, "
            "entry_valid FROM session_nodes"
        )
        if bounds is not None:
            main += " WHERE rowid BETWEEN ? AND ?"
        rows: list[tuple[Any, ...]] = []
        ids: list[int] = []
        left: list[int] = []
        scan = self.scan
        con.execute("BEGIN")
        try:
            for rowid, key, entry, spawned_by, label, updated, valid in con.execute(
                main, bounds or ()
            ):
                unset = _UNSET[spawned_by is None, label is None, updated is None]
                found = scan(rowid, key, entry, unset) if valid == 1 else None
                if found is None:
                    left.append(rowid)
                else:
                    rows.append((key, *found, spawned_by, label, updated))
                    ids.append(rowid)
            if left and not rows and bounds is None:
                return None
            if left:
                where = " WHERE rowid IN (SELECT value FROM json_each(?))"
                others = _listed_rows(con, self.uri, f"rowid, {picked}", where, (json.dumps(left),))
                merged = sorted([*zip(ids, rows, strict=True), *((r[0], r[1:]) for r in others)])
                rows = [row for _, row in merged]
        except sqlite3.OperationalError as exc:
            if "rowid" in str(exc):
                return None
            raise
        finally:
            with contextlib.suppress(sqlite3.Error):  # a read: nothing to keep or lose
                con.execute("COMMIT")
        return rows


def tally(path: Path) -> tuple[int, int | None, int | None] | None:
    """How many sessions a database holds, the latest time one was written and the sum of
    those times (`updated_at`); None where it cannot say."""
    try:
        con = _connect(path)
        try:
            if "updated_at" not in table_columns(con, "session_nodes"):
                return None
            count, newest, total = con.execute(
                "SELECT count(*), max(updated_at), sum(updated_at) FROM session_nodes"
            ).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return count, int_figure(newest), int_figure(total)


def _lineage(con: sqlite3.Connection, column: bool, key: str) -> list[str] | None:
    """The keys of the session `key` and of those it spawned, at any depth; None where
    this SQLite cannot say (no JSON functions). Only the entries without a `spawned_by`
    column are parsed."""
    entry = "CASE WHEN json_valid(entry_json) THEN json_extract(entry_json, '$.spawnedBy') END"
    parent = f"coalesce(spawned_by, {entry})" if column else entry
    try:
        links = con.execute(f"SELECT session_key, {parent} FROM session_nodes").fetchall()
    except sqlite3.OperationalError as exc:
        if "JSON" in str(exc) or "no such function" in str(exc):
            return None
        raise
    children: dict[str, list[str]] = {}
    wanted = key.strip().lower()
    found = []
    for child, by in links:
        if isinstance(child, str):
            if child.lower() == wanted:
                found.append(child)
            if isinstance(by, str) and by and by != child:
                children.setdefault(by, []).append(child)
    seen = set(found)
    for at in found:  # grows as it goes
        for child in children.get(at, ()):
            if child not in seen:
                seen.add(child)
                found.append(child)
    return found


def _ranges(con: sqlite3.Connection) -> list[tuple[int, int]]:
    """The table's rowids cut into up to `PARTS` ranges of at least `PART_ROWS` rowids."""
    span = rowid_span(con)
    if span is None:
        return []
    low, high = span
    parts = max(1, min(PARTS, (high - low + 1) // PART_ROWS))
    step = (high - low) // parts + 1
    return [(low + n * step, min(high, low + (n + 1) * step - 1)) for n in range(parts)]


def rowid_span(con: sqlite3.Connection) -> tuple[int, int] | None:
    """The table's lowest and highest rowid; None where it has no rows, or no rowids."""
    try:
        low, high = con.execute("SELECT min(rowid), max(rowid) FROM session_nodes").fetchone()
    except sqlite3.OperationalError:  # a table without rowids
        return None
    if not isinstance(low, int) or not isinstance(high, int):
        return None
    return low, high


def _read_parts(
    con: sqlite3.Connection, uri: str, query: str, ranges: list[tuple[int, int]]
) -> list[tuple[Any, ...]]:
    """`query`'s rows, range by range in rowid order: the first range on `con`, each
    other on a connection and thread of its own."""
    query += " WHERE rowid BETWEEN ? AND ?"
    found: list[list[tuple[Any, ...]] | BaseException] = [[] for _ in ranges]

    def part(n: int) -> None:
        try:
            other = open_uri(uri)
            try:
                other.execute("PRAGMA mmap_size = 1073741824")
                found[n] = other.execute(query, ranges[n]).fetchall()
            finally:
                other.close()
        except BaseException as exc:  # re-raised on the calling thread
            found[n] = exc

    helpers = [threading.Thread(target=part, args=(n,), daemon=True) for n in range(1, len(ranges))]
    for helper in helpers:
        helper.start()
    try:
        found[0] = con.execute(query, ranges[0]).fetchall()
    finally:
        for helper in helpers:
            helper.join()
    rows: list[tuple[Any, ...]] = []
    for got in found:
        if isinstance(got, BaseException):
            raise got
        rows += got
    return rows


def _raw_entries(con: sqlite3.Connection, keys: list[Any]) -> list[tuple[Any, Any]]:
    """The entry text of the sessions whose entry is no JSON object (to say why)."""
    wanted = [k for k in keys if isinstance(k, str)]
    if not wanted:
        return []
    marks, params = _text_params(wanted)
    query = f"SELECT session_key, entry_json FROM session_nodes WHERE session_key IN ({marks})"
    return con.execute(query, params).fetchall()


def _as_bytes(text: str) -> bytes:
    """A text as its bytes, those a tolerant read kept as escapes given back."""
    return text.encode("utf-8", "surrogateescape")


def _text_params(keys: Iterable[str]) -> tuple[str, tuple[bytes, ...]]:
    """The marks and parameters of an `IN (...)` list of keys, each bound as its bytes and
    made text by SQLite: a key that is not UTF-8 (read tolerantly) is matched as stored."""
    params = tuple(_as_bytes(k) for k in keys)
    return ", ".join(["CAST(? AS TEXT)"] * len(params)), params


def _light_runs(
    path: Path,
    app: str | None,
    rows: list[tuple[Any, ...]],
    raw: dict[Any, Any],
    problems: list[Diagnostic],
) -> tuple[list[RecordedRun], list[Diagnostic]]:
    shapes: dict[str, tuple[dict[str, Any] | None, tuple[RecordedFile, ...], str]] = {}
    agents: dict[str, str] = {}
    runs = []
    # each row's varying figures: one short JSON array, read by the decoder's scanner
    scan = _ARRAY.scan_once  # type: ignore[attr-defined]
    store = str(path)
    for key, varying, figures, spawned_by, label, updated in rows:
        if type(varying) is tuple:  # found in the entry's text (`TableScan`): checked
            depth, when, generated, parent, name = varying
        elif not isinstance(key, str):
            continue
        else:
            if key in raw or varying is None or figures is None:
                run, problem = _entry_run(path, app, key, raw.get(key), spawned_by, label, updated)
                if problem is not None:
                    problems.append(problem)
                if problem is not None or varying is None or figures is None:
                    runs.append(run)  # SQLite read no figures: the entry as read whole
                    continue
            depth, when, generated, parent, name = scan(varying, 0)[0]
        found = shapes.get(figures)
        if found is None:
            found = shapes[figures] = (*_shape(figures), figures)
        # the runs of one shape share its first text: one copy kept, its hash made once
        report, files, figures = found
        if report is not None or generated is not None:
            report = {**(report or {}), "generatedAt": generated}
        # as `_run` makes it from the entry, without the entry: past its sixth character,
        # the key up to its next `:` decides (`_agent_of`)
        cut = key.find(":", 6)
        agent = agents.get(key[:cut]) if cut > 6 else None
        if agent is None:
            agent = _agent_of(key, path)
            if cut > 6:
                agents[key[:cut]] = agent
        if spawned_by is None:
            spawned_by = parent
        if label is None:
            label = name
        if updated is None:
            updated = when
        updated = updated if type(updated) is int else None
        run = RecordedRun(
            session_key=key,
            agent_id=agent,
            store=store,
            store_kind="sqlite",
            spawned_by=spawned_by if isinstance(spawned_by, str) and spawned_by else None,
            spawn_depth=depth if type(depth) is int else None,  # an int, not a bool
            label=label if isinstance(label, str) and label else None,
            updated_at=updated,
            report=report,
            app_version=app,
            whole=False,
            recorded_files=files if report is not None else None,
            shape=figures if report is not None else None,
        )
        # its times as its properties work them out, known here (a listing reads them often)
        generated = generated if type(generated) is int else None
        vars(run).update(generated_at=generated, when=updated if generated is None else generated)
        runs.append(run)
    return runs, problems


def _shape(text: str) -> tuple[dict[str, Any] | None, tuple[RecordedFile, ...]]:
    """The listed figures as a report (None when the entry has none of them)."""
    report: dict[str, Any] = {}
    for path, value in zip(LISTED, json.loads(text), strict=True):
        if value is None:
            continue
        *parents, last = path.split(".")
        into = report
        for name in parents:
            into = into.setdefault(name, {})
        into[last] = value
    if not report:
        return None, ()
    return report, tuple(files_of(report))


def _schema(con: sqlite3.Connection) -> tuple[int | None, str | None]:
    if "schema_version" not in table_columns(con, "schema_meta"):
        return None, None
    row = con.execute(
        "SELECT schema_version, app_version FROM schema_meta "
        "ORDER BY (role = 'agent') DESC, schema_version DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None, None
    version = row[0] if isinstance(row[0], int) else None
    return version, row[1] if isinstance(row[1], str) else None


def table_kind(con: sqlite3.Connection, name: str) -> str | None:
    """What `name` is in the database's schema (`table`, `view`, ...); None: nothing."""
    row = con.execute(
        "SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE", (name,)
    ).fetchone()
    return str(row[0]) if row else None


def table_columns(con: sqlite3.Connection, table: str) -> list[str]:
    """The columns of `table`, a real table only: a view (whose query may run forever) is
    never read, as if it were missing."""
    if table_kind(con, table) != "table":
        return []
    return [str(r[1]) for r in con.execute(f"PRAGMA table_info({table})")]


def _entry(raw: Any, path: Path, key: str) -> tuple[dict[str, Any], Diagnostic | None]:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    try:
        entry = strict_json(raw) if isinstance(raw, str) else None
    except ValueError as exc:
        return {}, _problem(
            path, f"session {key}: corrupt entry_json ({exc}); its record is skipped", "runs-entry"
        )
    if not isinstance(entry, dict):
        return {}, _problem(
            path, f"session {key}: entry_json is not an object; its record is skipped", "runs-entry"
        )
    return entry, None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is beyond any number's range")
    return value


def strict_json(text: str) -> Any:
    """`text` parsed as strict JSON, as OpenClaw writes it (`JSON.stringify`): `NaN`,
    `Infinity` and a number no float holds (`1e999`) refused, and a value nested too deeply
    to parse a ValueError too."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


def read_sessions_json(path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
    try:
        text = read_regular(path, MAX_JSON_BYTES).decode("utf-8", "replace")
    except OSError as exc:
        why = exc.strerror or str(exc)
        return [], [_problem(path, f"cannot read the session store: {why}", "runs-store")]
    try:
        data = strict_json(text)
        items: Iterable[tuple[str, Any]] = data.items() if isinstance(data, dict) else ()
    except ValueError as exc:
        split = _entries_of(text)  # one bad entry: the others are read
        if split is None:
            return [], [_problem(path, f"corrupt session store: {exc}", "runs-store")]
        data, items = {}, split
    if not isinstance(data, dict):
        return [], [_problem(path, "session store is not a JSON object", "runs-store")]
    runs, problems = [], []
    for key, entry in items:
        problem = None
        if isinstance(entry, ValueError):
            problem = _problem(
                path, f"session {key}: corrupt entry ({entry}); skipped", "runs-entry"
            )
        elif not isinstance(entry, dict):
            problem = _problem(
                path, f"session {key}: its entry is not an object; skipped", "runs-entry"
            )
        if problem is not None:
            problems.append(problem)
            entry = {}
        runs.append(_run(str(key), entry, path, "json", None, problem))
    return runs, problems


_SPACE = re.compile(r"[ \t\n\r]*")


def _entries_of(text: str) -> list[tuple[str, Any]] | None:
    """The (key, entry) pairs of a JSON object, each entry parsed on its own: one that is
    no strict JSON (or too deep to parse) is its ValueError. None when the text is no JSON
    object of string keys at all."""
    out: list[tuple[str, Any]] = []
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("{", at):
        return None
    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    if text.startswith("}", at):
        return out
    while True:
        try:
            key, at = _ARRAY.raw_decode(text, at)
        except ValueError:
            return None
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if not isinstance(key, str) or not text.startswith(":", at):
            return None
        start = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        end = _value_end(text, start)
        if end is None:
            return None
        try:
            value: Any = strict_json(text[start:end])
        except ValueError as exc:
            value = exc
        out.append((key, value))
        at = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith("}", at):
            return out
        if not text.startswith(",", at):
            return None
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]


_TOKEN_END = re.compile(r"[,}\]\s]|$")
_MARK = re.compile(r'["\[\]{}]')


def _string_end(text: str, at: int) -> int | None:
    """Where the JSON string whose text starts at `at` (after its opening quote) ends: past
    the first quote not escaped, found by `str.find` (a regular expression kept state for
    each character: gigabytes for a long string cut short)."""
    while (end := text.find('"', at)) >= 0:
        slashes = end
        while slashes > at and text[slashes - 1] == "\\":
            slashes -= 1
        if (end - slashes) % 2 == 0:
            return end + 1
        at = end + 1
    return None


def _value_end(text: str, at: int) -> int | None:
    """Where the JSON value starting at `at` ends, found without parsing it (no depth
    limit): strings skipped whole, brackets counted."""
    if at >= len(text):
        return None
    if text[at] not in '"[{':
        return _TOKEN_END.search(text, at).start()  # type: ignore[union-attr]
    depth = 0
    while True:
        mark = _MARK.search(text, at)
        if mark is None:
            return None
        c, at = mark.group(), mark.end()
        if c == '"':
            end = _string_end(text, at)
            if end is None:
                return None
            at = end
        elif c in "[{":
            depth += 1
        else:
            depth -= 1
        if depth <= 0:
            return at if depth == 0 else None


def _run(
    key: str,
    entry: dict[str, Any],
    path: Path,
    kind: str,
    app: str | None,
    problem: Diagnostic | None,
    *,
    spawned_by: Any = None,
    label: Any = None,
    updated: Any = None,
    whole: bool = True,
    files: tuple[RecordedFile, ...] | None = None,
    shape: str | None = None,
) -> RecordedRun:
    report = entry.get("systemPromptReport")
    depth = entry.get("spawnDepth")
    parent = entry.get("spawnedBy") if spawned_by is None else spawned_by
    name = entry.get("label") if label is None else label
    when = entry.get("updatedAt") if updated is None else updated
    return RecordedRun(
        session_key=key,
        agent_id=_agent_of(key, path),
        store=str(path),
        store_kind=kind,
        spawned_by=parent if isinstance(parent, str) and parent else None,
        spawn_depth=depth if isinstance(depth, int) and not isinstance(depth, bool) else None,
        label=name if isinstance(name, str) and name else None,
        updated_at=when if isinstance(when, int) and not isinstance(when, bool) else None,
        report=report if isinstance(report, dict) else None,
        app_version=app,
        problem=problem,
        whole=whole,
        recorded_files=files,
        shape=shape,
        entry_model=_model_of(entry),
    )


def _model_of(entry: dict[str, Any]) -> str | None:
    model, provider = entry.get("model"), entry.get("modelProvider")
    if not isinstance(model, str) or not model:
        return None
    return f"{provider}/{model}" if isinstance(provider, str) and provider else model


def _agent_of(key: str, path: Path) -> str:
    parts = key.split(":")
    if len(parts) >= 3 and parts[0].lower() == "agent" and parts[1]:
        return normalize_agent_id(parts[1])
    for parent in path.parents:
        if parent.parent.name == "agents":
            return parent.name
    return "main"
