"""Session stores for the tests: the real one the OpenClaw 2026.9.6 gateway left after a wire
capture of the sample (`data/openclaw-agent-2026.9.6.sqlite.gz`: a main turn that spawned one
child, labelled `wire`), the sample as that capture ran it, and sessions added to the store
in its shape."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from ctxscope.core.model import Session
from ctxscope.diff.causes import Evidence
from ctxscope.diff.compare import run_verdict
from ctxscope.diff.verdict import Verdict
from ctxscope.runs.recorded import RecordedRun
from tests.conftest import SAMPLE
from tests.openclaw.wirecapture import write_capture_config

DATA = Path(__file__).parent / "data"
MAIN = "agent:main:main"
CHILD = "agent:main:subagent:d4e4a2e4-1ba0-48c1-b6be-7fbb47e480bb"
RECORDED_AT = 1795667141515  # the main run's generatedAt, 2026-11-26 04:25:41 UTC


def real_state(tmp: Path) -> Path:
    """A state folder holding the real 2026.9.6 store (no -wal: the gateway merged it)."""
    db = tmp / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    db.write_bytes(gzip.decompress((DATA / "openclaw-agent-2026.9.6.sqlite.gz").read_bytes()))
    return tmp / "state"


def workspace(tmp: Path) -> Path:
    """The sample as the capture ran it (its config and BOOTSTRAP.md gone: the gateway read the
    capture's config, and deleted BOOTSTRAP.md), with the file times of before the run."""
    ws = tmp / "ws"
    shutil.copytree(SAMPLE, ws)
    (ws / "BOOTSTRAP.md").unlink()
    write_capture_config(ws, {})
    before = RECORDED_AT / 1000 - 3600
    for path in ws.rglob("*"):
        os.utime(path, (before, before))
    return ws


def listing(folder: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under `folder`: sha256, mtime (ns), size."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            st = path.stat()
            out[str(path.relative_to(folder))] = (
                hashlib.sha256(path.read_bytes()).hexdigest(),
                st.st_mtime_ns,
                st.st_size,
            )
    return out


INSERT = (
    "insert into session_nodes (session_key, current_session_id, entry_json, entry_valid,"
    " updated_at, spawned_by, label) values (?,?,?,?,?,?,?)"
)
"""A session as a gateway writes it: key, session id, entry, valid, updated_at, spawned_by,
label."""


def writer(db: Path, *, wal: bool = False, **connect: Any) -> tuple[sqlite3.Connection, Any]:
    """A connection that adds sessions to the real store's database (its triggers dropped: they
    call functions this SQLite may lack; `wal`: in WAL mode, as a running gateway writes),
    and the real child's entry, to copy."""
    con = sqlite3.connect(db, **connect)
    for (name,) in con.execute("select name from sqlite_master where type='trigger'").fetchall():
        con.execute(f'drop trigger "{name}"')
    if wal:
        con.execute("pragma journal_mode=wal")
    row = con.execute("select entry_json from session_nodes where session_key=?", (CHILD,))
    return con, json.loads(row.fetchone()[0])


def real_writer(tmp: Path) -> tuple[Path, Path, sqlite3.Connection, Any]:
    """`real_state`'s folder, its main agent's database, and `writer` on it: the state
    folder, the database, the connection and the real child's entry."""
    state = real_state(tmp)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    return (state, db, *writer(db))


def add(con: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """`rows` (as `INSERT` takes them) written, and the connection closed."""
    con.executemany(INSERT, rows)
    con.commit()
    con.close()


def report_2026_2(key: str, ws: Path, at: int) -> dict[str, Any]:
    """A `systemPromptReport` in 2026.2.19's shape: no hash, no truncation, no currentTurn."""
    return {
        "source": "run",
        "generatedAt": at,
        "sessionId": "0b5e2f1c-2f4e-4f7e-9a57-3f0c6c1b9d11",
        "sessionKey": key,
        "provider": "anthropic",
        "model": "claude-opus-4-6",
        "workspaceDir": str(ws),
        "bootstrapMaxChars": 20000,
        "bootstrapTotalMaxChars": 150000,
        "sandbox": {"mode": "off", "sandboxed": False},
        "systemPrompt": {
            "chars": 31000,
            "projectContextChars": 9000,
            "nonProjectContextChars": 22000,
        },
        "injectedWorkspaceFiles": [
            {
                "name": "AGENTS.md",
                "path": str(ws / "AGENTS.md"),
                "missing": False,
                "rawChars": 2032,
                "injectedChars": 2032,
                "truncated": False,
            },
        ],
        "skills": {"promptChars": 0, "entries": []},
        "tools": {"listChars": 1200, "schemaChars": 9000, "entries": []},
    }


def what_rows_say(view: Any) -> list[Any]:
    """What each row of a listing says of its run: to compare a listing read for its
    figures with one whose reports were read whole."""
    return [
        (
            r.run.session_key,
            r.level,
            r.run.label,
            r.run.spawned_by,
            r.run.depth,
            r.run.when,
            r.run.files(),
            r.run.figure("workspaceDir"),
            r.comparison.to_dict() if r.comparison else None,
        )
        for r in view.rows
    ]


def verdict(run: RecordedRun, session: Session, **evidence: Any) -> Verdict:
    """`run` beside `session` as every comparison makes it (`diff.compare.run_verdict`), with
    the evidence given by name (`limits`, `stat`, `read`, `release_now`, `set_by`, ...)."""
    return run_verdict(Evidence(run, **evidence), session)
