"""The tool catalog of an installed OpenClaw, as its own runner builds it.

Exact mode asks the installed runtime's runner for its default catalog once per install (every
tool with Tool Search off, the ones Tool Search keeps visible and the search tools it adds,
the tools a subagent gets): names, description chars and schema chars (compact JSON, as
`/context` counts them). The measurement is kept in the user's cache folder, stamped with the
package's `package.json`, and stands in for the release's recorded facts whenever that install
runs the release a profile models, with or without exact mode. The other request facts (the
transports that relocate the `Runtime:` line, the time prefix, the internal-context message,
the skills) stay the recorded ones.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ctxscope.infra.filememo import FileMemo, read_json
from ctxscope.infra.paths import cache_dir, replace_file
from ctxscope.runtimes.openclaw.toolcatalog import Catalog, ToolFact, catalog_for
from ctxscope.runtimes.openclaw.versions import package_version, parse_version
from ctxscope.runtimes.profiles import Profile

_read: FileMemo[dict[str, Any] | None] = FileMemo()
"""Each catalog file read, kept while the file is unchanged."""


def catalog_file(package: str) -> Path:
    key = hashlib.sha256(os.path.realpath(package).encode()).hexdigest()[:16]
    return cache_dir() / "openclaw-tool-catalogs" / f"{key}.json"


def package_stamp(package: str) -> list[int] | None:
    """The package's `package.json` modification time and size (a reinstall changes them)."""
    try:
        st = os.stat(Path(package, "package.json"))
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _load(package: str) -> dict[str, Any] | None:
    path = catalog_file(package)
    return _read.get(path, path, lambda: _catalog(path))


def _catalog(path: Path) -> dict[str, Any] | None:
    try:
        data = read_json(path)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_measured(package: str) -> bool:
    """Whether the install at `package` has a measurement that is still its own."""
    data = _load(package)
    return (
        data is not None
        and data.get("package") == os.path.realpath(package)
        and data.get("stamp") == package_stamp(package)
    )


_made: dict[str, tuple[dict[str, Any], Catalog, Catalog | None]] = {}
"""The catalog last made for each install, with the measurement and the facts it came from."""


def installed_catalog(package: str, recorded: Catalog) -> Catalog | None:
    """`recorded` with the tools measured on the install at `package` (None when that install
    was never measured, or was reinstalled since)."""
    data = _load(package)
    if data is None or not is_measured(package):
        return None
    made = _made.get(package)
    if made is not None and made[0] is data and made[1] is recorded:
        return made[2]
    catalog = _installed(package, recorded, data)
    _made[package] = (data, recorded, catalog)
    return catalog


def _installed(package: str, recorded: Catalog, data: dict[str, Any]) -> Catalog | None:
    try:
        tools = tuple(_fact(t) for t in data["tools"])
        search = tuple(_fact(t) for t in data["search_tools"])
        visible = frozenset(str(n) for n in data["visible"])
    except (KeyError, TypeError, ValueError):
        return None
    return dataclasses.replace(
        recorded,
        tools=tools,
        search_tools=search,
        visible=visible,
        source=f"installed: OpenClaw {data.get('version', '?')} at {package} (its runner's "
        "tool schemas)",
    )


def _fact(raw: dict[str, Any]) -> ToolFact:
    sub = raw.get("subagent_description")
    return ToolFact(
        str(raw["name"]),
        int(raw["description"]),
        int(raw["schema"]),
        bool(raw.get("subagent", True)),
        int(sub) if sub is not None else None,
    )


def measured(answer: dict[str, Any]) -> dict[str, Any]:
    """The catalog facts in the runner's answer to a `catalog` request."""

    def sizes(key: str) -> dict[str, tuple[int, int]]:
        return {str(n): (int(d), int(c)) for n, d, c in answer.get(key) or ()}

    every, searched, child = sizes("all"), sizes("searched"), sizes("child")
    tools = []
    for name, (desc, schema) in sorted(every.items()):
        fact: dict[str, Any] = {"name": name, "description": desc, "schema": schema}
        if name not in child:
            fact["subagent"] = False
        elif child[name][0] != desc:
            fact["subagent_description"] = child[name][0]
        tools.append(fact)
    search = [
        {"name": n, "description": d, "schema": c}
        for n, (d, c) in sorted(searched.items())
        if n not in every
    ]
    return {
        "tools": tools,
        "search_tools": search,
        "visible": sorted(n for n in searched if n in every),
    }


def save(package: str, version: str, answer: dict[str, Any]) -> Path:
    """Keep the measurement of the install at `package` (written whole, then moved in)."""
    path = catalog_file(package)
    data = {
        "package": os.path.realpath(package),
        "version": version,
        "stamp": package_stamp(package),
        **measured(answer),
    }
    replace_file(path, json.dumps(data, indent=1).encode("utf-8"))
    return path


def catalog_for_install(profile: Profile, package: str) -> Catalog | None:
    """The catalog a session of `profile` gets: the one measured on the install at `package`
    when that install runs the release `profile` models (same year.month), else the release's
    recorded facts (labelled a stand-in)."""
    recorded = catalog_for(profile)
    if recorded is None or not package:
        return recorded
    version = package_version(Path(package))
    wanted = parse_version(profile.version)
    if version is None or wanted is None or version[:2] != wanted[:2]:
        return recorded
    return installed_catalog(package, recorded) or recorded
