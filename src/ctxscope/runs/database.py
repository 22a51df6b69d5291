"""2026.9's session store: one SQLite database per agent (table `session_nodes`, one row per
session key, `entry_json` the entry, `updated_at` indexed), read strictly read-only.

Nothing beside the database changes, not even its `-wal` and `-shm` files: a database with a
`-wal` file (a gateway that runs, or one that stopped without merging it) is opened
`mode=ro&readonly_shm=1`, which reads the latest turn from the WAL and writes no lock mark
into the `-shm`; one without is read as `immutable=1`, the file being the whole truth (a
read-only open would create an empty `-wal` and a `-shm` beside it). A database is data:
`session_nodes` is read only when it is a table (a view may run forever), every connection
stops reading after `READ_SECONDS`, each entry is strict JSON or one problem naming its key.
A missing, locked, corrupt or newer database is a problem naming the file.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctxscope.core.model import Diagnostic
from ctxscope.runs import listcache
from ctxscope.runs.entries import agent_of, entry_of, run_of, store_problem
from ctxscope.runs.recorded import RecordedFile, RecordedRun, files_of

Rows = list[tuple[Any, ...]]

SCHEMA_VERSION = 23
"""The newest `schema_meta.schema_version` of an agent database ctxscope knows (2026.9.6's)."""


def uri_of(path: Path) -> str:
    """The address of a read-only connection that changes nothing beside the database (see
    the module)."""
    wal = Path(f"{path}-wal")
    query = "mode=ro&readonly_shm=1" if wal.exists() else "immutable=1"
    return f"file:{quote(str(path), safe='/')}?{query}"


def _tolerant_text(data: bytes) -> str:
    """A text column's value, its bytes that are not UTF-8 kept as escapes (as a file name
    that is not UTF-8 is shown)."""
    return data.decode("utf-8", "surrogateescape")


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
"""The report's figures a listing reads (its `when` aside), pulled out of each entry by
SQLite (`json_extract`, in C), so a listing of thousands of sessions parses no entry whole
in Python. Sessions of one
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
_NO_VARYING = "[null,null,null,null,null]"
_NO_FIGURES = "[" + ",".join(["null"] * len(LISTED)) + "]"


def read_database(
    path: Path,
    *,
    whole: bool = True,
    keys: Iterable[str] | None = None,
    lineage: str | None = None,
    since: int | None = None,
) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """The sessions of one agent database (`Database.runs`), and its problems."""
    with Database(path) as database:
        runs = database.runs(whole=whole, keys=keys, lineage=lineage, since=since)
    return runs, database.problems


NOT_UTF8 = "session database holds text that is not UTF-8: shown with its bytes as escapes"


class Database:
    """One agent database open for reading (see the module), checked once for all its
    reads: what is wrong with it, or with an entry read, is in `problems`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[Diagnostic] = []
        self.app: str | None = None
        """The OpenClaw release that wrote it (`schema_meta.app_version`)."""
        self.columns: list[str] = []
        self.con: sqlite3.Connection | None = None
        self.tolerant = False
        """Text that is not UTF-8 read with its bytes kept as escapes (once a read met
        some: said once, the read done again)."""
        self._open()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None

    def times(
        self, since: int | None = None, limit: int | None = None
    ) -> tuple[list[tuple[str, int | None]], int]:
        """The sessions written at or after `since` (ms; None: all), newest first, as (key,
        time written), at most `limit` of them (None: all); and how many there are. Read
        through the `updated_at` index, no entry read (a table without the column: each
        entry's `updatedAt`)."""
        when = "updated_at" if "updated_at" in self.columns else _ENTRY_TIME
        where, params = (f" WHERE {when} >= ?", (since,)) if since is not None else ("", ())
        query = f"SELECT session_key, {when} FROM session_nodes{where} ORDER BY {when} DESC"
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        rows = self._rows(query, params)
        found = [(k, w if type(w) is int else None) for k, w in rows if isinstance(k, str)]
        if limit is None or len(rows) < limit:
            return found, len(rows)
        count = self._rows(f"SELECT count(*) FROM session_nodes{where}", params)
        return found, count[0][0] if count else len(rows)

    def held(self, keys: Iterable[str]) -> set[str]:
        """Those of `keys` the database holds (by its key index)."""
        out: set[str] = set()
        keys = list(keys)
        for at in range(0, len(keys), 500):
            marks, params = _text_params(keys[at : at + 500])
            query = f"SELECT session_key FROM session_nodes WHERE session_key IN ({marks})"
            out.update(k for (k,) in self._rows(query, params) if isinstance(k, str))
        return out

    def runs(
        self,
        *,
        whole: bool = True,
        keys: Iterable[str] | None = None,
        lineage: str | None = None,
        since: int | None = None,
        cache: bool = False,
    ) -> list[RecordedRun]:
        """The sessions of the database. `whole`: each entry's report whole (parsed in
        Python), else only the figures a listing shows (`LISTED`, read by SQLite). `keys`:
        only these sessions. `lineage`: only the session of this key (matched without case)
        and those it spawned, at any depth (found by the `spawned_by` column, else the
        entry's `spawnedBy`). `since`: only the entries written at or after this time (ms;
        `updated_at`, else the entry's `updatedAt`). `cache`: a listing of every session kept
        in the cache folder for the next (`listcache`), or taken from it."""
        if self.con is None:
            return []
        if not whole and cache and keys is None and lineage is None and since is None:
            return self._kept_listing()
        where, params = self._where(keys, lineage, since)
        if whole:
            query = f"SELECT {picked_columns(self.columns)} FROM session_nodes{where}"
            return self._whole_runs(self._rows(query, params))
        rows, raw = self._listed(where, params)
        return _light_runs(self.path, self.app, rows, raw, self.problems)[0]

    def _listed(self, where: str, params: tuple[Any, ...]) -> tuple[Rows, dict[Any, Any]]:
        """The listed figures of the sessions `where` picks (`_CHECKED`), and the text of
        those whose entry SQLite found no JSON object in (to say why)."""
        picked = picked_columns(self.columns).replace("entry_json", _CHECKED)
        rows = self._rows(f"SELECT {picked} FROM session_nodes{where}", params)
        unsure = [r[0] for r in rows if _no_object(r[1], r[2]) and isinstance(r[0], str)]
        if not unsure:
            return rows, {}
        marks, more = _text_params(unsure)
        query = f"SELECT session_key, entry_json FROM session_nodes WHERE session_key IN ({marks})"
        return rows, dict(self._rows(query, more))

    def _kept_listing(self) -> list[RecordedRun]:
        """Every session's listed figures, kept between listings while the database stays
        as it is (`listcache`)."""
        ident = listcache.identity(self.path)
        found = listcache.load(self.path, ident) if ident is not None else None
        if found is None:
            found = self._listed("", ())
            read = self.con is not None and not self.tolerant  # whole, and said whole
            if ident is not None and read and listcache.identity(self.path) == ident:
                listcache.save(self.path, ident, *found)
        return _light_runs(self.path, self.app, *found, self.problems)[0]

    def _whole_runs(self, rows: list[tuple[Any, ...]]) -> list[RecordedRun]:
        runs = []
        for key, entry_json, spawned_by, label, updated in rows:
            if not isinstance(key, str):
                continue
            run, wrong = _entry_run(
                self.path, self.app, key, entry_json, spawned_by, label, updated
            )
            if wrong is not None:
                self.problems.append(wrong)
            runs.append(run)
        return runs

    def _rows(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows of `query`; none, with the problem said (once), where the read fails.
        Text that is not UTF-8 makes the connection tolerant and the query run again."""
        if self.con is None:
            return []
        try:
            return self.con.execute(query, params).fetchall()
        except sqlite3.Error as exc:
            if "decode to UTF-8" in str(exc) and not self.tolerant:
                self.tolerant = True
                self.con.text_factory = _tolerant_text
                self.problems.append(store_problem(self.path, NOT_UTF8, "runs-store", "warning"))
                return self._rows(query, params)
            self.problems.append(_read_failed(self.path, exc))
            self.close()  # a read that failed: the others would fail alike
            return []

    def _where(
        self, keys: Iterable[str] | None, lineage: str | None, since: int | None
    ) -> tuple[str, tuple[Any, ...]]:
        """The `WHERE` of a read (see `runs`) and its parameters."""
        if keys is not None:
            marks, params = _text_params(dict.fromkeys(keys))
            return f" WHERE session_key IN ({marks})", params
        if since is not None:
            when = "updated_at" if "updated_at" in self.columns else _ENTRY_TIME
            return f" WHERE {when} >= ?", (since,)
        if lineage is not None and self.con is not None:
            found = self._lineage(lineage)
            if found is not None:
                where = " WHERE session_key IN (SELECT value FROM json_each(CAST(? AS TEXT)))"
                return where, (_as_bytes(json.dumps(found, ensure_ascii=False)),)
        return "", ()

    def _open(self) -> None:
        """The connection, the release that wrote the database and the columns of its
        `session_nodes` table, checked: a newer schema is a warning; a table that is no
        table (a view's query may run forever), or lacks a column read, is not read."""
        path = self.path
        try:
            self.con = open_uri(uri_of(path))
        except sqlite3.Error as exc:
            why = f"cannot open the session database: {exc}"
            self.problems.append(store_problem(path, why, "runs-store"))
            return
        version, self.app = _schema(self)
        if version is not None and version > SCHEMA_VERSION:
            self.problems.append(
                store_problem(
                    path,
                    f"session database of a newer schema (version {version}"
                    + (f", written by OpenClaw {self.app}" if self.app else "")
                    + f"; ctxscope knows up to {SCHEMA_VERSION}): read as far as it can be",
                    "runs-schema",
                    "warning",
                )
            )
        kind, self.columns = self.table_columns("session_nodes")
        missing = [c for c in ("session_key", "entry_json") if c not in self.columns]
        if missing and self.con is not None:
            why = f"lacks {', '.join(missing)}" if self.columns else "is missing"
            if kind not in (None, "table"):
                why = f"is a {kind}, not a table: not read"
            self.problems.append(
                store_problem(
                    path,
                    f"not a session database ctxscope can read: table session_nodes {why}",
                    "runs-schema",
                )
            )
            self.close()

    def table_columns(self, name: str) -> tuple[str | None, list[str]]:
        """What `name` is in the schema (`table`, `view`, ...; None: nothing) and, for a
        real table only, its columns: a view (whose query may run forever) is never read."""
        kind = self._rows("SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE", (name,))
        if not kind or kind[0][0] != "table":
            return (str(kind[0][0]) if kind else None), []
        return "table", [str(r[1]) for r in self._rows(f"PRAGMA table_info({name})")]

    def _lineage(self, key: str) -> list[str] | None:
        """The keys of the session `key` and of those it spawned, at any depth; None where
        this SQLite cannot say (no JSON functions). Only the entries without a `spawned_by`
        column are parsed."""
        assert self.con is not None
        entry = "CASE WHEN json_valid(entry_json) THEN json_extract(entry_json, '$.spawnedBy') END"
        parent = f"coalesce(spawned_by, {entry})" if "spawned_by" in self.columns else entry
        try:
            links = self.con.execute(f"SELECT session_key, {parent} FROM session_nodes").fetchall()
        except sqlite3.OperationalError as exc:
            if "JSON" in str(exc) or "no such function" in str(exc):
                return None
            raise
        return _descendants(links, key)


_ENTRY_TIME = "(CASE WHEN json_valid(entry_json) THEN json_extract(entry_json, '$.updatedAt') END)"
"""When an entry was written, by its own `updatedAt` (a table without `updated_at`)."""


def _read_failed(path: Path, exc: sqlite3.Error) -> Diagnostic:
    """What stopped a read of the database, said."""
    if not isinstance(exc, sqlite3.OperationalError):
        return store_problem(path, f"corrupt session database: {exc}", "runs-store")
    text = str(exc)
    why = "locked by another process" if "locked" in text or "busy" in text else text
    if text == "interrupted":
        why = TOO_LONG.format(READ_SECONDS)
    return store_problem(path, f"cannot read the session database: {why}", "runs-store")


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
    entry, wrong = entry_of(entry_json, path, key)
    made = run_of(
        key,
        entry,
        path,
        "sqlite",
        app,
        wrong,
        spawned_by=spawned_by,
        label=label,
        updated=updated,
    )
    return made, wrong


def _no_object(varying: Any, figures: Any) -> bool:
    """Whether a listed row's entry may be no JSON object (to be read whole)."""
    return varying is None or figures is None or (varying, figures) == (_NO_VARYING, _NO_FIGURES)


def _descendants(links: list[tuple[Any, Any]], key: str) -> list[str]:
    """The keys of the session `key` (matched without case) and of those it spawned, at any
    depth, by the (session, spawned by) `links`."""
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
    rows: Rows,
    raw: dict[Any, Any],
    problems: list[Diagnostic],
) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """The runs of a listing's rows (`_CHECKED`'s figures); an entry SQLite found no JSON
    object in is read whole, to say why."""
    shapes: dict[str, tuple[dict[str, Any] | None, tuple[RecordedFile, ...], str]] = {}
    runs = []
    store = str(path)
    for key, varying, figures, spawned_by, label, updated in rows:
        if not isinstance(key, str):
            continue
        if key in raw or varying is None or figures is None:
            run, wrong = _entry_run(path, app, key, raw.get(key), spawned_by, label, updated)
            if wrong is not None:
                problems.append(wrong)
            if wrong is not None or varying is None or figures is None:
                runs.append(run)  # SQLite read no figures: the entry as read whole
                continue
        depth, when, generated, parent, name = json.loads(varying)
        found = shapes.get(figures)
        if found is None:
            found = shapes[figures] = (*_shape(figures), figures)
        # the runs of one shape share one parsed copy of its figures
        report, files, figures = found
        if report is not None or generated is not None:
            report = {**(report or {}), "generatedAt": generated}
        spawned_by = parent if spawned_by is None else spawned_by
        label = name if label is None else label
        updated = when if updated is None else updated
        runs.append(
            RecordedRun(
                session_key=key,
                agent_id=agent_of(key, path),
                store=store,
                store_kind="sqlite",
                spawned_by=spawned_by if isinstance(spawned_by, str) and spawned_by else None,
                spawn_depth=depth if type(depth) is int else None,  # an int, not a bool
                label=label if isinstance(label, str) and label else None,
                updated_at=updated if type(updated) is int else None,
                report=report,
                app_version=app,
                whole=False,
                recorded_files=files if report is not None else None,
                shape=figures if report is not None else None,
            )
        )
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


def _schema(database: Database) -> tuple[int | None, str | None]:
    """The schema version and the release that wrote the database (None: not said)."""
    if "schema_version" not in database.table_columns("schema_meta")[1]:
        return None, None
    rows = database._rows(
        "SELECT schema_version, app_version FROM schema_meta "
        "ORDER BY (role = 'agent') DESC, schema_version DESC LIMIT 1"
    )
    if not rows:
        return None, None
    version, app = rows[0]
    return version if isinstance(version, int) else None, app if isinstance(app, str) else None
