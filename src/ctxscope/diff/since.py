"""Whether each file a recorded run read is what it is now, decided by evidence: its recorded
size against its size now, or its absence on one side. A modification time alone decides
nothing (a copy, a checkout or a backup touches every file); it only dates a change found.
The files now are looked at through a `Stat` and a `Read` only."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ctxscope.core.figures import FileFigures, NotRecorded, SessionFigures
from ctxscope.diff.verdict import Difference, run_at, utc_clock
from ctxscope.runs.causes import CHANGED, CONFIG, GAP, RUNTIME
from ctxscope.runs.recorded import moved

Stat = Callable[[str], os.stat_result]
Read = Callable[[str], bytes | None]
"""Reads a file's first `MAX_READ + 1` bytes (None: it cannot be read)."""


def read_head(path: str) -> bytes | None:
    """The first `MAX_READ + 1` bytes of the file at `path`; None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(MAX_READ + 1)
    except OSError:
        return None


def file_rows(
    was: SessionFigures,
    now: SessionFigures,
    disk: tuple[Stat, Read],
    context: dict[str, bool],
    diffs: list[Difference],
) -> list[dict[str, Any]]:
    recorded = {f.name: f for f in was.files}
    # What the runtime lists: every file it injected, and a missing one only where a
    # marker stands in for it (2026.9 lists no absent BOOTSTRAP.md, USER.md or MEMORY.md).
    predicted = {
        f.name: f
        for f in now.files
        if f.status not in ("not-injected", "excluded", "first-run")
        and not (f.status == "missing" and not f.injected_chars)
    }
    generated = was.generated_at if isinstance(was.generated_at, int) else None
    rows = []
    for name in list(dict.fromkeys([*recorded, *predicted])):
        rec, pred = recorded.get(name), predicted.get(name)
        row: dict[str, Any] = {
            "name": name,
            "recorded_raw_chars": held(rec.raw_chars) if rec else None,
            "recorded_injected_chars": rec.injected_chars if rec else None,
            "recorded_missing": rec.status == "missing" if rec else None,
            "recorded_truncated": rec.status == "truncated" if rec else None,
            "predicted_status": pred.status if pred else None,
            "predicted_raw_chars": pred.raw_chars if pred else None,
            "predicted_injected_chars": pred.injected_chars if pred else None,
        }
        path = pred.path if pred else (moved(rec.path, was.workspace, now.workspace) if rec else "")
        change = _changed_since(path, rec, pred, generated, disk)
        agrees = _agrees(rec, pred)
        row["status"] = "changed" if change else "same" if agrees else "differs"
        rows.append(row)
        if change:
            diffs.append(Difference(f"file:{name}", CHANGED, change, _size(rec), _size(pred)))
        elif not agrees:
            cause, why = _file_cause(name, rec, pred, context)
            diffs.append(Difference(f"file:{name}", cause, why, _size(rec), _size(pred)))
    return rows


def held(value: int | NotRecorded) -> int | None:
    """A figure as the listing shows it: None where it is not recorded."""
    return None if isinstance(value, NotRecorded) else value


def _size(entry: FileFigures | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {"raw_chars": held(entry.raw_chars), "injected_chars": entry.injected_chars}


def _agrees(rec: FileFigures | None, pred: FileFigures | None) -> bool:
    if rec is None or pred is None:
        return False
    if rec.status == "missing":
        return pred.status == "missing"
    return rec.raw_chars == pred.raw_chars and rec.injected_chars == pred.injected_chars


def _changed_since(
    path: str,
    rec: FileFigures | None,
    pred: FileFigures | None,
    generated: int | None,
    disk: tuple[Stat, Read],
) -> str:
    """Why the file is not what the run read, decided by evidence: it is gone or new, or its
    size now is not the size the run recorded. A modification time alone decides nothing (a
    copy, a checkout or a backup touches every file); it only dates a change found."""
    if not path or rec is None:
        return ""
    stat, read = disk
    try:
        st = stat(path)
    except OSError:
        return "" if rec.status == "missing" else "deleted since the run"
    if rec.status == "missing":
        return f"created since the run ({utc_clock(st.st_mtime)})"
    now = pred.raw_chars if pred is not None and pred.status != "missing" else _chars(read(path))
    if not isinstance(now, int) or not isinstance(rec.raw_chars, int) or now == rec.raw_chars:
        return ""
    sizes = f"{rec.raw_chars:,} chars recorded, {now:,} now"
    if generated is not None and st.st_mtime * 1000 > generated:
        return f"changed since the run ({sizes}): modified {utc_clock(st.st_mtime)}" + run_at(
            generated
        )
    return f"changed since the run ({sizes})"


def _chars(data: bytes | None) -> int | None:
    """The file's size in chars now (a file only the run had: no prediction measured it),
    from its first bytes as `read` gives them."""
    if data is None or len(data) > MAX_READ:
        return None
    return len(data.decode("utf-8", "replace"))


MAX_READ = 2 * 1024 * 1024
"""The most of a file only the run had that is read to measure it (the snapshot's cap)."""


def _file_cause(
    name: str, rec: FileFigures | None, pred: FileFigures | None, context: dict[str, bool]
) -> tuple[str, str]:
    if pred is not None and rec is None:
        what = f"ctxscope predicts {name} ({pred.status}), the run did not have it"
    elif pred is None or rec is None:
        what = f"the run had {name}, ctxscope's prediction does not"
    else:
        what = (
            f"the run had {held(rec.raw_chars)} raw / {rec.injected_chars} injected chars, "
            f"ctxscope predicts {pred.raw_chars} / {pred.injected_chars}"
        )
    if context["config"]:
        return CONFIG, f"{what}: the config changed since the run"
    if context["runtime"]:
        return RUNTIME, f"{what}: another runtime version"
    return GAP, f"{what}, though the file is unchanged since the run: a modelling gap in ctxscope"
