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

Nothing in the state folder changes (`database` says how a database is read so). A
missing, locked, corrupt or newer store, and a corrupt entry, is a problem naming the file;
the rest is read. Each store's own reading: `database` (SQLite), `sessionsjson`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ctxscope.core.ids import normalize_agent_id
from ctxscope.core.model import Diagnostic
from ctxscope.infra.paths import (
    openclaw_home,
    openclaw_path,
    openclaw_state_dir,
    openclaw_state_override,
)
from ctxscope.runs.database import SCHEMA_VERSION, read_database
from ctxscope.runs.recorded import RecordedRun, StoreRead
from ctxscope.runs.sessionsjson import read_sessions_json

DATABASE = "openclaw-agent.sqlite"

__all__ = ["DATABASE", "SCHEMA_VERSION", "read_state", "read_store", "read_whole", "state_dir"]


def state_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The state folder: `explicit`, else `$OPENCLAW_STATE_DIR`, else `~/.openclaw`."""
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(str(explicit))))
    return openclaw_state_dir()


def state_folder(given: str | None, config_path: str | None) -> str | None:
    """The state folder `--state` names, else the config's folder when it holds an agent's
    session store (`agents/<id>/agent/openclaw-agent.sqlite` or
    `agents/<id>/sessions/sessions.json`: a config kept in its state folder, as OpenClaw keeps
    it; an `agents/` folder of agent workspaces is not one); None: `$OPENCLAW_STATE_DIR`, else
    `~/.openclaw` (`runs.state_dir`)."""
    if given:
        return os.path.abspath(os.path.expanduser(given))
    if openclaw_state_override():
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
    candidates = store_candidates(state, config, agents, problems)
    present = [p for p in candidates if _is_file(p, problems)]
    return sorted(present, key=lambda p: (p.suffix != ".sqlite", str(p)))


def custom_store(config: Mapping[str, Any] | None) -> str | None:
    """The config's `session.store` template, when it sets one."""
    session = (config or {}).get("session")
    template = session.get("store") if isinstance(session, dict) else None
    return template.strip() if isinstance(template, str) and template.strip() else None


def store_candidates(
    state: Path,
    config: Mapping[str, Any] | None = None,
    agents: Iterable[str] = (),
    problems: list[Diagnostic] | None = None,
) -> list[Path]:
    """Every file a store of the state folder and config may be, whether it exists or not
    (each once, in the order they are read)."""
    ids = sorted({*agents} | {*agent_ids(state, config, problems)})
    template = custom_store(config)
    candidates: list[Path] = []
    if template:
        for agent in ids:
            candidates += _custom_store(template, agent)
    else:
        for agent in ids:
            candidates.append(state / "agents" / agent / "agent" / DATABASE)
            candidates.append(state / "agents" / agent / "sessions" / "sessions.json")
    return list(dict.fromkeys(candidates))


def _is_file(path: Path, problems: list[Diagnostic] | None) -> bool:
    try:
        return path.is_file()
    except OSError as exc:
        _note(problems, str(path), f"cannot look at the session store: {exc.strerror or exc}")
        return False


def _custom_store(template: str, agent: str) -> list[Path]:
    path = Path(openclaw_path(template.replace("{agentId}", agent), openclaw_home()))
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
    since: int | None = None,
) -> StoreRead:
    """Every recorded session of the state folder (`state_dir()` by default). `whole`:
    each report whole, else what a listing shows (see `database.LISTED`; `read_whole` reads
    the rest of the runs wanted). `lineage`: a session key; a database's other sessions than
    it and those it spawned, at any depth, may be left unread. `since`: only the sessions
    written at or after this time (ms). `listing.read_newest` reads only the newest."""
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
        runs, problems = read_store(path, whole=whole, lineage=lineage, since=since)
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
    since: int | None = None,
) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """The sessions of one store file (`keys`: only these; `lineage`, `since`: see
    `read_state`), and its problems."""
    if path.suffix == ".sqlite":
        return read_database(path, whole=whole, keys=keys, lineage=lineage, since=since)
    runs, problems = read_sessions_json(path)
    if keys is not None:
        wanted = set(keys)
        runs = [r for r in runs if r.session_key in wanted]
    if since is not None:
        runs = [r for r in runs if r.updated_at is not None and r.updated_at >= since]
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
