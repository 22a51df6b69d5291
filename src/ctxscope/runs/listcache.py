"""A database's whole listing (`ctxscope runs --all`) kept in the cache folder, keyed by the
database's identity: its device, inode, size and times, and those of its `-wal`. A gateway's
write changes one of them, and the listing is read from the database again; one kept for
another identity is never used. What is kept is what SQLite gave for each entry (its listed
figures, `database.LISTED`, each shape once) and the text of the entries that are no JSON
object, so the runs and their problems are made from it as from the database. A listing
written while the database changed is not kept. The file is ctxscope's own (`paths.cache_dir`,
written whole by `paths.replace_file`); one it cannot read is as if missing.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ctxscope.infra.paths import cache_dir, replace_file

VERSION = 1
"""The kept form's version: one of another is as if missing."""

Rows = list[tuple[Any, ...]]


def identity(path: Path) -> list[int] | None:
    """What tells one state of the database at `path` (and its `-wal`) from another; None
    where it cannot be told."""
    out: list[int] = []
    for one in (str(path), f"{path}-wal"):
        try:
            st = os.stat(one)
        except FileNotFoundError:
            out += [-1] * 5
            continue
        except OSError:
            return None
        out += [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    return out


def _file(path: Path) -> Path:
    key = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_dir() / "runs-listings" / f"{key[:32]}.json"


def load(path: Path, ident: list[int]) -> tuple[Rows, dict[Any, Any]] | None:
    """The rows and entries kept for the database at `path` in the state `ident`; None
    where none are kept for it, or they cannot be read."""
    try:
        data = json.loads(_file(path).read_bytes())
        if data["version"] != VERSION or data["identity"] != ident:
            return None
        if data["path"] != os.path.abspath(path):
            return None
        shapes: list[Any] = data["shapes"]
        rows = [
            (key, varying, shapes[shape] if shape is not None else figures, by, label, updated)
            for key, varying, shape, figures, by, label, updated in data["rows"]
        ]
        return rows, dict(data["raw"])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def save(path: Path, ident: list[int], rows: Rows, raw: dict[Any, Any]) -> None:
    """Keep `rows` and `raw` for the database at `path` in the state `ident` (nothing when
    it cannot be written: the next listing reads the database)."""
    shapes: dict[str, int] = {}
    kept = []
    for key, varying, figures, spawned_by, label, updated in rows:
        shape = shapes.setdefault(figures, len(shapes)) if isinstance(figures, str) else None
        kept.append(
            (
                key,
                varying,
                shape,
                None if shape is not None else figures,
                spawned_by,
                label,
                updated,
            )
        )
    data = {
        "version": VERSION,
        "path": os.path.abspath(path),
        "identity": ident,
        "shapes": list(shapes),
        "rows": kept,
        "raw": list(raw.items()),
    }
    try:
        text = json.dumps(data, separators=(",", ":"))
        replace_file(_file(path), text.encode())
    except (OSError, ValueError, TypeError):
        pass


__all__ = ["identity", "load", "save"]
