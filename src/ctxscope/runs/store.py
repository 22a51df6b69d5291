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

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctxscope.ids import normalize_agent_id
from ctxscope.model import Diagnostic
from ctxscope.paths import home
from ctxscope.runs.model import RecordedRun, StoreRead

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


def _expand_home(value: str) -> str:
    if value == "~" or value.startswith(("~/", "~" + os.sep)):
        return str(home()) + value[1:]
    return value


def agent_ids(state: Path, config: Mapping[str, Any] | None = None) -> list[str]:
    """The agents whose stores to read: those with a folder under `<state>/agents`, those
    the config lists, and `main`."""
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
                if entry.is_dir():
                    found[entry.name] = None
    except OSError:
        pass
    return sorted(found)


def store_files(
    state: Path, config: Mapping[str, Any] | None = None, agents: Iterable[str] = ()
) -> list[Path]:
    """Every store file that exists for the state folder and config, databases before
    `sessions.json` files (the database wins for a key in both)."""
    ids = sorted({*agents} | {*agent_ids(state, config)})
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
    present = [p for p in unique if p.is_file()]
    return sorted(present, key=lambda p: (p.suffix != ".sqlite", str(p)))


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
) -> StoreRead:
    """Every recorded session of the state folder (`state_dir()` by default)."""
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
    for path in store_files(folder, config, agents):
        runs, problems = read_store(path)
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


def read_store(path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """The sessions of one store file, and its problems."""
    if path.suffix == ".sqlite":
        return read_database(path)
    return read_sessions_json(path)


def _problem(path: Path, message: str, code: str, severity: str = "error") -> Diagnostic:
    return Diagnostic(severity, message, str(path), code=code)  # type: ignore[arg-type]


def _connect(path: Path) -> sqlite3.Connection:
    """A read-only connection that changes nothing beside the database (see the module)."""
    wal = Path(f"{path}-wal")
    query = "mode=ro&readonly_shm=1" if wal.exists() else "immutable=1"
    uri = f"file:{quote(str(path), safe='/')}?{query}"
    return sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)


_COLUMNS = ("session_key", "entry_json", "spawned_by", "label", "updated_at")


def read_database(path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
    problems: list[Diagnostic] = []
    try:
        con = _connect(path)
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
        columns = _table_columns(con, "session_nodes")
        missing = [c for c in ("session_key", "entry_json") if c not in columns]
        if missing:
            problems.append(
                _problem(
                    path,
                    "not a session database ctxscope can read: table session_nodes "
                    + ("is missing" if not columns else f"lacks {', '.join(missing)}"),
                    "runs-schema",
                )
            )
            return [], problems
        picked = ", ".join(c if c in columns else "NULL" for c in _COLUMNS)
        rows = con.execute(f"SELECT {picked} FROM session_nodes").fetchall()
    except sqlite3.OperationalError as exc:
        text = str(exc)
        why = "locked by another process" if "locked" in text or "busy" in text else text
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
        con.close()
    runs = []
    for key, entry_json, spawned_by, label, updated in rows:
        if not isinstance(key, str):
            continue
        entry, problem = _entry(entry_json, path, key)
        if problem is not None:
            problems.append(problem)
        runs.append(
            _run(
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
        )
    return runs, problems


def _schema(con: sqlite3.Connection) -> tuple[int | None, str | None]:
    if "schema_version" not in _table_columns(con, "schema_meta"):
        return None, None
    row = con.execute(
        "SELECT schema_version, app_version FROM schema_meta "
        "ORDER BY (role = 'agent') DESC, schema_version DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None, None
    version = row[0] if isinstance(row[0], int) else None
    return version, row[1] if isinstance(row[1], str) else None


def _table_columns(con: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in con.execute(f"PRAGMA table_info({table})")]


def _entry(raw: Any, path: Path, key: str) -> tuple[dict[str, Any], Diagnostic | None]:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    try:
        entry = json.loads(raw) if isinstance(raw, str) else None
    except ValueError as exc:
        return {}, _problem(
            path, f"session {key}: corrupt entry_json ({exc}); its record is skipped", "runs-entry"
        )
    if not isinstance(entry, dict):
        return {}, _problem(
            path, f"session {key}: entry_json is not an object; its record is skipped", "runs-entry"
        )
    return entry, None


def read_sessions_json(path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            return [], [
                _problem(
                    path, f"session store of {size:,} bytes is too large to read", "runs-store"
                )
            ]
        with path.open("rb") as handle:
            data = json.loads(handle.read().decode("utf-8", "replace"))
    except OSError as exc:
        return [], [_problem(path, f"cannot read the session store: {exc.strerror}", "runs-store")]
    except ValueError as exc:
        return [], [_problem(path, f"corrupt session store: {exc}", "runs-store")]
    if not isinstance(data, dict):
        return [], [_problem(path, "session store is not a JSON object", "runs-store")]
    runs, problems = [], []
    for key, entry in data.items():
        problem = None
        if not isinstance(entry, dict):
            problem = _problem(
                path, f"session {key}: its entry is not an object; skipped", "runs-entry"
            )
            problems.append(problem)
            entry = {}
        runs.append(_run(str(key), entry, path, "json", None, problem))
    return runs, problems


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
    )


def _agent_of(key: str, path: Path) -> str:
    parts = key.split(":")
    if len(parts) >= 3 and parts[0].lower() == "agent" and parts[1]:
        return normalize_agent_id(parts[1])
    for parent in path.parents:
        if parent.parent.name == "agents":
            return parent.name
    return "main"
