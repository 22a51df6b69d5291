"""What a side of a comparison is (`--from SPEC`, `--to SPEC`) and where its files come from.

A spec is `KIND:VALUE` or a bare value whose kind is worked out (first that fits):

- `now` (or `.`): the workspace as it is on disk;
- an existing file: a scenario file (`*.yaml`, `*.yml`, not a gateway config's name) or a
  gateway config (`openclaw.json`, `*.json`, `*.json5`, `openclaw.yaml`);
- a bundled profile's name (`openclaw-2026.2`, `openclaw-2026.9`, `goclaw`, ...);
- a git revision of the repository holding the workspace (`HEAD~1`, a branch, a hash);
- `run:KEY` only with its kind: the run OpenClaw recorded for session KEY (`diff/runside.py`).

`profile:`, `config:`, `scenario:`, `git:` and `run:` force a kind. Each kind is one resolver
function in `RESOLVERS`: it answers None when a bare spec is not of its kind, and a
`SideSource` (a workspace folder plus what to load it with, or its own `build`) when it is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

from ctxscope.diff.gitside import (
    DubiousOwnership,
    GitError,
    checkout_free_copy,
    find_revision,
    same_length,
    why_not_revision,
)
from ctxscope.diff.runside import RunSideError, find_side
from ctxscope.diff.source import Base, SideError, SideSource
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import load_inputs
from ctxscope.runtimes.openclaw.config import CONFIG_NAMES
from ctxscope.runtimes.profiles import bundled_profiles

Resolver = Callable[[str, Base, bool], SideSource | None]
"""(value, base, forced) -> the side, None when a bare value is not of this kind; raises
SideError when `forced` (the spec named the kind) and the value cannot be one."""


def _now(value: str, base: Base, forced: bool) -> SideSource | None:
    if value not in ("now", ".", "") and not forced:
        return None
    return SideSource(
        value or "now",
        "now",
        "the workspace now",
        base.workspace,
        base.config,
        dict(base.overrides),
    )


def _file(value: str, base: Base) -> Path | None:
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        return path if path.is_file() else None
    except OSError:  # a name longer than the system takes, a loop of links, ...
        return None


def _is_config_name(path: Path) -> bool:
    return path.name in CONFIG_NAMES or path.suffix in (".json", ".json5")


def _config(value: str, base: Base, forced: bool) -> SideSource | None:
    path = _file(value, base)
    if path is None:
        if forced:
            raise SideError(f"config:{value}: no such file")
        return None
    if not forced and not _is_config_name(path):
        return None
    return SideSource(
        value, "config", f"config {value}", base.workspace, str(path), dict(base.overrides)
    )


def _scenario(value: str, base: Base, forced: bool) -> SideSource | None:
    path = _file(value, base)
    if path is None:
        if forced:
            raise SideError(f"scenario:{value}: no such file")
        return None
    if not forced and (_is_config_name(path) or path.suffix not in (".yaml", ".yml")):
        return None
    return SideSource(
        value,
        "scenario",
        f"scenario {value}",
        base.workspace,
        base.config,
        dict(base.overrides),
        scenario_file=path,
    )


def _profile(value: str, base: Base, forced: bool) -> SideSource | None:
    known = value in ("openclaw", *bundled_profiles())
    if not known and not forced:
        return None
    if not known and not _file(value, base):
        raise SideError(
            f"profile:{value}: not a bundled profile ({', '.join(bundled_profiles())}) nor a "
            "profile file"
        )
    name = value if known else str(_file(value, base))
    return SideSource(
        value,
        "profile",
        f"profile {value}",
        base.workspace,
        base.config,
        {**base.overrides, "profile": name},
    )


def _git(value: str, base: Base, forced: bool) -> SideSource | None:
    try:
        rev = find_revision(base.workspace, value)
        if rev is None:
            if forced:
                raise SideError(f"git:{value}: {why_not_revision(base.workspace, value)}")
            return None
    except GitError as exc:
        if forced or isinstance(exc, DubiousOwnership):
            raise SideError(f"{'git:' if forced else ''}{value}: {exc}") from None
        return None
    return SideSource(
        value,
        "git",
        f"{value} ({rev.commit[:12]})",
        base.workspace,
        base.config,
        dict(base.overrides),
        revision=rev,
    )


def _run(value: str, base: Base, forced: bool) -> SideSource | None:
    """`run:KEY`: the run OpenClaw recorded for session KEY (never a bare spec: a key's
    colons would be read as a kind)."""
    if not forced:
        return None
    key = value.strip()
    if key.count(":") < 2 or not key.lower().startswith("agent:"):
        raise SideError(
            f"run:{value}: not a session key (agent:<id>:<rest>, as `ctxscope runs` lists them)"
        )
    inputs = load_inputs(base.workspace, Snapshot(), config=base.config, overrides=base.overrides)
    try:
        found = find_side(key, inputs, base.state)
    except RunSideError as exc:
        raise SideError(f"run:{key}: {exc}") from None
    return SideSource(
        f"run:{value}",
        "run",
        found.label,
        base.workspace,
        base.config,
        dict(base.overrides),
        session_key=found.run.session_key,
        build=found,
    )


RESOLVERS: dict[str, Resolver] = {
    "now": _now,
    "scenario": _scenario,
    "config": _config,
    "profile": _profile,
    "git": _git,
    "run": _run,
}
"""Each kind of side, in the order a bare spec is tried."""


def parse_side(spec: str, base: Base) -> SideSource:
    """The side `spec` names (see the module doc); SideError when it names none."""
    kind, colon, value = spec.partition(":")
    if colon and kind in RESOLVERS:
        found = RESOLVERS[kind](value, base, True)
        assert found is not None
        return found
    for resolver in RESOLVERS.values():
        found = resolver(spec, base, False)
        if found is not None:
            return found
    raise SideError(
        f"{spec!r} names no side: not 'now', an existing scenario or config file, a profile "
        f"name, nor a git revision of the repository holding {base.workspace} "
        f"(kinds: {', '.join(f'{k}:' for k in RESOLVERS)})"
    )


def materialise(side: SideSource) -> SideSource:
    """The side with its files in place: a git side's revision written to a scratch folder
    outside the repository (`release` removes it) and its paths pointed there; any other
    side as it is."""
    rev = side.revision
    if rev is None:
        return side
    try:
        scratch = checkout_free_copy(rev)
    except GitError as exc:
        raise SideError(f"{side.spec}: {exc}") from None
    workspace = scratch / rev.prefix.rstrip("/") if rev.prefix else scratch
    top = str(rev.top)
    config = side.config
    if config and _inside(config, top):
        config = str(scratch / os.path.relpath(config, top))
    notes = []
    if not same_length(scratch, rev.top):
        notes.append(
            f"{side.label}: its files were read from a copy at {scratch}, whose path differs "
            f"in length or script from {rev.top}'s: sizes that include the workspace's "
            "path (file headings, the Workspace section) differ by that much"
        )
    return dataclasses.replace(
        side, workspace=workspace, config=config, scratch=scratch, notes=notes
    )


def release(side: SideSource) -> None:
    """Remove what `materialise` wrote for `side` (nothing for most sides)."""
    if side.scratch is not None:
        shutil.rmtree(side.scratch, ignore_errors=True)


@contextlib.contextmanager
def opened(side: SideSource) -> Iterator[SideSource]:
    """`materialise`d for the block, released after it."""
    ready = materialise(side)
    try:
        yield ready
    finally:
        release(ready)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
