"""What a section generator is given (`PromptContext`: the session, its config, files, tools
and skills) and what it answers (`Generated`: a text with its source and rule, `RuntimeText`
where the text is the runtime's own, `Absent` with why)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from ctxscope.core.model import FileEntry
from ctxscope.core.record import record
from ctxscope.core.tokens import estimate_tokens
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.sessionkeys import SessionInfo
from ctxscope.runtimes.openclaw.skillbudget import Entry, Fitted
from ctxscope.runtimes.openclaw.skills import Skill
from ctxscope.runtimes.openclaw.subagent import SubagentInfo
from ctxscope.runtimes.profiles import Profile, SectionSpec

# One-line summaries of the runtime's core tools, in ctxscope's words.


@record
class PromptContext:
    """What the generators may read."""

    profile: Profile
    info: SessionInfo
    workspace: Path
    config: GatewayConfig
    tools: list[str]
    files: list[FileEntry]
    skills: list[Skill]
    skills_rule: str
    model: str | None
    thinking: str | None
    channel: str | None
    timezone: str | None
    subagent: SubagentInfo | None
    bootstrap_mode: str = ""
    """`full`, `limited` or `none` where the version has bootstrap modes, else empty."""
    removed_tools: dict[str, str] = field(default_factory=dict)
    runtime_skills: list[Entry] = field(default_factory=list)
    """The entries (by size) of the skills bundled with the runtime and its plugins that the
    session's catalog holds."""
    skills_fit: Fitted | None = None
    """The catalog fitted to the release's skills budget (None: the profile sets none)."""
    package: str = ""
    """The installed package the runtime's skills were read from ("" : measured facts)."""
    docs_folder: str | None = None
    """The local OpenClaw docs folder the runtime names (workspace `docs/`, else the
    install's), or None."""
    docs_stand_in: bool = False
    """`docs_folder` stands for the docs of an install ctxscope did not find."""
    delegation: str = "prefer"
    """`prefer` or `suggest` (`sessions.delegation_mode`)."""
    repo_root: str | None = None
    """The git repository the session runs in (a folder its first run makes one), or None."""
    deferred: frozenset[str] = frozenset()
    """Tools of `tools` that Tool Search defers: listed by name and description in the
    Tooling section's deferred list, their schemas fetched on demand."""
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The environment the session is built in (the request's): the host's time zone,
    OpenClaw's state folder."""


@record(frozen=True)
class RuntimeText:
    """A generator's answer when the section is present but its text is the runtime's own:
    shown as a placeholder of `chars` (measured)."""

    chars: int
    rule: str
    stand_in: str = ""
    """ctxscope's own rendering of what the text carries, shown instead of a bare
    placeholder (its size is still `chars`, the runtime's)."""


@record(frozen=True)
class Absent:
    """A generator's answer when its section's input does not exist: why."""

    reason: str


Generated = tuple[str, str, str] | Absent | RuntimeText
"""(body, source, rule), or `Absent` when the section's input does not exist."""


def placeholder(spec: SectionSpec, profile: Profile, size: int, *, summary: bool = False) -> str:
    name = spec.heading.lstrip("# ") or spec.id.replace("_", " ")
    tail = "below, ctxscope's summary of it" if summary else "not reproduced"
    return (
        f"⟦runtime text: {profile.runtime_name}'s {name} section, "
        f"typically ~{size} chars (≈{estimate_tokens(size)} tokens); {tail}⟧"
    )
