"""One session entry as OpenClaw writes it, read strictly: its text parsed as strict JSON
(`JSON.stringify`'s: no `NaN`, no `Infinity`, no number beyond a float), made into a
`RecordedRun` whichever store held it, and what is wrong with it said as a problem naming
the store and the session key."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ctxscope.core.ids import normalize_agent_id
from ctxscope.core.model import Diagnostic
from ctxscope.runs.recorded import RecordedFile, RecordedRun

DECODER = json.JSONDecoder()


def store_problem(path: Path, message: str, code: str, severity: str = "error") -> Diagnostic:
    """A problem of the store `path`."""
    return Diagnostic(severity, message, str(path), code=code)  # type: ignore[arg-type]


def entry_of(raw: Any, path: Path, key: str) -> tuple[dict[str, Any], Diagnostic | None]:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    try:
        entry = strict_json(raw) if isinstance(raw, str) else None
    except ValueError as exc:
        return {}, store_problem(
            path, f"session {key}: corrupt entry_json ({exc}); its record is skipped", "runs-entry"
        )
    if not isinstance(entry, dict):
        return {}, store_problem(
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


def run_of(
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
        agent_id=agent_of(key, path),
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


def agent_of(key: str, path: Path) -> str:
    """The agent of a session: its key's (`agent:<id>:…`), else the store's folder's."""
    parts = key.split(":")
    if len(parts) >= 3 and parts[0].lower() == "agent" and parts[1]:
        return normalize_agent_id(parts[1])
    for parent in path.parents:
        if parent.parent.name == "agents":
            return parent.name
    return "main"
