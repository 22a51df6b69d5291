"""The skills an installed OpenClaw lists beside the workspace's, read from its package.

The package's own skills (`skills/*/SKILL.md`, `custodian-skills/*/SKILL.md`) and the skills
of the plugins a default install enables (copied into the state folder's `plugin-skills/`;
which ones, the release's measured facts say), each gated as the runtime gates it by its
frontmatter's `metadata.openclaw`: `os`, `requires.bins` (all on PATH), `requires.anyBins`
(one), `requires.env` (all set), `requires.config` (each config path set), and the config's
`skills.entries.<name>.enabled: false`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from ctxscope.core.record import record
from ctxscope.core.tokens import text_chars
from ctxscope.core.yamlload import yaml
from ctxscope.infra.filememo import PACKAGE_MAX, FileMemo, read_regular
from ctxscope.infra.paths import on_path, search_path
from ctxscope.runtimes.openclaw.config import GatewayConfig, as_dict, normalize_agent_id
from ctxscope.runtimes.openclaw.skillbudget import entry, escape
from ctxscope.runtimes.openclaw.skills import frontmatter
from ctxscope.runtimes.openclaw.toolcatalog import Catalog, SkillFact

PACKAGE_FOLDERS = ("skills", "custodian-skills")
_OS = {"linux": "linux", "darwin": "darwin", "win32": "win32"}


def block_chars(name: str, description: str, rel: str) -> int:
    """An `<available_skills>` entry's chars without its location's root folder (its values
    escaped as the catalog lists them)."""
    return entry(name, f"/{rel}", description).chars(None)


@cache
def _read(path: Path) -> tuple[str, str, dict[str, Any]] | None:
    """(name, description, metadata.openclaw) of a SKILL.md, None when unreadable."""
    try:
        meta, _ = frontmatter(read_regular(path, PACKAGE_MAX).decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not meta:
        return None
    description = " ".join(str(meta.get("description") or "").split())
    if not description:
        return None
    openclaw = as_dict(as_dict(meta.get("metadata")).get("openclaw"))
    return str(meta.get("name") or path.parent.name), description, openclaw


def _config_set(config: GatewayConfig, dotted: str) -> bool:
    value: Any = config.data
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    return bool(value)


def gate(
    name: str,
    meta: dict[str, Any],
    config: GatewayConfig,
    environ: Mapping[str, str],
    find: Callable[[str], str | None] = on_path,
) -> str | None:
    """Why the runtime leaves the skill out on this machine (its environment `environ`), or
    None when it lists it (`find`: where a program is on PATH)."""
    entry = as_dict(as_dict(as_dict(config.data.get("skills")).get("entries")).get(name))
    if entry.get("enabled") is False:
        return f"skills.entries.{name}.enabled is false"
    systems = meta.get("os")
    if isinstance(systems, list) and _OS.get(sys.platform, sys.platform) not in systems:
        return f"only on {', '.join(map(str, systems))}"
    requires = as_dict(meta.get("requires"))
    bins = [str(b) for b in requires.get("bins") or ()]
    missing = [b for b in bins if find(b) is None]
    if missing:
        return f"needs {', '.join(missing)} on PATH"
    any_bins = [str(b) for b in requires.get("anyBins") or ()]
    if any_bins and not any(find(b) for b in any_bins):
        return f"needs one of {', '.join(any_bins)} on PATH"
    env = as_dict(entry.get("env"))
    unset = [str(e) for e in requires.get("env") or () if not (environ.get(str(e)) or env.get(e))]
    if unset:
        return f"needs {', '.join(unset)} set"
    off = [str(c) for c in requires.get("config") or () if not _config_set(config, str(c))]
    if off:
        return f"needs {', '.join(off)} in the config"
    return None


@record(frozen=True)
class _PackageSkill:
    """A skill the package holds: its `SKILL.md`'s name, description and gates, where its
    entry says it lies, and which folder holds it."""

    name: str
    description: str
    meta: dict[str, Any]
    rel: str
    folder: str
    """`skills`, `custodian-skills`, or the plugin skill's own folder name."""


_listed: FileMemo[list[_PackageSkill]] = FileMemo()
"""Each package's skills, kept while its `package.json` is unchanged."""


def _package_skills(package: Path) -> list[_PackageSkill]:
    """The skills in `package` (its own, then its plugins'), read again only once the
    package's `package.json` changed (a reinstall)."""
    return _listed.get(package, package / "package.json", lambda: _read_package_skills(package))


def _read_package_skills(package: Path) -> list[_PackageSkill]:
    out: list[_PackageSkill] = []
    for folder in PACKAGE_FOLDERS:
        base = package / folder
        for skill_md in sorted(base.glob("*/SKILL.md")) if base.is_dir() else ():
            read = _read(skill_md)
            if read is not None:
                rel = f"{folder}/{skill_md.parent.name}/SKILL.md"
                out.append(_PackageSkill(*read, rel, folder))
    for skill_md in sorted((package / "dist" / "extensions").glob("*/skills/*/SKILL.md")):
        read = _read(skill_md)
        if read is not None:
            rel = f"plugin-skills/{skill_md.parent.name}/SKILL.md"
            out.append(_PackageSkill(*read, rel, skill_md.parent.name))
    return out


class _Programs:
    """Where programs are on PATH, each looked up once while PATH's folders are as they
    were (a program added to or removed from one changes its folder's modification time)."""

    def __init__(self) -> None:
        self.stamp: tuple[tuple[str, int], ...] | None = None
        self.found: dict[str, str | None] = {}

    def finder(self) -> Callable[[str], str | None]:
        stamp = tuple((folder, _mtime(folder)) for folder in search_path())
        if stamp != self.stamp:
            self.stamp, self.found = stamp, {}
        found = self.found

        def find(name: str) -> str | None:
            if name not in found:
                found[name] = on_path(name)
            return found[name]

        return find


def _mtime(folder: str) -> int:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return -1


_programs = _Programs()


def installed_skills(
    package: Path, catalog: Catalog, config: GatewayConfig, environ: Mapping[str, str]
) -> list[SkillFact]:
    """The runtime's skills the installed `package` lists on this machine (its environment
    `environ`), by size."""
    find = _programs.finder()
    plugins = {k.name for k in catalog.skills if k.root == "state"}
    out: list[SkillFact] = []
    for skill in _package_skills(package):
        plugin = skill.folder not in PACKAGE_FOLDERS
        if plugin and skill.folder not in plugins:
            continue
        if gate(skill.name, skill.meta, config, environ, find) is not None:
            continue
        size = block_chars(skill.name, skill.description, skill.rel)
        described = text_chars(escape(skill.description))
        if plugin:
            out.append(SkillFact(skill.name, "state", size, description_chars=described))
        else:
            custodian = skill.folder == "custodian-skills"
            out.append(SkillFact(skill.name, "package", size, custodian, described))
    return out


def custodian_owner(config: GatewayConfig) -> str | None:
    """The agent that gets the custodian skills (2026.9): `agents.defaults.systemAgent.agentId`,
    else, outside an explicit roster (`agents.ownership: "explicit"`), the default agent, else
    the only agent; None: no agent gets them."""
    named = as_dict(config.defaults.get("systemAgent")).get("agentId")
    if isinstance(named, str) and named.strip():
        return normalize_agent_id(named)
    if as_dict(config.data.get("agents")).get("ownership") != "explicit":
        return config.default_agent_id()
    ids = config.agent_ids()
    return ids[0] if len(ids) == 1 else None
