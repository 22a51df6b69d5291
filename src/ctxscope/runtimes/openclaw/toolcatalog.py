"""The tools OpenClaw sends beside the system prompt, under the session's tool policy.

The catalog is facts: each tool's name, description chars and schema chars (the schema as
compact JSON, as OpenClaw's `/context` counts it), which tools a subagent never gets, and which
ones Tool Search leaves visible (the rest are deferred: listed in the prompt, fetched on
demand through `tool_search` / `tool_describe` / `tool_call`). A release's facts are measured
on the requests it sent to a model (`openclaw/facts/<profile>.json`); no runtime prose is kept.
The catalog read from an installed package replaces them (`installed_catalog`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import Any

from ctxscope.core.record import record
from ctxscope.runtimes.openclaw.config import GatewayConfig, as_dict
from ctxscope.runtimes.openclaw.toolpolicy import Matcher, decide
from ctxscope.runtimes.profiles import Profile

FACTS = Path(__file__).parent / "facts"


@record(frozen=True)
class ToolFact:
    """One tool of the catalog, by size."""

    name: str
    description_chars: int
    schema_chars: int
    subagent: bool = True
    """False for a tool a subagent never gets."""
    subagent_description_chars: int | None = None
    """A subagent's shorter description, when the runtime writes one."""
    schema_without: tuple[tuple[str, int], ...] = ()
    """(tool, schema chars) where the schema is smaller when the session lacks that tool
    (2026.9's `exec` without `process`: no continuation parameters)."""

    def description_for(self, subagent: bool) -> int:
        if subagent and self.subagent_description_chars is not None:
            return self.subagent_description_chars
        return self.description_chars


@record(frozen=True)
class SkillFact:
    """A skill the runtime lists beside the workspace's: bundled with the package (`root`
    `package`) or a plugin's, copied into the state folder (`state`). `block_chars` is its
    `<skill>` entry without the folder its location starts with."""

    name: str
    root: str
    block_chars: int
    custodian: bool = False
    """A custodian skill: listed only for the agent that owns the gateway's operations."""
    description_chars: int = 0
    """Its description's chars in the entry (what a compact catalog shortens or leaves out)."""


STAND_IN_PACKAGE = "/usr/local/lib/node_modules/openclaw"
"""Where a global npm install puts the package: the stand-in for skill locations when no
install is found."""


def skill_chars(skill: SkillFact, package: str, state: str) -> int:
    """The skill's entry in `<available_skills>`, with its location's folder (`state`: the
    runtime's state folder, where a plugin's skills lie)."""
    root = (package or STAND_IN_PACKAGE) if skill.root == "package" else state
    return skill.block_chars + len(root)


@record(frozen=True)
class Catalog:
    """A release's tools and the request facts that go with them."""

    release: str
    tools: tuple[ToolFact, ...]
    search_tools: tuple[ToolFact, ...]
    """What Tool Search sends in place of the deferred tools."""
    visible: frozenset[str]
    """The tools Tool Search keeps as full schemas."""
    tool_search_default: bool
    relocating_apis: tuple[str, ...]
    """Transport APIs that move the `Runtime:` line into the first user message."""
    relocated_newlines: int
    """Newlines the prompt loses with the moved line besides its own (those the builder
    writes around it between its relocatable-boundary markers)."""
    time_prefix: bool
    """Every user message starts with `[Wed 2026-11-25 23:59 UTC] `."""
    internal_context_chars: int
    """The second user message (active exec sessions and subagents, both `none`); 0: none."""
    source: str
    """`stand-in: …` for the bundled facts, `installed …` for a catalog read from a package."""
    skills: tuple[SkillFact, ...] = ()
    """The bundled and plugin skills a default install lists (as measured)."""
    attempt_markers: dict[str, int] = field(default_factory=dict)
    """Chars of the runner's attempt markers around the prompt's stable and dynamic parts:
    `open` before the identity line, `boundary` where the builder's cache boundary was (beyond
    the newline it leaves), `close` after the Runtime section (each with its newline)."""

    @property
    def stand_in(self) -> bool:
        return self.source.startswith("stand-in")


@record(frozen=True)
class SessionTools:
    """The tools one session's request carries, and the ones Tool Search defers."""

    sent: tuple[tuple[ToolFact, int], ...]
    """(tool, description chars for this session), in the catalog's order."""
    deferred: tuple[str, ...]
    removed: dict[str, str]
    """Catalog tools the tool policy takes away (tool -> rule)."""
    tool_search: bool
    searchable: bool = False
    """The release has Tool Search (its catalog names the search tools)."""


def _facts(raw: dict[str, Any], key: str) -> tuple[ToolFact, ...]:
    return tuple(
        ToolFact(
            str(t["name"]),
            int(t["description"]),
            int(t["schema"]),
            bool(t.get("subagent", True)),
            int(t["subagent_description"]) if "subagent_description" in t else None,
            tuple((str(k), int(v)) for k, v in as_dict(t.get("schema_without")).items()),
        )
        for t in raw.get(key) or ()
    )


def catalog_from(raw: dict[str, Any], source: str) -> Catalog:
    search = as_dict(raw.get("tool_search"))
    return Catalog(
        release=str(raw.get("release", "")),
        tools=_facts(raw, "tools"),
        search_tools=_facts(search, "tools"),
        visible=frozenset(str(n) for n in search.get("visible") or ()),
        tool_search_default=bool(raw.get("tool_search_default", False)),
        relocating_apis=tuple(str(a) for a in raw.get("relocates_runtime_line") or ()),
        relocated_newlines=int(raw.get("relocated_newlines", 0)),
        time_prefix=bool(raw.get("time_prefix", False)),
        internal_context_chars=int(raw.get("internal_context_chars", 0)),
        source=source,
        attempt_markers={str(k): int(v) for k, v in as_dict(raw.get("attempt_markers")).items()},
        skills=tuple(
            SkillFact(
                str(k["name"]),
                str(k["root"]),
                int(k["block"]),
                bool(k.get("custodian")),
                int(k.get("description", 0)),
            )
            for k in raw.get("skills") or ()
        ),
    )


@cache
def bundled_catalog(profile_name: str) -> Catalog | None:
    """The measured facts of a bundled profile's release (None when none were measured)."""
    path = FACTS / f"{profile_name}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    release = raw.get("release", "")
    return catalog_from(
        raw, f"stand-in: the default catalog measured on OpenClaw {release}'s requests"
    )


def catalog_for(profile: Profile) -> Catalog | None:
    """The catalog of the release `profile` models: its own facts, else those of the bundled
    profile of the same release year.month."""
    found = bundled_catalog(profile.name)
    if found is not None:
        return found
    month = ".".join(profile.version.split(".")[:2])
    return bundled_catalog(f"{profile.family}-{month}") if month and profile.family else None


def tool_search_on(catalog: Catalog, config: GatewayConfig, agent_id: str) -> bool:
    """`tools.toolSearch` of the agent, else of the config (`false` or `{enabled: false}`
    turns it off), else the release's default."""
    for tools in (
        as_dict((config.agent(agent_id) or {}).get("tools")),
        as_dict(config.data.get("tools")),
    ):
        value = tools.get("toolSearch")
        if isinstance(value, bool):
            return value
        if isinstance(value, dict) and isinstance(value.get("enabled"), bool):
            return bool(value["enabled"])
    return catalog.tool_search_default


def session_tools(
    catalog: Catalog,
    profile: Profile,
    config: GatewayConfig,
    agent_id: str,
    *,
    subagent_depth: int | None,
    max_depth: int,
    only: list[str] | None = None,
) -> SessionTools:
    """The catalog under the tool policy of `agent_id` (and a subagent's restrictions), with
    Tool Search on or off as the config says; with `only` (the scenario's tools), none but
    the tools it names."""
    subagent = subagent_depth is not None
    listed = {Matcher(profile.tool_rules).name(t) for t in only} if only else None
    decision = decide(
        [t.name for t in catalog.tools],
        profile,
        config,
        agent_id,
        subagent_depth=subagent_depth,
        max_depth=max_depth,
    )
    removed = dict(decision.removed)
    kept: list[ToolFact] = []
    for tool in catalog.tools:
        if tool.name in removed:
            continue
        if subagent and not tool.subagent:
            removed[tool.name] = "a subagent never gets it"
            continue
        if listed is not None and tool.name not in listed:
            continue  # a what-if of the scenario's, not the tool policy
        kept.append(tool)
    have = {t.name for t in kept}
    kept = [_schema_for(t, have) for t in kept]
    search = tool_search_on(catalog, config, agent_id) and bool(catalog.search_tools)
    deferred: tuple[str, ...] = ()
    if search:
        deferred = tuple(t.name for t in kept if t.name not in catalog.visible)
        kept = [t for t in kept if t.name in catalog.visible]
        if deferred:
            kept = sorted([*kept, *catalog.search_tools], key=lambda t: t.name)
    return SessionTools(
        tuple((t, t.description_for(subagent)) for t in kept),
        deferred,
        removed,
        search,
        bool(catalog.search_tools),
    )


def _schema_for(tool: ToolFact, have: set[str]) -> ToolFact:
    """`tool` with the schema it is sent with beside the session's other tools `have`."""
    for other, chars in tool.schema_without:
        if other not in have:
            return dataclasses.replace(tool, schema_chars=chars)
    return tool
