"""Remembering which workspaces the user trusts to run their context scripts.

Scripts are code from the workspace, so they run only once the user has trusted that workspace
*with exactly what decides what runs* (`TrustSet`): every config file that contributed (the
top one and each `$include`d file) and the context scripts every requester would run (each
agent of `agents.list`, and the defaults any other agent gets): each entry as configured, the
URL or file it names and that file's content. The store keeps, per absolute workspace path, a
sha256 over all of it (`TrustSet.key`). A change to any of it withdraws the trust until
confirmed again. (A file a script itself calls is not covered: trust vouches for what the
config names.) A key made by an older ctxscope (over the top config and the script files
only) matches no key made now: such a workspace is untrusted until trusted again.

Location: `trust.json` in the user's ctxscope config folder (`ctxscope.infra.paths.trust_file`). It
is read back as untrusted input: a path that is not a regular file, a file over the 2 MiB cap,
text that is not JSON (or nested too deeply), a wrong shape or a bad entry is dropped with a
warning (`TrustStore.problems`), never a crash or a hang.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.secrets import shown_text
from ctxscope.infra.paths import replace_file, trust_file
from ctxscope.infra.snapshot import MAX_READ_BYTES, read_stamped
from ctxscope.scripts.entries import ScriptEntry, resolve_path

_HASH_RE = re.compile(r"[0-9a-f]{64}")
KEY_FORMAT = "ctxscope-trust-2"
"""The first line of what a key hashes: a key of another format never matches."""
STORE_VERSION = 1
OTHER_AGENTS = "any other agent"
"""How the dialog names the requesters not in `agents.list` (they get the defaults)."""


def config_hash(text: str) -> str:
    """The sha256 (hex) of a config file's text."""

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@record(frozen=True)
class TrustedScript:
    """One context script as trust sees it."""

    id: str
    kind: str
    """`url` or `file`."""
    target: str
    """The URL, or the file's absolute path (resolved as a run resolves it)."""
    digest: str | None
    """The file's content sha256; None for a URL, or a file that is missing or unreadable."""
    entry: str
    """The entry as configured (canonical JSON): arguments, format, method, timeout..."""

    def describe(self) -> str:
        if self.kind == "url":
            return f"{self.id}: {shown_text(self.target)} (URL)"
        state = "" if self.digest else ", missing or unreadable"
        return f"{self.id}: {self.target} (file{state})"


@record(frozen=True)
class AgentScripts:
    """The scripts that run when any of `agents` calls `sessions_spawn`, in run order."""

    agents: tuple[str, ...]
    """Agent ids; `OTHER_AGENTS` stands for every requester not in `agents.list`."""
    scripts: tuple[TrustedScript, ...]


@record(frozen=True)
class TrustSet:
    """Everything trusting a workspace vouches for: what the trust dialog lists, and what
    `key` hashes."""

    config_files: tuple[tuple[str, str], ...] = ()
    """(path, sha256 of its text) of the top config and every included file, in read order."""
    groups: tuple[AgentScripts, ...] = ()
    """Agents with the same scripts together, in `agents.list` order, `OTHER_AGENTS` last."""

    @cached_property
    def key(self) -> str:
        """The sha256 trust is given to: of the whole set as JSON (no text in it can pass
        for another part)."""
        scripts = [
            [list(g.agents), [[s.id, s.kind, s.target, s.digest, s.entry] for s in g.scripts]]
            for g in self.groups
        ]
        whole = [KEY_FORMAT, [list(f) for f in self.config_files], scripts]
        return config_hash(json.dumps(whole, separators=(",", ":")))

    @property
    def script_files(self) -> tuple[Path, ...]:
        """Every local script file any agent runs, sorted, without repeats."""
        found = {s.target for g in self.groups for s in g.scripts if s.kind == "file"}
        return tuple(Path(p) for p in sorted(found))

    @property
    def any_scripts(self) -> bool:
        return any(g.scripts for g in self.groups)

    def listing(self) -> str:
        """The set as the trust dialog shows it: each group of agents and its scripts, then
        the config files."""
        out = []
        for group in self.groups:
            names = ", ".join(group.agents)
            label = f"Agents {names}" if len(group.agents) > 1 else f"Agent {names}"
            out.append("Any other agent:" if names == OTHER_AGENTS else f"{label}:")
            out += [f"  • {s.describe()}" for s in group.scripts] or ["  (no scripts)"]
        out.append("Config files:")
        out += [f"  • {path}" for path, _ in self.config_files] or ["  (none: no config)"]
        return "\n".join(out)

    def refreshed(self, digest: Callable[[Path], str | None]) -> TrustSet:
        """The same set with each script file's content hashed again (self when none
        changed): a config that did not change keeps its entries."""
        fresh = {p: digest(p) for p in self.script_files}
        if all(s.digest == fresh[Path(s.target)] for g in self.groups for s in _files(g)):
            return self
        groups = tuple(
            AgentScripts(
                g.agents,
                tuple(
                    _replace_digest(s, fresh[Path(s.target)]) if s.kind == "file" else s
                    for s in g.scripts
                ),
            )
            for g in self.groups
        )
        return TrustSet(self.config_files, groups)


def _files(group: AgentScripts) -> list[TrustedScript]:
    return [s for s in group.scripts if s.kind == "file"]


def _replace_digest(script: TrustedScript, digest: str | None) -> TrustedScript:
    return TrustedScript(script.id, script.kind, script.target, digest, script.entry)


def trust_set(
    agents: Iterable[tuple[str | None, list[ScriptEntry]]],
    config_dir: Path,
    config_files: Iterable[tuple[str, str]],
    digest: Callable[[Path], str | None],
) -> TrustSet:
    """The set from each requester's entries (`resolve.every_agent_entries`; None is any
    other agent), the folder script paths are taken from, the (path, text) of every config
    file read, and `digest(path)` for a script file's content."""
    base = Path(os.path.abspath(config_dir))
    # Agents with the same entries (as configured) share a group, made once: thousands of
    # agents mostly run the defaults.
    by_entries: dict[tuple[str, ...], tuple[list[ScriptEntry], list[str]]] = {}
    for agent_id, entries in agents:
        raws = tuple([e.raw for e in entries])
        group = by_entries.get(raws)
        if group is None:
            group = by_entries[raws] = (entries, [])
        group[1].append(agent_id or OTHER_AGENTS)
    seen: dict[str, TrustedScript] = {}
    for entries, _ in by_entries.values():
        for e in entries:
            if e.raw not in seen:
                seen[e.raw] = _trusted(e, base, digest)
    groups = tuple(
        AgentScripts(tuple(ids), tuple(seen[e.raw] for e in entries))
        for entries, ids in by_entries.values()
    )
    files = tuple((path, config_hash(text)) for path, text in config_files)
    return TrustSet(files, groups)


def _trusted(entry: ScriptEntry, base: Path, digest: Callable[[Path], str | None]) -> TrustedScript:
    if entry.is_url:
        return TrustedScript(entry.id, "url", entry.uri, None, entry.raw)
    path = resolve_path(entry.uri, base)
    return TrustedScript(entry.id, "file", str(path), digest(path), entry.raw)


class TrustStore:
    """`trust.json`: {"version": 1, "workspaces": {"<abs path>": "<trust key>"}}.

    `problems` holds what was wrong with the file at the last read (it was dropped, in whole
    or in part)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else trust_file()
        self.problems: list[Diagnostic] = []

    def is_trusted(self, workspace: Path | str, config_text_or_hash: str) -> bool:
        """True when `workspace` was trusted with this trust key (or config text)."""
        wanted = _as_hash(config_text_or_hash)
        return self._load().get(_key(workspace)) == wanted

    def trust(self, workspace: Path | str, config_text_or_hash: str) -> None:
        """Remember that `workspace` with this trust key (or config text) may run its
        scripts."""
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
        self.problems = []
        text = self._read()
        if text is None:
            return {}
        try:
            raw: Any = json.loads(text)
        except RecursionError:
            return self._drop("nested too deeply")
        except ValueError as exc:
            return self._drop(f"not JSON ({exc})")
        if not isinstance(raw, dict) or not isinstance(raw.get("workspaces"), dict):
            return self._drop('not an object with "workspaces"')
        if raw.get("version") != STORE_VERSION:
            return self._drop(f"version {raw.get('version')!r}, not {STORE_VERSION}")
        spaces = raw["workspaces"]
        kept = {
            k: v
            for k, v in spaces.items()
            if isinstance(k, str) and os.path.isabs(k) and isinstance(v, str)
            if _HASH_RE.fullmatch(v)
        }
        if len(kept) < len(spaces):
            bad = len(spaces) - len(kept)
            self._warn(
                f"{bad} entr{'y' if bad == 1 else 'ies'} not an absolute folder with a trust "
                "key: dropped (that folder is untrusted)"
            )
        return kept

    def _read(self) -> str | None:
        """The file's text; None when there is none or it cannot be used (then said why)."""
        try:
            st = os.stat(self.path)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            self._drop(f"cannot be read ({exc.strerror})")
            return None
        if not stat.S_ISREG(st.st_mode):
            self._drop("not a regular file")
            return None
        if st.st_size > MAX_READ_BYTES:
            self._drop(f"{st.st_size:,} bytes, larger than the 2 MiB read cap")
            return None
        got = read_stamped(str(self.path))
        if got is None or got[0].capped:
            self._drop("changed while read, or could not be read")
            return None
        return got[0].text

    def _drop(self, why: str) -> dict[str, str]:
        self._warn(f"{why}: ignored, so no workspace is trusted until trusted again")
        return {}

    def _warn(self, message: str) -> None:
        self.problems.append(
            Diagnostic("warning", f"trust file: {message}", str(self.path), code="trust-file")
        )

    def _save(self, data: dict[str, str]) -> None:
        text = json.dumps({"version": STORE_VERSION, "workspaces": data}, indent=2, sort_keys=True)
        replace_file(self.path, (text + "\n").encode("utf-8"))


def _key(workspace: Path | str) -> str:
    return str(Path(workspace).expanduser().resolve())


def _as_hash(text_or_hash: str) -> str:
    return text_or_hash if _HASH_RE.fullmatch(text_or_hash) else config_hash(text_or_hash)
