"""The config as OpenClaw reads it before anything uses it: `$include` and `${VAR}`.

`$include` (a path, or a list of paths merged in order) replaces the object holding it with
the included file's content, relative to the including file, never leaving the top config's
folder (links included), at most 10 levels deep, cycles refused. Sibling keys are merged over
the included object: objects merge key by key, lists are concatenated, anything else is
replaced. `${NAME}` (upper-case letters, digits, `_`) in a string is the environment variable;
`$${NAME}` is the literal text `${NAME}`.

The work of includes is bounded (OpenClaw has no such bounds, so a hostile config would hold
it for minutes): each included file is refused past the 2 MiB read cap before it is read, and
the whole include graph may load at most `MAX_INCLUDE_LOADS` files (a file included twice
counts twice), `MAX_INCLUDE_BYTES` bytes and `MAX_INCLUDE_NODES` values (read and made by
merging). A problem names the file holding the `$include` and its line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from ctxscope.core.keylines import KeyPath, key_lines
from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.secrets import describe
from ctxscope.infra.paths import inside
from ctxscope.infra.snapshot import MAX_READ_BYTES, FileRead

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10
MAX_INCLUDE_LOADS = 1_000
"""Included files loaded in all, a file included twice counting twice (a few files that each
include the next a dozen times would otherwise load millions)."""
MAX_INCLUDE_BYTES = 4 * MAX_READ_BYTES
"""Bytes of included files loaded in all: four files at the 2 MiB cap."""
MAX_INCLUDE_NODES = 1_000_000
"""Values read from included files plus those merging makes (a concatenated list is made
again by every merge)."""
_BLOCKED = {"__proto__", "prototype", "constructor"}
_ENV_TOKEN = re.compile(r"\$\$\{([A-Z_][A-Z0-9_]*)\}|\$\{([A-Z_][A-Z0-9_]*)\}")


class IncludeError(Exception):
    """One `$include` that cannot be resolved; the message is the user's. `path` and `where`
    locate the `$include` (the file holding it, its key path there)."""

    def __init__(self, message: str, path: str = "", where: KeyPath = ()) -> None:
        super().__init__(message)
        self.path = path
        self.where = where


class IncludeBoundError(IncludeError):
    """The includes went past one of ctxscope's bounds on their work."""


def deep_merge(target: Any, source: Any, count: Callable[[int], None] | None = None) -> Any:
    """`source` merged over `target`; `count(n)` is told the size of each list or object
    the merge makes."""
    if isinstance(target, list) and isinstance(source, list):
        if count is not None:
            count(len(target) + len(source))
        return [*target, *source]
    if isinstance(target, dict) and isinstance(source, dict):
        if count is not None:
            count(len(target) + len(source))
        out = dict(target)
        for key, value in source.items():
            if key in _BLOCKED:
                continue
            out[key] = deep_merge(out[key], value, count) if key in out else value
        return out
    return source


@record
class Includes:
    """Resolves `$include` below one config file, reading through `read` (a Snapshot's)."""

    root: Path
    read: Callable[[str], FileRead]
    parse: Callable[[str, str], Any]
    """`parse(text, path)` -> data; raises ValueError with a message for bad text."""
    files: list[str] = field(default_factory=list)
    """Every included file read, in order (for watching and cache checks)."""
    loads: int = 0
    loaded_bytes: int = 0
    nodes: int = 0
    """The work done so far, against `MAX_INCLUDE_LOADS`, `_BYTES` and `_NODES`."""

    def resolve(self, data: Any, base: Path, chain: tuple[str, ...], where: KeyPath = ()) -> Any:
        """`data` (read from `base`, at key path `where` there) with its includes resolved."""
        if len(chain) > 1:
            self._count(1, base, where)
        if isinstance(data, list):
            return [self.resolve(item, base, chain, (*where, i)) for i, item in enumerate(data)]
        if not isinstance(data, dict):
            return data
        if INCLUDE_KEY not in data:
            return {k: self.resolve(v, base, chain, (*where, k)) for k, v in data.items()}
        value = data[INCLUDE_KEY]
        at = (*where, INCLUDE_KEY)
        rest = {
            k: self.resolve(v, base, chain, (*where, k))
            for k, v in data.items()
            if k != INCLUDE_KEY
        }

        def merge(target: Any, source: Any) -> Any:
            return deep_merge(target, source, lambda n: self._count(n, base, at))

        if isinstance(value, str):
            included = self._load(value, base, chain, at)
        elif isinstance(value, list):
            included = {}
            for item in value:
                if not isinstance(item, str):
                    raise IncludeError(
                        f"$include list items must be paths, not {describe(item)}", str(base), at
                    )
                included = merge(included, self._load(item, base, chain, at))
        else:
            raise IncludeError("$include must be a path or a list of paths", str(base), at)
        if not rest:
            return included
        if not isinstance(included, dict):
            raise IncludeError(
                f"$include {value!r} is not an object, so keys beside it cannot merge",
                str(base),
                at,
            )
        return merge(included, rest)

    def _load(self, ref: str, base: Path, chain: tuple[str, ...], at: KeyPath) -> Any:
        def refuse(message: str) -> IncludeError:
            return IncludeError(f"$include {ref!r}: {message}", str(base), at)

        path = Path(os.path.normpath(base.parent / ref))  # no `~`: OpenClaw expands none here
        if not _inside(path, self.root):
            raise refuse(f"leaves the config's folder ({self.root})")
        loop = f"{path} is a symlink loop (a link that leads back to itself)"
        try:
            linked_out = not inside(path, self.root)
        except (RuntimeError, OSError):  # Path.resolve: "Symlink loop from ..."
            raise refuse(loop) from None
        if linked_out:
            raise refuse("is a link leading outside the config's folder")
        if str(path) in chain:
            raise IncludeError("$include cycle: " + " -> ".join([*chain, str(path)]), str(base), at)
        if len(chain) > MAX_INCLUDE_DEPTH:
            raise refuse(f"more than {MAX_INCLUDE_DEPTH} levels deep")
        self._bound(
            self.loads + 1 > MAX_INCLUDE_LOADS,
            f"more than {MAX_INCLUDE_LOADS:,} included files loaded in all (a file included "
            "again counts again)",
            base,
            at,
            ref,
        )
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0  # the read says why
        if size > MAX_READ_BYTES:
            raise refuse(f"{path} is {size:,} bytes, larger than the 2 MiB read cap; not parsed")
        self._bound(
            self.loaded_bytes + size > MAX_INCLUDE_BYTES,
            f"more than {MAX_INCLUDE_BYTES // (1024 * 1024)} MiB of included files loaded in all",
            base,
            at,
            ref,
        )
        fr = self.read(str(path))
        if fr.error == "ELOOP":
            raise refuse(loop)
        if not fr.exists:
            why = fr.diagnostics[0].message if fr.diagnostics else "no such file"
            raise refuse(f"cannot read {path}: {why}")
        if fr.capped:  # grew past the cap since its size was taken
            raise refuse(f"{path} is larger than the 2 MiB read cap; not parsed")
        self.loads += 1
        self.loaded_bytes += fr.size
        self.files.append(str(path))
        try:
            parsed = self.parse(fr.text, str(path))
        except ValueError as exc:
            raise refuse(f"not valid JSON5: {exc}") from None
        return self.resolve(parsed, path, (*chain, str(path)))

    def _count(self, n: int, base: Path, at: KeyPath) -> None:
        self.nodes += n
        self._bound(
            self.nodes > MAX_INCLUDE_NODES,
            f"more than {MAX_INCLUDE_NODES:,} values read from included files and made by "
            "merging them",
            base,
            at,
        )

    @staticmethod
    def _bound(hit: bool, what: str, base: Path, at: KeyPath, ref: str = "") -> None:
        if hit:
            named = f"$include {ref!r}" if ref else "$include"
            raise IncludeBoundError(f"{named}: {what}", str(base), at)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_includes(
    data: dict[str, Any],
    config_path: str,
    read: Callable[[str], FileRead],
    parse: Callable[[str, str], Any],
) -> tuple[dict[str, Any], list[str], list[Diagnostic]]:
    """`data` with every `$include` resolved, the files read, and the problem (if any): the
    runtime refuses a config whose includes fail, so then the config is used without them.
    The problem names the file holding the failing `$include`, at its line."""
    if INCLUDE_KEY not in repr(data):
        return data, [], []
    resolver = Includes(Path(config_path).parent, read, parse)
    try:
        out = resolver.resolve(data, Path(config_path), (config_path,))
    except IncludeBoundError as exc:
        diag = _include_diagnostic(
            exc, read, "ctxscope's bound on the work of includes; shown without its includes"
        )
        return _drop_includes(data), resolver.files, [diag]
    except IncludeError as exc:
        diag = _include_diagnostic(
            exc, read, "OpenClaw would not load this config (shown without its includes)"
        )
        return _drop_includes(data), resolver.files, [diag]
    except RecursionError:
        diag = Diagnostic(
            "error",
            "$include nested too deeply; OpenClaw would not load this config (shown without "
            "its includes)",
            config_path,
            code="config-include",
        )
        return _drop_includes(data), resolver.files, [diag]
    if not isinstance(out, dict):
        diag = Diagnostic(
            "error", "the top-level $include is not an object", config_path, code="config-include"
        )
        return _drop_includes(data), resolver.files, [diag]
    return out, resolver.files, []


def _include_diagnostic(
    exc: IncludeError, read: Callable[[str], FileRead], consequence: str
) -> Diagnostic:
    """The error at the `$include` that failed: its file and line."""
    line = None
    if exc.path and exc.where:
        fr = read(exc.path)
        line = key_lines(fr.text, exc.path).get(exc.where) if fr.exists else None
    return Diagnostic(
        "error", f"{exc}; {consequence}", exc.path or None, line, code="config-include"
    )


def _drop_includes(data: Any) -> Any:
    if isinstance(data, list):
        return [_drop_includes(v) for v in data]
    if isinstance(data, dict):
        return {k: _drop_includes(v) for k, v in data.items() if k != INCLUDE_KEY}
    return data


@record(frozen=True)
class MissingEnv:
    """An environment variable a config string names (`${NAME}`) that is not set."""

    name: str
    key: str
    """The dotted config path of the string that names it."""


@record(frozen=True)
class EnvString:
    """A config string that `${NAME}` substitution made: where it is and what it is made of,
    so that a face can show it with each variable's value masked (`p/⟨$OPENAI_API_KEY⟩`)."""

    key: str
    """The dotted config path of the string."""
    pieces: tuple[tuple[str | None, str], ...]
    """(variable name, its value) for each substituted value, (None, text) for text written
    in the config, in order."""

    @property
    def text(self) -> str:
        """The string the config holds after substitution (what the runtime uses)."""
        return "".join(value for _, value in self.pieces)


@record
class Substituted:
    """`substitute_env`'s result: the data, the variables not set, the strings made."""

    data: Any
    missing: list[MissingEnv] = field(default_factory=list)
    made: list[EnvString] = field(default_factory=list)
    """Every string a variable's value went into, in config order (provenance)."""


def substitute_env(data: Any, env: dict[str, str], key: str = "") -> Substituted:
    """`data` with `${NAME}` replaced from `env`; an unset or empty variable is left as
    written and reported. Each string a value went into is recorded (`Substituted.made`)."""
    out = Substituted(None)

    def walk(value: Any, where: str) -> Any:
        if isinstance(value, str):
            return sub(value, where) if "$" in value else value
        if isinstance(value, list):
            return [walk(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: walk(v, f"{where}.{k}" if where else str(k)) for k, v in value.items()}
        return value

    def sub(text: str, where: str) -> str:
        pieces: list[tuple[str | None, str]] = []
        at = 0
        for m in _ENV_TOKEN.finditer(text):
            pieces.append((None, text[at : m.start()]))
            at = m.end()
            name = m.group(2)
            found = env.get(name) if name else None
            if m.group(1):
                pieces.append((None, "${" + m.group(1) + "}"))
            elif not found:
                out.missing.append(MissingEnv(name, where))
                pieces.append((None, m.group(0)))
            else:
                pieces.append((name, found))
        pieces.append((None, text[at:]))
        kept = tuple((n, v) for n, v in pieces if n is not None or v)
        if any(n is not None for n, _ in kept):
            out.made.append(EnvString(where, kept))
        return "".join(v for _, v in kept)

    out.data = walk(data, key)
    return out


def config_env(data: dict[str, Any], environ: dict[str, str]) -> dict[str, str]:
    """The environment the config sees: the process's, plus the config's own `env.vars` and
    string entries of `env` (these win over `vars`) where the process has no value."""
    env = dict(environ)
    block = data.get("env")
    if not isinstance(block, dict):
        return env
    pairs: dict[str, str] = {}
    if isinstance(block.get("vars"), dict):
        pairs.update({str(k): v for k, v in block["vars"].items() if isinstance(v, str) and v})
    for name, value in block.items():
        if name not in ("vars", "shellEnv") and isinstance(value, str) and value.strip():
            pairs[str(name)] = value
    for name, value in pairs.items():
        if not env.get(name, "").strip():
            env[name] = value
    return env
