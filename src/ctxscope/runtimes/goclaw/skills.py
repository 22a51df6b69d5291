"""The skills GoClaw lists in its `<agent_skills>` block: `skills/<dir>/SKILL.md` of the
workspace, sorted by name, left out when switched off in the config (a `skills.entries`
entry without `enabled: true`), meant for another OS, missing a required binary or
environment variable, flagged by GoClaw's audit of its text (the profile's `skill_audit`
patterns, unless `skills.entries.<name>.enabled` is true), or not allowed by the user's role.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic, SkillEntry
from ctxscope.core.record import record
from ctxscope.core.yamlload import load_yaml, yaml
from ctxscope.infra.paths import on_path
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.goclaw.users import Role, text_of

_HEADING = re.compile(r"(?m)^#{1,2}[ \t]+(.+)$")
_ESCAPES = {"&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;"}


def escape(text: str) -> str:
    """Text escaped for an XML attribute or element as GoClaw escapes it."""
    return "".join(_ESCAPES.get(c, c) for c in text)


@record(frozen=True)
class GoSkill:
    name: str
    description: str
    path: str
    emoji: str = ""
    meta: Any = None

    def line(self) -> str:
        """The skill's entry in the block (ctxscope writes the same values)."""
        desc = escape(self.description or f"Skill: {self.name}")
        emoji = f"{self.emoji} " if self.emoji else ""
        return f'<agent_skill fullPath="{escape(self.path)}">{emoji}{desc}</agent_skill>'


def _frontmatter(text: str) -> str | None:
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    return None if end < 0 else text[3:end]


def _metadata(value: Any) -> dict[str, Any] | None:
    """GoClaw's reading of `metadata`: a JSON string is the metadata itself (GoClaw's first
    attempt, which any JSON object passes); a mapping holds it under `openclaw` (or the
    legacy `clawdbot`), else is it."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    if not isinstance(value, dict):
        return None
    inner = value.get("openclaw", value.get("clawdbot", value))
    return inner if isinstance(inner, dict) else None


def parse_skill(folder: Path, text: str) -> tuple[GoSkill, Diagnostic | None]:
    path = str(folder / "SKILL.md")
    block = _frontmatter(text)
    if block is None:
        match = _HEADING.search(text)
        return GoSkill(match.group(1).strip() if match else folder.name, "", path), None
    problem = None
    try:
        data = load_yaml(block)
    except yaml.YAMLError:
        data, problem = (
            {},
            Diagnostic(
                "warning",
                "skill front matter is not valid YAML: GoClaw falls back to reading its top-level "
                "`key: value` lines (ctxscope reads the name and description only)",
                path,
                code="goclaw-skill",
            ),
        )
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep and not line[:1].isspace() and key.strip() in ("name", "description"):
                data[key.strip()] = value.strip()
    data = data if isinstance(data, dict) else {}
    meta = _metadata(data.get("metadata")) or {}
    name, desc = text_of(data, "name"), text_of(data, "description")
    return GoSkill(name or folder.name, desc, path, text_of(meta, "emoji"), meta), problem


def _missing(skill: GoSkill, env: Mapping[str, str]) -> str | None:
    """What keeps the skill from running on this host (its environment `env`), in words
    (None: nothing)."""
    meta: dict[str, Any] = skill.meta if isinstance(skill.meta, dict) else {}
    oses = [o for o in meta.get("os") or [] if isinstance(o, str)]
    here = "darwin" if sys.platform == "darwin" else sys.platform.rstrip("0123456789")
    if oses and here not in oses:
        return f"needs OS {', '.join(oses)}"
    req: dict[str, Any] = meta["requires"] if isinstance(meta.get("requires"), dict) else {}
    for binary in req.get("bins") or []:
        if isinstance(binary, str) and on_path(binary) is None:
            return f"needs binary {binary} (not on PATH)"
    anyb = [b for b in req.get("anyBins") or [] if isinstance(b, str)]
    if anyb and not any(on_path(b) for b in anyb):
        return f"needs one of {', '.join(anyb)} (none on PATH)"
    for var in req.get("env") or []:
        if isinstance(var, str) and not env.get(var):
            return f"needs environment variable {var}"
    return None


def audit(text: str, patterns: dict[str, str]) -> str | None:
    """The first audit pattern a line of `text` matches, in words (None: none does)."""
    compiled = [(name, re.compile(p, re.ASCII)) for name, p in patterns.items()]
    for number, line in enumerate(text.split("\n"), 1):
        for name, pattern in compiled:
            if pattern.search(line):
                return f"{name}, line {number}"
    return None


def list_skills(
    workspace: Path,
    config: dict[str, Any],
    role: Role | None,
    snapshot: Snapshot,
    patterns: dict[str, str],
    env: Mapping[str, str],
) -> tuple[list[GoSkill], list[SkillEntry], list[Diagnostic]]:
    """The skills the block lists, every skill's entry (listed or why not), diagnostics;
    `env`: the environment a skill's required variables are looked up in."""
    folder = workspace / "skills"
    found: dict[str, GoSkill] = {}
    texts: dict[str, str] = {}
    diags: list[Diagnostic] = []
    for name in snapshot.listdir(folder).dirs:
        fr = snapshot.read(folder / name / "SKILL.md")
        if not fr.exists:
            diags += [d for d in fr.diagnostics if d.severity != "info"]
            continue
        skill, problem = parse_skill(folder / name, fr.text)
        if problem is not None:
            diags.append(problem)
        found[skill.name] = skill
        texts[skill.name] = fr.text
    entries_cfg: dict[str, Any] = (
        config["entries"] if isinstance(config.get("entries"), dict) else {}
    )
    listed: list[GoSkill] = []
    entries: list[SkillEntry] = []
    for skill in sorted(found.values(), key=lambda s: s.name):
        entry = entries_cfg.get(skill.name)
        why = None
        if entry is not None and not (isinstance(entry, dict) and entry.get("enabled") is True):
            why = f"skills.entries.{skill.name} does not say `enabled: true`"
        why = why or _missing(skill, env)
        flagged = None if why else audit(texts[skill.name], patterns)
        if flagged and entry is None:
            why = (
                f"GoClaw's audit flags it ({flagged}); skills.entries.{skill.name}.enabled: "
                "true lets it in"
            )
        if why is None and role is not None and not role.can_use_skill(skill.name):
            why = f"role {role.name} may not use it"
        if why is None:
            listed.append(skill)
        entries.append(SkillEntry(skill.name, skill.path, why is None, why or "listed"))
    return listed, entries, diags
