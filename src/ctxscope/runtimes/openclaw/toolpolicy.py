"""Which of the scenario's tools a session really gets, by the config's tool policy.

In the runtime's order: the tools of a plugin the config does not load (with
`plugins.slots.memory: "none"` no memory plugin, so none of its tools), the tool profile
(`tools.profile`, an agent's own first, widened by `alsoAllow`), `tools.allow` /
`tools.deny`, the agent's `tools.allow` / `tools.deny`, then for a subagent the tools it never
gets (more for a leaf at the deepest allowed depth) and `tools.subagents.tools`. A deny always
wins; an allowlist keeps only what it names. Names are case-insensitive, `group:<name>` stands
for its tools and `*` is a wildcard.
"""

from __future__ import annotations

import fnmatch
from dataclasses import field
from typing import Any

from ctxscope.core.record import record
from ctxscope.runtimes.openclaw.config import GatewayConfig, as_dict, string_list
from ctxscope.runtimes.profiles import Profile


@record
class ToolDecision:
    """The tools a session keeps, and the rule that took each other one away."""

    kept: list[str]
    removed: dict[str, str] = field(default_factory=dict)
    """Tool -> the rule that took it away."""


@record(frozen=True)
class _Stage:
    """One allow/deny step of the tool policy pipeline."""

    rule: str
    allow: list[str] | None
    deny: list[str]
    denied: str = ""
    """What to say when this stage's deny list takes a tool (default: `denied by <rule>`)."""


class Matcher:
    def __init__(self, rules: dict[str, Any]) -> None:
        self.aliases = {str(k): str(v) for k, v in as_dict(rules.get("aliases")).items()}
        self.groups = {
            str(k): [str(t) for t in v]
            for k, v in as_dict(rules.get("groups")).items()
            if isinstance(v, list)
        }
        self._expanded: dict[tuple[str, ...], list[str]] = {}

    def name(self, tool: str) -> str:
        low = tool.strip().lower()
        return self.aliases.get(low, low)

    def expand(self, names: list[str]) -> list[str]:
        out: list[str] = []
        for raw in names:
            low = self.name(raw)
            out += [self.name(t) for t in self.groups.get(low, [low])]
        return list(dict.fromkeys(out))

    def matches(self, tool: str, patterns: list[str]) -> bool:
        key = tuple(patterns)
        expanded = self._expanded.get(key)
        if expanded is None:  # each list of patterns is expanded once, not once a tool
            expanded = self._expanded[key] = self.expand(patterns)
        return any(fnmatch.fnmatchcase(tool, p) for p in expanded)


def _with_also(allow: list[str] | None, also: list[str] | None) -> list[str] | None:
    if not also:
        return allow
    return list(dict.fromkeys([*(allow or ["*"]), *also]))


def stages(
    profile: Profile,
    config: GatewayConfig,
    agent_id: str,
    subagent_depth: int | None,
    max_depth: int,
) -> list[_Stage]:
    rules = profile.tool_rules
    agent_tools = as_dict((config.agent(agent_id) or {}).get("tools"))
    global_tools = as_dict(config.data.get("tools"))
    out: list[_Stage] = []
    slot = as_dict(as_dict(config.data.get("plugins")).get("slots")).get("memory")
    if isinstance(slot, str) and slot.strip().lower() == "none":
        plugin_tools = string_list(rules.get("memory_plugin_tools")) or []
        out.append(
            _Stage(
                "plugins.slots.memory",
                None,
                plugin_tools,
                'plugins.slots.memory is "none": no memory plugin is loaded',
            )
        )
    name = agent_tools.get("profile", global_tools.get("profile"))
    where = (
        f"agents.list[{agent_id}].tools.profile" if "profile" in agent_tools else "tools.profile"
    )
    profiles = as_dict(rules.get("profiles"))
    if isinstance(name, str) and name in profiles:
        also = string_list(agent_tools.get("alsoAllow")) or string_list(
            global_tools.get("alsoAllow")
        )
        allow = string_list(profiles[name]) or None
        out.append(_Stage(f"{where} {name}", _with_also(allow, also) if allow else None, []))
    for label, tools in (("tools", global_tools), (f"agents.list[{agent_id}].tools", agent_tools)):
        # `alsoAllow` widens an allowlist; without one, everything is allowed anyway.
        allow = string_list(tools.get("allow"))
        if allow is not None:
            allow = _with_also(allow, string_list(tools.get("alsoAllow")))
        deny = string_list(tools.get("deny")) or []
        if allow is not None or deny:
            out.append(_Stage(label, allow, deny))
    if subagent_depth is not None:
        leaf = subagent_depth >= max(1, max_depth)
        never = string_list(rules.get("subagent_deny")) or []
        out.append(_Stage("subagent", None, never, "a subagent never gets it"))
        if leaf:
            out.append(
                _Stage(
                    "leaf subagent",
                    None,
                    string_list(rules.get("leaf_subagent_deny")) or [],
                    f"a leaf subagent (depth {subagent_depth} of {max_depth}) cannot manage "
                    "or spawn sessions",
                )
            )
        configured = as_dict(as_dict(global_tools.get("subagents")).get("tools"))
        allow = _with_also(
            string_list(configured.get("allow")), string_list(configured.get("alsoAllow"))
        )
        deny = string_list(configured.get("deny")) or []
        if allow is not None or deny:
            out.append(_Stage("tools.subagents.tools", allow, deny))
    return out


def decide(
    tools: list[str],
    profile: Profile,
    config: GatewayConfig,
    agent_id: str,
    *,
    subagent_depth: int | None = None,
    max_depth: int = 1,
) -> ToolDecision:
    """`tools` filtered stage by stage; each removed tool with the first rule that took it."""
    matcher = Matcher(profile.tool_rules)
    decision = ToolDecision([])
    all_stages = stages(profile, config, agent_id, subagent_depth, max_depth)
    for raw in dict.fromkeys(tools):
        why = _why_removed(matcher.name(raw), all_stages, matcher)
        if why is None:
            decision.kept.append(raw)
        else:
            decision.removed[raw] = why
    return decision


def _why_removed(tool: str, all_stages: list[_Stage], matcher: Matcher) -> str | None:
    for stage in all_stages:
        if stage.deny and matcher.matches(tool, stage.deny):
            return stage.denied or f"denied by {stage.rule}"
        # The runtime lets apply_patch through wherever exec is allowed.
        via_exec = (
            tool == "apply_patch"
            and bool(stage.allow)
            and matcher.matches("exec", stage.allow or [])
        )
        if stage.allow is not None and not matcher.matches(tool, stage.allow) and not via_exec:
            return f"not in the allowlist of {stage.rule}"
    return None
