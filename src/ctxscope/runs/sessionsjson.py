"""2026.2's session store: `sessions.json`, a map from session key to entry, read whole (it
has no index). One entry that is no strict JSON is one problem and the others are read: each
entry's end is found without parsing it (strings skipped whole, brackets counted)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.infra.filememo import read_regular
from ctxscope.runs.entries import DECODER, run_of, store_problem, strict_json
from ctxscope.runs.recorded import RecordedRun

MAX_JSON_BYTES = 256 * 1024 * 1024
"""A `sessions.json` larger than this is not read (OpenClaw's own stores stay far below)."""


def read_sessions_json(path: Path) -> tuple[list[RecordedRun], list[Diagnostic]]:
    """Every session of the `sessions.json` at `path`, and its problems."""
    try:
        text = read_regular(path, MAX_JSON_BYTES).decode("utf-8", "replace")
    except OSError as exc:
        why = exc.strerror or str(exc)
        return [], [store_problem(path, f"cannot read the session store: {why}", "runs-store")]
    try:
        data = strict_json(text)
        items: Iterable[tuple[str, Any]] = data.items() if isinstance(data, dict) else ()
    except ValueError as exc:
        split = _entries_of(text)  # one bad entry: the others are read
        if split is None:
            return [], [store_problem(path, f"corrupt session store: {exc}", "runs-store")]
        data, items = {}, split
    if not isinstance(data, dict):
        return [], [store_problem(path, "session store is not a JSON object", "runs-store")]
    runs, problems = [], []
    for key, entry in items:
        problem = None
        if isinstance(entry, ValueError):
            problem = store_problem(
                path, f"session {key}: corrupt entry ({entry}); skipped", "runs-entry"
            )
        elif not isinstance(entry, dict):
            problem = store_problem(
                path, f"session {key}: its entry is not an object; skipped", "runs-entry"
            )
        if problem is not None:
            problems.append(problem)
            entry = {}
        runs.append(run_of(str(key), entry, path, "json", None, problem))
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
            key, at = DECODER.raw_decode(text, at)
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
