"""The config as OpenClaw reads it before anything uses it: `$include` and `${VAR}`.

`$include` (a path, or a list of paths merged in order) replaces the object holding it with
the included file's content, relative to the including file, never leaving the top config's
folder (links included), at most 10 levels deep, cycles refused. Sibling keys are merged over
the included object: objects merge key by key, lists are concatenated, anything else is
replaced. `${NAME}` (upper-case letters, digits, `_`) in a string is the environment variable;
`$${NAME}` is the literal text `${NAME}`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from ctxscope.model import Diagnostic
from ctxscope.paths import inside
from ctxscope.record import record
from ctxscope.secrets import describe
from ctxscope.snapshot import FileRead

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10
_BLOCKED = {"__proto__", "prototype", "constructor"}
_ENV_TOKEN = re.compile(r"\$\$\{([A-Z_][A-Z0-9_]*)\}|\$\{([A-Z_][A-Z0-9_]*)\}")


class IncludeError(Exception):
    """One `$include` that cannot be resolved; the message is the user's."""


def deep_merge(target: Any, source: Any) -> Any:
    if isinstance(target, list) and isinstance(source, list):
        return [*target, *source]
    if isinstance(target, dict) and isinstance(source, dict):
        out = dict(target)
        for key, value in source.items():
            if key in _BLOCKED:
                continue
            out[key] = deep_merge(out[key], value) if key in out else value
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

    def resolve(self, data: Any, base: Path, chain: tuple[str, ...]) -> Any:
        if isinstance(data, list):
            return [self.resolve(item, base, chain) for item in data]
        if not isinstance(data, dict):
            return data
        if INCLUDE_KEY not in data:
            return {k: self.resolve(v, base, chain) for k, v in data.items()}
        value = data[INCLUDE_KEY]
        rest = {k: self.resolve(v, base, chain) for k, v in data.items() if k != INCLUDE_KEY}
        if isinstance(value, str):
            included = self._load(value, base, chain)
        elif isinstance(value, list):
            included = {}
            for item in value:
                if not isinstance(item, str):
                    raise IncludeError(f"$include list items must be paths, not {describe(item)}")
                included = deep_merge(included, self._load(item, base, chain))
        else:
            raise IncludeError("$include must be a path or a list of paths")
        if not rest:
            return included
        if not isinstance(included, dict):
            raise IncludeError(
                f"$include {value!r} is not an object, so keys beside it cannot merge"
            )
        return deep_merge(included, rest)

    def _load(self, ref: str, base: Path, chain: tuple[str, ...]) -> Any:
        path = Path(os.path.normpath(base.parent / os.path.expanduser(ref)))
        if not _inside(path, self.root):
            raise IncludeError(f"$include {ref!r} leaves the config's folder ({self.root})")
        if not inside(path, self.root):
            raise IncludeError(f"$include {ref!r} is a link leading outside the config's folder")
        if str(path) in chain:
            raise IncludeError("$include cycle: " + " -> ".join([*chain, str(path)]))
        if len(chain) > MAX_INCLUDE_DEPTH:
            raise IncludeError(f"$include {ref!r} is more than {MAX_INCLUDE_DEPTH} levels deep")
        fr = self.read(str(path))
        if not fr.exists:
            why = fr.diagnostics[0].message if fr.diagnostics else "no such file"
            raise IncludeError(f"$include {ref!r}: cannot read {path}: {why}")
        self.files.append(str(path))
        try:
            parsed = self.parse(fr.text, str(path))
        except ValueError as exc:
            raise IncludeError(f"$include {ref!r}: {path} is not valid JSON5 ({exc})") from None
        return self.resolve(parsed, path, (*chain, str(path)))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_includes(
    data: dict[str, Any],
    config_path: str,
    read: Callable[[str], FileRead],
    parse: Callable[[str, str], Any],
) -> tuple[dict[str, Any], list[str], list[Diagnostic]]:
    """`data` with every `$include` resolved, the files read, and the problem (if any): the
    runtime refuses a config whose includes fail, so then the config is used without them."""
    if INCLUDE_KEY not in repr(data):
        return data, [], []
    resolver = Includes(Path(config_path).parent, read, parse)
    try:
        out = resolver.resolve(data, Path(config_path), (config_path,))
    except (IncludeError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, IncludeError) else "$include nested too deeply"
        diag = Diagnostic(
            "error",
            f"{message}; OpenClaw would not load this config (shown without its includes)",
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
