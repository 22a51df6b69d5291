"""Workspace skills: `skills/<name>/SKILL.md` with YAML frontmatter (`name`, `description`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic
from ctxscope.infra.snapshot import Snapshot


@record(frozen=True)
class Skill:
    """A skill found in a skills folder (its SKILL.md frontmatter's name and description)."""

    name: str
    description: str
    path: str
    requires: str = ""
    """The frontmatter's `metadata.openclaw` (what the skill needs: `os`, `requires`), as
    JSON; empty when it says nothing."""


def frontmatter(text: str) -> tuple[dict[str, Any] | None, int]:
    """The `---` YAML block at the top of `text` and the line where it ends (0 if none).
    Raises yaml.YAMLError for a broken block."""
    if not text.startswith("---"):
        return None, 0
    lines = text.splitlines()
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            data = load_yaml("\n".join(lines[1:i]))
            return (data if isinstance(data, dict) else {}), i + 1
    return None, 0


def discover_skills(workspace: Path, snapshot: Snapshot) -> tuple[list[Skill], list[Diagnostic]]:
    folder = workspace / "skills"
    names = snapshot.listdir(folder).dirs
    skills: list[Skill] = []
    diags: list[Diagnostic] = []
    for name in names:
        fr = snapshot.read(folder / name / "SKILL.md")
        if not fr.exists:
            # A folder without SKILL.md is not a skill; one whose SKILL.md cannot be read
            # (a folder, a FIFO, no permission) is named, and skipped as the runtime does.
            diags.extend(
                Diagnostic(d.severity, f"{d.message}: the skill is not loaded", d.path, code=d.code)
                for d in fr.diagnostics
            )
            continue
        diags.extend(fr.diagnostics)
        try:
            meta, _ = frontmatter(fr.text)
        except yaml.YAMLError as exc:
            # The frontmatter starts on the file's second line, after `---`.
            diags.append(
                yaml_diagnostic(
                    exc,
                    fr.path,
                    "skill-frontmatter",
                    what="skill frontmatter",
                    line_offset=1,
                    severity="warning",
                )
            )
            meta = None
        meta = meta or {}
        needs = meta.get("metadata")
        needs = needs.get("openclaw") if isinstance(needs, dict) else None
        skills.append(
            Skill(
                str(meta.get("name") or name),
                " ".join(str(meta.get("description") or "").split()),
                fr.path,
                json.dumps(needs, default=str) if isinstance(needs, dict) and needs else "",
            )
        )
    return skills, diags


def filter_skills(skills: list[Skill], allow: Any, where: str = "agent") -> tuple[list[Skill], str]:
    """Apply a `skills` allowlist (the agent's, or `agents.defaults`'): absent = all, `[]` =
    none, a list = only those."""
    if allow is None:
        return skills, f"no `skills` allowlist on the {where}: every workspace skill"
    if not isinstance(allow, list):
        return skills, f"the {where}'s `skills` is not a list: ignored, every workspace skill"
    wanted = {str(s).strip() for s in allow}
    if not wanted:
        return [], f"the {where}'s `skills` allowlist is empty: no skills"
    return [s for s in skills if s.name in wanted], (
        f"the {where}'s `skills` allowlist: {', '.join(sorted(wanted))}"
    )


def select_skills(
    skills: list[Skill], agent: dict[str, Any], defaults: dict[str, Any], *, use_defaults: bool
) -> tuple[list[Skill], str, str]:
    """The skills a session lists, the rule, and whose allowlist decided (`agent` or
    `agents.defaults`): a skill without a description is never listed; the agent's own
    `skills` wins; where the version reads it, an agent without one takes the defaults'."""
    described = [s for s in skills if s.description]
    if "skills" not in agent and use_defaults:
        kept, rule = filter_skills(described, defaults.get("skills"), "agents.defaults")
        return kept, rule, "agents.defaults"
    kept, rule = filter_skills(described, agent.get("skills"), "agent")
    return kept, rule, "agent"
