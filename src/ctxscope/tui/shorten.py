"""Long names made to fit a narrow column (no Textual): a session key's UUID cut to its
first 8 hex digits, as OpenClaw's own UIs show session ids, and a path shortened with `~`
for the home folder and an ellipsis in the middle, so its file name stays."""

from __future__ import annotations

import os
import re

_UUID = re.compile(
    r"\b([0-9a-fA-F]{8})-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)


def short_key(key: str) -> str:
    """`agent:main:subagent:d4e4a2e4-1ba0-…` → `agent:main:subagent:d4e4a2e4`."""
    return _UUID.sub(r"\1", key)


def home_path(path: str, home: str | None = None) -> str:
    """`path` with the home folder written `~`."""
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def middle(text: str, width: int) -> str:
    """`text` in at most `width` characters: its start and its end around `…`."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    tail = (width - 1) * 2 // 3
    head = width - 1 - tail
    return text[:head] + "…" + text[len(text) - tail :]


def middle_path(path: str, width: int) -> str:
    """`path` in at most `width` characters, cut in the middle but keeping its last name
    whole where that fits (`~/wo…/workspace`)."""
    if len(path) <= width:
        return path
    name = path[path.rfind("/") :] if "/" in path else ""
    if name and len(name) + 2 <= width:
        return path[: width - 1 - len(name)] + "…" + name
    return middle(path, width)


def fitted_path(path: str, width: int, home: str | None = None) -> str:
    """`path` with `~` for the home folder, then cut in the middle to `width`."""
    return middle_path(home_path(path, home), width)
