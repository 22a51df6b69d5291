"""What OpenClaw writes into a workspace on its first run there, before it reads it.

Unless `agents.defaults.skipBootstrap` is set, the runner makes sure the workspace has its
bootstrap files: each one the profile names (`first_run.writes`) that is absent is written
from the install's template (`docs/reference/templates/<name>`, its frontmatter taken off),
and `BOOTSTRAP.md` too while the persona files are still the templates (2026.9: and no
memory, git history or skill of the user's; 2026.2: and no onboarding state). The first
run's prompt holds those templates, so ctxscope shows them as `first-run` files: what the
runtime will write, not what is on disk. The templates are read from the installed
OpenClaw. Without one, each release's templates stand in by their measured facts
(`openclaw/facts/<profile>.json`, `first_run_templates`: chars as the runtime injects them,
and a digest to tell a persona file that is still the template): the size is the release's,
the text is not shown. A folder no agent has run in yet is made and seeded whole.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import Any

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.config import GatewayConfig, string_list
from ctxscope.runtimes.openclaw.toolcatalog import FACTS
from ctxscope.runtimes.profiles import Profile

SETUP_FILE = "BOOTSTRAP.md"


@record(frozen=True)
class FirstRun:
    """The files the runtime would write (name -> template text), and why some cannot be
    shown (no install found to read the template from)."""

    templates: dict[str, str]
    unknown: tuple[str, ...] = ()
    template_dir: str = ""
    measured: dict[str, int] = field(default_factory=dict)
    """Files the runtime would write whose template no install was found to read: name ->
    the chars its release's template injects (a measured stand-in; the text is not shown)."""
    release: str = ""
    """The release the `measured` sizes were taken from."""
    git_init: bool = False
    """The folder is new (`first_run.brand_new`): the runtime also makes it a git repository
    (where git is installed), which its prompt then names."""

    def notes(self, runtime: str, workspace: str) -> list[Diagnostic]:
        """What the view says of the files whose template ctxscope could not read."""
        said = f"{runtime} writes {{}} from its templates before its first run here "
        said += "(agents.defaults.skipBootstrap is not set); no installed OpenClaw was found "
        said += "to read them from, so "
        out = []
        if self.measured:
            why = f"each is shown by the size measured on OpenClaw {self.release}'s template "
            why += "(a stand-in: its text is not shown)"
            out.append((list(self.measured), why))
        if self.unknown:
            out.append((list(self.unknown), "they are shown as missing"))
        return [
            Diagnostic("info", said.format(", ".join(n)) + why, workspace, code="first-run")
            for n, why in out
        ]


NONE = FirstRun({})


@record(frozen=True)
class TemplateFacts:
    """A release's first-run templates by size: name -> (chars once right-trimmed, sha256
    of the text as written)."""

    release: str
    templates: dict[str, tuple[int, str]]


@cache
def _bundled_templates(profile_name: str) -> TemplateFacts | None:
    try:
        raw = json.loads((FACTS / f"{profile_name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = raw.get("first_run_templates")
    if not isinstance(found, dict):
        return None
    return TemplateFacts(
        str(raw.get("release", "")),
        {str(n): (int(f["chars"]), str(f["sha256"])) for n, f in found.items()},
    )


def template_facts(profile: Profile) -> TemplateFacts | None:
    """The measured templates of the release `profile` models: its own facts, else those of
    the bundled profile of the same release year.month."""
    found = _bundled_templates(profile.name)
    month = ".".join(profile.version.split(".")[:2])
    if found is None and month and profile.family:
        found = _bundled_templates(f"{profile.family}-{month}")
    return found


def first_run(
    workspace: Path,
    profile: Profile,
    config: GatewayConfig,
    package: str,
    snapshot: Snapshot,
    *,
    setup_completed: bool = False,
) -> FirstRun:
    rules = profile.first_run
    if not rules or config.defaults.get("skipBootstrap") is True:
        return NONE
    writes = [str(n) for n in rules.get("writes") or ()]
    optional = set(rules.get("optional") or ())
    skipped = set(string_list(config.defaults.get("skipOptionalBootstrapFiles")) or ())
    if setup_completed:
        skipped |= optional
    absent = [
        n
        for n in writes
        if not os.path.lexists(workspace / n) and not (n in optional and n in skipped)
    ]
    folder = Path(package) / str(rules.get("templates", "")) if package else None
    facts = None if folder else template_facts(profile)

    def template(name: str) -> str | None:
        if folder is None:
            return None
        fr = snapshot.read(folder / name)
        return template_text(fr.text) if fr.exists else None

    def is_template(name: str, text: str) -> bool:
        if folder is not None:
            return text == template(name)
        fact = facts.templates.get(name) if facts else None
        return fact is not None and hashlib.sha256(text.encode()).hexdigest() == fact[1]

    if not os.path.lexists(workspace / SETUP_FILE) and _setup_pending(
        workspace, rules.get("setup_when"), is_template, setup_completed, snapshot
    ):
        absent.append(SETUP_FILE)
    found = {n: t for n in absent if (t := template(n)) is not None}
    sizes = facts.templates if facts else {}
    measured = {n: sizes[n][0] for n in absent if n not in found and n in sizes}
    missing = tuple(n for n in absent if n not in found and n not in measured)
    release = facts.release if facts and measured else ""
    new = _brand_new(workspace, rules.get("brand_new"))
    return FirstRun(found, missing, str(folder or ""), measured, release, new)


def _brand_new(workspace: Path, rule: object) -> bool:
    """None of `brand_new.absent` is there, nor the user's content (`brand_new.evidence`: a
    file, or `skills` holding a skill), and no `.git` yet: `git init` runs there."""
    if not isinstance(rule, dict) or os.path.lexists(workspace / ".git"):
        return False
    if any(os.path.lexists(workspace / str(n)) for n in rule.get("absent") or ()):
        return False
    return not _evidence(workspace, rule.get("evidence") or ())


def _setup_pending(
    workspace: Path,
    rule: object,
    is_template: Callable[[str, str], bool],
    setup_completed: bool,
    snapshot: Snapshot,
) -> bool:
    """Whether the runner also seeds BOOTSTRAP.md: the persona files (`setup_when.persona`)
    are absent or still the templates, none of `setup_when.evidence` (the user's memory,
    git history, skills) is there, and no onboarding `setup_when.state_file`."""
    if setup_completed or not isinstance(rule, dict):
        return False
    state = rule.get("state_file")
    if isinstance(state, str) and os.path.lexists(workspace / state):
        return False
    if _evidence(workspace, rule.get("evidence") or ()):
        return False
    for name in rule.get("persona") or ():
        path = workspace / str(name)
        if not os.path.lexists(path):
            continue
        fr = snapshot.read(path)  # never blocks (a FIFO is not opened)
        if not fr.exists or not is_template(str(name), fr.text):
            return False
    return True


def _evidence(workspace: Path, names: Any) -> bool:
    """One of `names` is there (`skills`: a skill folder holding a SKILL.md)."""
    for name in names:
        if name == "skills":
            skills = workspace / "skills"
            if skills.is_dir() and any((d / "SKILL.md").exists() for d in _dirs(skills)):
                return True
        elif os.path.lexists(workspace / str(name)):
            return True
    return False


def _dirs(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return []


def template_text(text: str) -> str:
    """A template's text without its leading `---` frontmatter block and the blank space
    after it, as the runtime writes it."""
    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end == -1:
        return text
    return text[end + 4 :].lstrip()
