"""Every folder of the user's that ctxscope reads or writes, decided in one place.

- config: `$CTXSCOPE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/ctxscope`, else `~/.config/ctxscope`
  (holds `trust.json`, `themes/` and, as a last resort, `exports/`);
- cache: `$CTXSCOPE_CACHE_DIR`, else `$XDG_CACHE_HOME/ctxscope`, else `~/.cache/ctxscope`;
- the Rye user space: `$USER_SPACE/.ai` (`env_user_space`);
- OpenClaw's state folder: `$OPENCLAW_STATE_DIR`, else `~/.openclaw` (`openclaw_state_dir`:
  the one rule, for its session stores and for the paths its prompt names), where `~` is
  OpenClaw's home (`openclaw_home`: `$OPENCLAW_HOME`, else the system's), as in every path
  OpenClaw's config names (`openclaw_path`).

Each of ctxscope's own variables counts only when it holds an absolute path (after `~` is
expanded): a relative one is ignored, as the XDG Base Directory specification says. It would
name a different folder in each folder ctxscope runs from, and inside a workspace a folder of
the workspace, which ctxscope never writes into. OpenClaw's (`$OPENCLAW_HOME`,
`$OPENCLAW_STATE_DIR`) are taken as OpenClaw takes them, a relative one from the current
folder: ctxscope only reads there.

Programs are looked up on `$PATH` the same way (`on_path`): only its absolute entries count.

Nothing here creates a folder; the code that writes does, at the edge (`replace_file`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pwd
from collections.abc import Iterator, Mapping
from pathlib import Path


def env_folder(name: str) -> Path | None:
    """The folder `$name` names, when it is set to an absolute path (`~` expanded); None
    when it is unset, empty or relative."""
    value = os.environ.get(name)
    if not value:
        return None
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else None


def home() -> Path:
    """The user's home folder: `$HOME` when absolute, else the password database's."""
    found = env_folder("HOME")
    if found is not None:
        return found

    return Path(pwd.getpwuid(os.getuid()).pw_dir)


def home_relative(value: str) -> bool:
    """`value` starts with `~` alone or before a separator (`~user` is a name, not a home)."""
    return value == "~" or value.startswith(("~/", "~" + os.sep, "~\\"))


def _named(value: str | None) -> str | None:
    """An environment value as OpenClaw takes one: trimmed; empty, "undefined" and "null"
    count as unset."""
    value = (value or "").strip()
    return value if value and value not in ("undefined", "null") else None


def openclaw_home(env: Mapping[str, str] | None = None) -> Path:
    """The folder OpenClaw's `~` stands for (`env`, else this process's environment):
    `$OPENCLAW_HOME` (a leading `~` in it the system's home), else the system's home:
    `$HOME`, else `$USERPROFILE`, else the password database's, else the current folder.
    Made absolute, a relative value from the current folder, as OpenClaw takes it (its
    2026.9 rule; 2026.2 also took "undefined" and "null" as names)."""
    env = os.environ if env is None else env
    system = _named(env.get("HOME")) or _named(env.get("USERPROFILE")) or _passwd_home()
    own = _named(env.get("OPENCLAW_HOME"))
    if own is not None and home_relative(own):
        own = system + own[1:]
    return Path(os.path.abspath(own or system or os.getcwd()))


def _passwd_home() -> str:
    """This user's home folder in the password database ("" when it has none: OpenClaw then
    takes the current folder)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return ""


def openclaw_expand(value: str, home: Path) -> str:
    """`value` trimmed, a leading `~` (alone or before a separator) `home` (OpenClaw's
    `openclaw_home`)."""
    value = value.strip()
    return str(home) + value[1:] if home_relative(value) else value


def openclaw_path(value: str, home: Path) -> str:
    """A path from OpenClaw's config or environment as the runtime resolves it: trimmed, a
    leading `~` (alone or before a separator) `home` (its `openclaw_home`), made absolute."""
    return os.path.abspath(openclaw_expand(value, home))


LEGACY_STATE_DIRS = (".clawdbot",)
"""The state folder's name before OpenClaw's, used when `~/.openclaw` does not exist (2026.9's
list; 2026.2 also looked for `~/.moldbot` and `~/.moltbot`, and read `$CLAWDBOT_STATE_DIR`
when `$OPENCLAW_STATE_DIR` is unset: not modelled)."""


def openclaw_state_override(env: Mapping[str, str] | None = None) -> str | None:
    """What `$OPENCLAW_STATE_DIR` names (`env`, else this process's), trimmed; None when
    it is unset or blank."""
    value = (os.environ if env is None else env).get("OPENCLAW_STATE_DIR", "").strip()
    return value or None


def openclaw_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """OpenClaw's state folder, as the runtime finds it (`env`, else this process's
    environment): `$OPENCLAW_STATE_DIR` (`openclaw_path`), else `~/.openclaw` under
    `openclaw_home`, else, when only it exists, a legacy `~/.clawdbot`."""
    override = openclaw_state_override(env)
    home = openclaw_home(env)
    if override is not None:
        return Path(openclaw_path(override, home))
    found = (home / name for name in (".openclaw", *LEGACY_STATE_DIRS))
    return next((folder for folder in found if folder.exists()), home / ".openclaw")


def env_user_space() -> Path | None:
    """The Rye user space the environment names: `$USER_SPACE/.ai`, or None."""
    base = os.environ.get("USER_SPACE")
    return Path(base) / ".ai" if base else None


def _base(explicit: str, xdg: str, fallback: str) -> Path:
    value = env_folder(explicit)
    if value is not None:
        return value
    root = env_folder(xdg)
    if root is not None:
        return root / "ctxscope"
    return home() / fallback / "ctxscope"


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

    key = hashlib.sha256(os.path.abspath(workspace).encode()).hexdigest()[:16]
    return cache_dir() / f"rye-tools-{version}-{key}.marshal"


def inside(path: Path, folder: Path) -> bool:
    """True when `path` is `folder` or lies below it, after resolving links and `..`."""
    p, f = path.resolve(), folder.resolve()
    return p == f or f in p.parents


def search_path() -> list[str]:
    """The folders `$PATH` names that a program is looked up in: its absolute entries, in
    order. An empty entry (a leading, trailing or doubled `:`), `.` or any other relative
    one names the current folder or one below it, a workspace's when ctxscope runs from
    inside one, and is ignored. With `$PATH` unset, the system's default search path."""
    value = os.environ.get("PATH")
    if value is None:
        try:
            value = os.confstr("CS_PATH") or ""
        except (AttributeError, ValueError):
            value = os.defpath
    return [entry for entry in value.split(os.pathsep) if os.path.isabs(entry)]


def programs_on_path(name: str) -> Iterator[str]:
    """Each file named `name` in a `search_path` folder that this process may execute, in
    order (what `shutil.which` finds first, but never from a relative entry)."""
    for folder in search_path():
        exe = os.path.join(folder, name)
        if os.access(exe, os.F_OK | os.X_OK) and not os.path.isdir(exe):
            yield exe


def on_path(name: str) -> str | None:
    """The first of `programs_on_path(name)`, or None."""
    return next(programs_on_path(name), None)


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
