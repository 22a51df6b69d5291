"""Remembering which workspaces the user trusts to run their context scripts.

Scripts are code from the workspace, so they run only once the user has trusted that
workspace *with that exact config and those exact scripts*: the store keeps, per absolute
workspace path, a sha256 over the config text and the content of every local script file the
config names (`trust_key`). Editing the config or any of those scripts withdraws the trust until
confirmed again. (A file a script itself calls is not covered: trust vouches for what the config
names.)

Location: `trust.json` in the user's ctxscope config folder (`ctxscope.paths.trust_file`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ctxscope.paths import replace_file, trust_file

_HASH_RE = re.compile(r"[0-9a-f]{64}")


def config_hash(text: str) -> str:
    """The sha256 (hex) of a config file's text."""
    import hashlib  # on demand (only trust decisions hash)

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def trust_key(config_text: str, scripts: Iterable[tuple[str, str | None]] = ()) -> str:
    """The fingerprint trust is given to: the config's sha256 when it names no local script
    files, else a sha256 over it and each (path, content sha256 or None when unreadable)."""
    listed = sorted(scripts)
    if not listed:
        return config_hash(config_text)
    lines = [config_hash(config_text)]
    lines += [f"{path}\0{digest or 'absent'}" for path, digest in listed]
    return config_hash("\n".join(lines))


class TrustStore:
    """`trust.json`: {"version": 1, "workspaces": {"<abs path>": "<trust key>"}}."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else trust_file()

    def is_trusted(self, workspace: Path | str, config_text_or_hash: str) -> bool:
        """True when `workspace` was trusted with this config text or trust key."""
        wanted = _as_hash(config_text_or_hash)
        return self._load().get(_key(workspace)) == wanted

    def trust(self, workspace: Path | str, config_text_or_hash: str) -> None:
        """Remember that `workspace` with this config text or trust key may run its scripts."""
        data = self._load()
        data[_key(workspace)] = _as_hash(config_text_or_hash)
        self._save(data)

    def knows(self, workspace: Path | str) -> bool:
        """True when `workspace` was trusted once, whatever it held then."""
        return _key(workspace) in self._load()

    def revoke(self, workspace: Path | str) -> None:
        data = self._load()
        if data.pop(_key(workspace), None) is not None:
            self._save(data)

    def _load(self) -> dict[str, str]:
        try:
            raw: Any = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        spaces = raw.get("workspaces") if isinstance(raw, dict) else None
        if not isinstance(spaces, dict):
            return {}
        return {k: v for k, v in spaces.items() if isinstance(k, str) and isinstance(v, str)}

    def _save(self, data: dict[str, str]) -> None:
        text = json.dumps({"version": 1, "workspaces": data}, indent=2, sort_keys=True)
        replace_file(self.path, (text + "\n").encode("utf-8"))


def _key(workspace: Path | str) -> str:
    return str(Path(workspace).expanduser().resolve())


def _as_hash(text_or_hash: str) -> str:
    return text_or_hash if _HASH_RE.fullmatch(text_or_hash) else config_hash(text_or_hash)
