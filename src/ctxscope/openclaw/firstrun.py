"""What OpenClaw writes into a workspace on its first run there, before it reads it.

Unless `agents.defaults.skipBootstrap` is set, the runner makes sure the workspace has its
bootstrap files: each one the profile names (`first_run.writes`) that is absent is written
from the install's template (`docs/reference/templates/<name>`, its frontmatter taken off),
and `BOOTSTRAP.md` too while the persona files are still the templates (2026.9: and no
memory, git history or skill of the user's; 2026.2: and no onboarding state). The first
run's prompt holds those templates, so ctxscope shows them as `first-run` files: what the
runtime will write, not what is on disk. The templates are read from the installed
OpenClaw; without one, the files stay missing with a note.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ctxscope.config import GatewayConfig, string_list
from ctxscope.openclaw.profiles import Profile
from ctxscope.record import record
from ctxscope.snapshot import Snapshot

SETUP_FILE = "BOOTSTRAP.md"


@record(frozen=True)
class FirstRun:
    """The files the runtime would write (name -> template text), and why some cannot be
    shown (no install found to read the template from)."""

    templates: dict[str, str]
    unknown: tuple[str, ...] = ()
    template_dir: str = ""


NONE = FirstRun({})


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

    def template(name: str) -> str | None:
        if folder is None:
            return None
        fr = snapshot.read(folder / name)
        return strip_frontmatter(fr.text) if fr.exists else None

    if not os.path.lexists(workspace / SETUP_FILE) and _setup_pending(
        workspace, rules.get("setup_when"), template, setup_completed, snapshot
    ):
        absent.append(SETUP_FILE)
    found = {n: t for n in absent if (t := template(n)) is not None}
    missing = tuple(n for n in absent if n not in found)
    return FirstRun(found, missing, str(folder or ""))


def _setup_pending(
    workspace: Path,
    rule: object,
    template: Callable[[str], str | None],
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
    for name in rule.get("evidence") or ():
        if name == "skills":
            skills = workspace / "skills"
            if skills.is_dir() and any((d / "SKILL.md").exists() for d in _dirs(skills)):
                return False
        elif os.path.lexists(workspace / str(name)):
            return False
    for name in rule.get("persona") or ():
        path = workspace / str(name)
        if not os.path.lexists(path):
            continue
        fr = snapshot.read(path)  # never blocks (a FIFO is not opened)
        if not fr.exists or fr.text != template(str(name)):
            return False
    return True


def _dirs(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return []


def strip_frontmatter(text: str) -> str:
    """A template's text without its leading `---` frontmatter block and the blank space
    after it, as the runtime writes it."""
    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end == -1:
        return text
    return text[end + 4 :].lstrip()
