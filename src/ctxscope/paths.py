"""Every folder of the user's that ctxscope reads or writes, decided in one place.

- config: `$CTXSCOPE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/ctxscope`, else `~/.config/ctxscope`
  (holds `trust.json`, `themes/` and, as a last resort, `exports/`);
- cache: `$CTXSCOPE_CACHE_DIR`, else `$XDG_CACHE_HOME/ctxscope`, else `~/.cache/ctxscope`.

Nothing here creates a folder; the code that writes does, at the edge (`replace_file`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def _base(explicit: str, xdg: str, fallback: str) -> Path:
    value = os.environ.get(explicit)
    if value:
        return Path(value).expanduser()
    root = os.environ.get(xdg)
    if root:
        return Path(root).expanduser() / "ctxscope"
    return Path.home() / fallback / "ctxscope"


def config_dir() -> Path:
    """The user's ctxscope config folder."""
    return _base("CTXSCOPE_CONFIG_DIR", "XDG_CONFIG_HOME", ".config")


def cache_dir() -> Path:
    """The user's ctxscope cache folder (tool metadata)."""
    return _base("CTXSCOPE_CACHE_DIR", "XDG_CACHE_HOME", ".cache")


def trust_file() -> Path:
    """Which workspaces (with which config) may run their context scripts."""
    return config_dir() / "trust.json"


def themes_dir() -> Path:
    """The user's own theme files (added to the bundled ones)."""
    return config_dir() / "themes"


def exports_dir() -> Path:
    """Where exports go when the current folder lies inside the workspace."""
    return config_dir() / "exports"


def tool_cache_file(version: str, workspace: str | Path | None = None) -> Path:
    """The persistent Rye tool-metadata cache of this ctxscope version (one per workspace,
    so a workspace's cache holds only the tools it uses), in Python's marshal format."""
    if workspace is None:
        return cache_dir() / f"rye-tools-{version}.marshal"
    import hashlib  # on demand: loading OpenSSL costs a few ms most runs do not need

    key = hashlib.sha256(os.path.abspath(workspace).encode()).hexdigest()[:16]
    return cache_dir() / f"rye-tools-{version}-{key}.marshal"


def inside(path: Path, folder: Path) -> bool:
    """True when `path` is `folder` or lies below it, after resolving links and `..`."""
    p, f = path.resolve(), folder.resolve()
    return p == f or f in p.parents


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` as `path`, whole or not at all: into a new file beside it (a random
    name, created exclusively, readable by the user alone), then renamed over it, so a
    reader sees the old content or the new, never part of one. On failure the new file is
    removed and the error raised. The folder is made when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}-{os.getpid()}-{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
