"""Where Rye's real system tier is: the `.ai` folders of the installed ryeos bundles.

ryeos finds its system bundles through the `rye.bundles` entry points (sorted by entry point
name: `ryeos` = ryeos_std, then `ryeos-core`); each bundle is a package folder holding `.ai`.
ctxscope reads the same entry points as metadata (nothing is imported or run). Without an
installed ryeos (or `--rye-system`), the bundled stand-in space is the system tier and every
size taken from it is marked as a stand-in.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

ENV = "CTXSCOPE_RYE_SYSTEM"
"""Folders of the real system tier, separated by the path separator (as `--rye-system`)."""


class RyeSystemError(ValueError):
    pass


def _package_dir(module: str) -> Path | None:
    """The folder of top-level package `module` in this environment, without importing it."""
    try:
        spec = importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _bundles_in_site(site: Path) -> list[Path]:
    """`.ai` folders of the bundles a site-packages folder declares in its dist-info."""
    found: list[tuple[str, Path]] = []
    for entry_points in sorted(site.glob("*.dist-info/entry_points.txt")):
        parser = configparser.ConfigParser(delimiters=("=",))
        try:
            parser.read(entry_points, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        if not parser.has_section("rye.bundles"):
            continue
        for name, value in parser.items("rye.bundles"):
            ai = site / value.split(":")[0].split(".")[0].strip() / ".ai"
            if ai.is_dir():
                found.append((name, ai))
    return [ai for _, ai in sorted(found)]


def expand(folder: Path | str) -> list[Path]:
    """One `--rye-system` value as `.ai` folders: a `.ai` folder, a bundle folder holding
    one, or a site-packages folder with ryeos installed."""
    p = Path(folder).expanduser()
    if not p.is_dir():
        raise RyeSystemError(f"{folder}: Rye system folder not found")
    if p.name == ".ai":
        return [p.resolve()]
    if (p / ".ai").is_dir():
        return [(p / ".ai").resolve()]
    bundles = _bundles_in_site(p)
    if bundles:
        return [b.resolve() for b in bundles]
    raise RyeSystemError(
        f"{folder}: not a Rye system space (no .ai folder, and no installed ryeos bundles)"
    )


@cache
def installed() -> list[Path]:
    """The `.ai` folders of the ryeos bundles installed beside ctxscope, in ryeos's order:
    where the standard bundle's package is importable, its site-packages folder's declared
    bundles (a cheap check first: most environments have no ryeos)."""
    for package in ("ryeos_std", "ryeos_core"):
        folder = _package_dir(package)
        if folder is not None:
            return [b.resolve() for b in _bundles_in_site(folder.parent)]
    return []


def system_tier(explicit: list[Path] | list[str] | None, env: Mapping[str, str]) -> list[Path]:
    """The real system tier: `explicit` folders, else $CTXSCOPE_RYE_SYSTEM (in `env`), else
    the installed ryeos bundles; empty when none is known (the stand-in applies)."""
    if explicit:
        return [ai for folder in explicit for ai in expand(folder)]
    named = env.get(ENV, "")
    if named:
        return [ai for folder in named.split(os.pathsep) if folder for ai in expand(folder)]
    return installed()
