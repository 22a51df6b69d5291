"""Simulate OpenClaw's `sessions_spawn`: what a subagent would be told, and whether it may start.

Order: policy checks on the caller (depth, active children); context scripts (which may
propose another target); the override applied; the cross-agent allowlist on the final target;
model and thinking resolved from the final target's config; the child session key; then both
prompts. Every check is computed and shown even when an earlier one forbids the spawn, and
the child prompt is still built (marked as what the child *would* get), because an operator
diagnosing a spawn wants the whole picture.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ctxscope.core.ids import is_valid_agent_id, normalize_agent_id
from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Inputs
from ctxscope.runtimes.openclaw.config import int_setting
from ctxscope.runtimes.openclaw.sessionkeys import child_session_key
from ctxscope.runtimes.openclaw.subagent import SubagentInfo
from ctxscope.runtimes.registry import runtime_of, session_for
from ctxscope.scripts import ScriptCache, ScriptsOutcome, SpawnVariables


@record
class PolicyCheck:
    """One check `sessions_spawn` makes before it starts a child."""

    name: str
    """`depth`, `children`, `agent_id` or `allow_agents`."""
    ok: bool
    detail: str
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "error": self.error}


@record
class Policy:
    """Every spawn check, in the order the runtime makes them."""

    checks: list[PolicyCheck]

    @property
    def allowed(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def error(self) -> str | None:
        """The error the runtime returns: the first failing check's."""
        return next((c.error for c in self.checks if not c.ok), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "error": self.error,
            "checks": [c.to_dict() for c in self.checks],
        }


@record
class Resolved:
    """A value picked by a resolution ladder, and the rung that supplied it."""

    value: str | None
    source: str
    rungs: list[tuple[str, str | None]] = field(default_factory=list)
    """Every rung in order with the value it held (None = unset)."""

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source}


@record
class SpawnReport:
    """A simulated `sessions_spawn`: target, child key, policy, context scripts, model and
    thinking, and what the child receives."""

    requested_target: str
    target_agent_id: str
    child_session_key: str
    policy: Policy
    scripts: ScriptsOutcome
    trusted: bool
    model: Resolved
    thinking: Resolved
    requester: Session
    child: Session
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def scripts_pending(self) -> bool:
        """True when some context script has not run yet (a build with cached results only)."""
        return any(r.status == "pending" for r in self.scripts.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "requester": self.requester.to_dict(),
            "child": self.child.to_dict(),
            "policy": self.policy.to_dict(),
            "scripts": self.scripts.to_dicts(),
            "override": self.scripts.override_dict(),
            "target_agent_id": self.target_agent_id,
            "model": self.model.to_dict(),
            "thinking": self.thinking.to_dict(),
        }


def _sub(obj: dict[str, Any] | None) -> dict[str, Any]:
    value = (obj or {}).get("subagents")
    return value if isinstance(value, dict) else {}


def _limit_check(
    name: str, what: str, value: int, limit: str, maximum: int, error: str
) -> PolicyCheck:
    """`value < maximum` passes; otherwise the runtime's `error`."""
    if value < maximum:
        return PolicyCheck(name, True, f"{what} {value} < {limit} {maximum}")
    return PolicyCheck(name, False, f"{what} {value} ≥ {limit} {maximum}", error)


def caller_checks(inputs: Inputs, depth: int, active: int) -> list[PolicyCheck]:
    rules = inputs.profile.spawn
    max_depth = inputs.max_spawn_depth()
    max_children = int_setting(
        inputs.config, "subagents.maxChildrenPerAgent", int(rules.get("max_children", 5))
    )
    return [
        _limit_check(
            "depth",
            "caller depth",
            depth,
            "maxSpawnDepth",
            max_depth,
            str(rules.get("depth_error", DEPTH_ERROR)).format(depth=depth, max=max_depth),
        ),
        _limit_check(
            "children",
            "active children",
            active,
            "maxChildrenPerAgent",
            max_children,
            str(rules.get("children_error", CHILDREN_ERROR)).format(
                active=active, max=max_children
            ),
        ),
    ]


DEPTH_ERROR = "sessions_spawn is not allowed at this depth (current depth: {depth}, max: {max})"
CHILDREN_ERROR = "sessions_spawn has reached max active children for this session ({active}/{max})"
NOT_ALLOWED_ERROR = "agentId is not allowed for sessions_spawn (allowed: {allowed})"


def allow_agents_check(
    inputs: Inputs, requester: str, target: str, *, explicit: bool = True
) -> PolicyCheck:
    """Whether the requester may spawn `target`, by the version's allowAgents rule."""
    rules = inputs.profile.spawn
    if rules.get("allow_agents") == "registry":
        return _registry_rule(inputs, requester, target, explicit)
    return _requester_list_rule(inputs, requester, target)


def _allow_list(inputs: Inputs, requester: str) -> tuple[Any, str]:
    config = inputs.config
    own = _sub(config.agent(requester)).get("allowAgents")
    if isinstance(own, list):
        return own, f"agents.list[{requester}].subagents.allowAgents"
    dflt = _sub(config.defaults).get("allowAgents")
    if isinstance(dflt, list) and inputs.profile.spawn.get("allow_agents_from_defaults"):
        return dflt, "agents.defaults.subagents.allowAgents"
    return None, NO_LIST


NO_LIST = "no allowAgents for the requester"


def unknown_agent(inputs: Inputs, agent_id: str) -> str | None:
    """`ghost is unknown (configured agents: main, coder)` when `agent_id` is not in
    `agents.list`; None when it is (or the list is empty and the id is the implicit `main`)."""
    configured = inputs.config.agent_ids()
    if agent_id in configured:
        return None
    return f"{agent_id} is unknown (configured agents: {', '.join(configured)})"


def _no_list(inputs: Inputs, requester: str, where: str) -> str:
    """Where the requester's allowlist comes from, or why it has none (an unknown requester)."""
    if where != NO_LIST:
        return f"in {where}"
    unknown = unknown_agent(inputs, requester)
    why = f"; {unknown}" if unknown else ""
    return f"by {requester}, which has no subagents.allowAgents{why}"


def _not_allowed(inputs: Inputs, allowed: list[str]) -> str:
    template = str(inputs.profile.spawn.get("not_allowed_error", NOT_ALLOWED_ERROR))
    return template.format(allowed=", ".join(allowed) if allowed else "none")


def _requester_list_rule(inputs: Inputs, requester: str, target: str) -> PolicyCheck:
    """2026.2: only another agent is checked, against the requester's own list ("*": any);
    the error lists the ids in config order."""
    if target == requester:
        return PolicyCheck("allow_agents", True, "same agent as the requester: no allowlist")
    allow, where = _allow_list(inputs, requester)
    names = [str(a).strip() for a in allow] if isinstance(allow, list) else []
    if "*" in names:
        return PolicyCheck("allow_agents", True, f'{where} allows any agent ("*")')
    allowed = list(dict.fromkeys(normalize_agent_id(n) for n in names if n))
    unknown = unknown_agent(inputs, target)
    note = f"; {unknown}: it would get agents.defaults" if unknown else ""
    if target in allowed:
        return PolicyCheck("allow_agents", True, f"{target} is listed in {where}{note}")
    return PolicyCheck(
        "allow_agents",
        False,
        f"{target} is not listed {_no_list(inputs, requester, where)}{note}",
        _not_allowed(inputs, allowed),
    )


def _registry_rule(inputs: Inputs, requester: str, target: str, explicit: bool) -> PolicyCheck:
    """2026.9: no list → only the requester itself; "*" → every configured agent and the
    requester; a list → its ids that are configured agents. A spawn that names no agentId
    always runs as the requester."""
    if not explicit and target == requester:
        return PolicyCheck("allow_agents", True, "no agentId given: the requester spawns itself")
    allow, where = _allow_list(inputs, requester)
    configured = set(inputs.config.agent_ids())
    if not isinstance(allow, list):
        allowed, rule = [requester], f"{where}: only the requester itself"
        named: set[str] = set()
        any_agent = False
    else:
        names = [str(a).strip() for a in allow]
        named = {normalize_agent_id(n) for n in names if n and n != "*"}
        any_agent = "*" in names
        if any_agent:
            allowed, rule = sorted(configured | {requester}), f'{where} is "*"'
        else:
            allowed, rule = sorted(named & configured), f"{where}, configured agents only"
    if target in allowed:
        return PolicyCheck("allow_agents", True, f"{target} is allowed ({rule})")
    if any_agent or target in named:
        template = str(inputs.profile.spawn.get("not_configured_error", ""))
        return PolicyCheck(
            "allow_agents",
            False,
            f"{where} allows {target}, but it is not a configured agent",
            template.format(id=target, allowed=", ".join(allowed) or "none"),
        )
    unknown = unknown_agent(inputs, target)
    note = f"; {unknown}" if unknown else ""
    if where == NO_LIST and unknown_agent(inputs, requester):
        note = f"; {unknown_agent(inputs, requester)}{note}"
    return PolicyCheck(
        "allow_agents",
        False,
        f"{target} is not allowed ({rule}){note}",
        _not_allowed(inputs, allowed),
    )


def _model_value(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, dict) and isinstance(value.get("primary"), str):
        return str(value["primary"])
    return None


def ladder(rungs: list[tuple[str, str | None]]) -> Resolved:
    for source, value in rungs:
        if value:
            return Resolved(value, source, rungs)
    return Resolved(None, "none: the runtime default applies", rungs)


def resolve_model(
    inputs: Inputs, target: str, spawn_model: str | None, requester: Session
) -> Resolved:
    """The child's model, first rung that is set (the runtime's order for the version)."""
    config = inputs.config
    entry = config.agent(target)
    defaults = config.defaults
    rungs = [
        ("spawn model parameter", _model_value(spawn_model)),
        (f"agents.list[{target}].subagents.model", _model_value(_sub(entry).get("model"))),
        ("agents.defaults.subagents.model", _model_value(_sub(defaults).get("model"))),
        (f"agents.list[{target}].model", _model_value((entry or {}).get("model"))),
    ]
    if inputs.profile.spawn.get("model_from_requester") and target == requester.agent_id:
        rungs.append(("the requester's current model (same agent)", requester.model))
    rungs.append(("agents.defaults.model.primary", _model_value(defaults.get("model"))))
    return ladder(rungs)


def resolve_thinking(
    inputs: Inputs, requester: str, target: str, spawn_thinking: str | None
) -> Resolved:
    config = inputs.config

    def text(value: Any) -> str | None:
        return value.strip() if isinstance(value, str) and value.strip() else None

    rungs = [("spawn thinking parameter", text(spawn_thinking))]
    if inputs.profile.spawn.get("thinking_from_requester"):
        own = text(_sub(config.agent(requester)).get("thinking"))
        rungs.append((f"agents.list[{requester}].subagents.thinking (requester)", own))
    rungs += [
        (
            f"agents.list[{target}].subagents.thinking",
            text(_sub(config.agent(target)).get("thinking")),
        ),
        ("agents.defaults.subagents.thinking", text(_sub(config.defaults).get("thinking"))),
    ]
    return ladder(rungs)


def spawn_variables(inputs: Inputs) -> SpawnVariables:
    sc = inputs.scenario
    return SpawnVariables(
        targetAgentId=normalize_agent_id(sc.target_agent),
        task=sc.task,
        label=sc.label,
        requesterAgentId=normalize_agent_id(sc.requester),
        requesterSessionKey=sc.requester_session_key,
        cleanup=sc.cleanup,
        cfg=inputs.config.data,
    )


def context_scripts(inputs: Inputs, cache: ScriptCache, *, execute: bool) -> ScriptsOutcome:
    """The requester's context scripts for the scenario's spawn. With `execute=False` nothing
    runs: results come from `cache` and the rest are `pending` (what a build uses); with
    `execute=True` trusted scripts run and fill `cache` (the edge that has side effects)."""
    from ctxscope.scripts.engine import run_context_scripts  # not for a plain `render`

    config = inputs.config
    return run_context_scripts(
        config.data,
        config.folder or inputs.workspace,
        normalize_agent_id(inputs.scenario.requester),
        spawn_variables(inputs),
        trusted=inputs.trusted,
        configured_agents=config.agent_ids(),
        cache=cache,
        config_path=config.path,
        execute=execute,
    )


def simulate_spawn(
    inputs: Inputs, snapshot: Snapshot, scripts: ScriptCache, requester: Session | None = None
) -> SpawnReport:
    """`sessions_spawn` for the scenario, with the context scripts' cached results (those
    not run yet are `pending`)."""
    if not runtime_of(inputs.profile).spawns:
        return no_spawn(inputs, snapshot, requester)
    sc = inputs.scenario
    config = inputs.config
    requester_id = normalize_agent_id(sc.requester)
    requested = normalize_agent_id(sc.target_agent)
    requester = requester or session_for(inputs, snapshot)
    checks = caller_checks(inputs, sc.depth, sc.active_children)
    outcome = context_scripts(inputs, scripts, execute=False)
    target = normalize_agent_id(outcome.target_override or requested)
    if not is_valid_agent_id(target):
        checks.append(
            PolicyCheck(
                "agent_id",
                False,
                f"{target!r} is not a valid agent id",
                f'invalid agentId "{target}"',
            )
        )
    checks.append(allow_agents_check(inputs, requester_id, target, explicit=sc.target is not None))
    model = resolve_model(inputs, target, sc.model, requester)
    thinking = resolve_thinking(inputs, requester_id, target, sc.thinking)
    key = child_session_key(inputs.profile, target, sc.child_id)
    info = SubagentInfo(
        task=outcome.apply_to_task(sc.task),
        label=sc.label,
        requester_session_key=sc.spawner_session_key,
        child_session_key=key,
        depth=sc.depth + 1,
        max_depth=inputs.max_spawn_depth(),
        requester_channel=sc.channel,
    )
    child = session_for(
        inputs, snapshot, key, subagent=info, model=model.value or None, thinking=thinking.value
    )
    policy = Policy(checks)
    forbidden = (
        []
        if policy.allowed
        else [
            Diagnostic(
                "warning",
                f"spawn forbidden: {policy.error}; the child prompt shows what it would have "
                "received",
                config.path,
                code="spawn-forbidden",
            )
        ]
    )
    unknown = [
        Diagnostic(
            "warning",
            f"{role} {text}: it gets agents.defaults (workspace {inputs.workspace_for(agent)})",
            config.path,
            code="unknown-agent",
        )
        for role, agent in (("requester", requester_id), ("target", target))
        if (text := unknown_agent(inputs, agent)) is not None
    ]
    diags = [*inputs.diagnostics, *unknown, *forbidden, *outcome.diagnostics]
    return SpawnReport(
        requested,
        target,
        key,
        policy,
        outcome,
        inputs.trusted,
        model,
        thinking,
        requester,
        child,
        diags,
    )


def no_spawn(inputs: Inputs, snapshot: Snapshot, requester: Session | None = None) -> SpawnReport:
    """A runtime that does not spawn: the spawn is refused, and the child is a what-if view of
    the prompt builder's subagent mode (which nothing in the runtime calls)."""
    sc = inputs.scenario
    refused = f"{inputs.profile.runtime_name} does not spawn subagents"
    requester = requester or session_for(inputs, snapshot)
    what_if = SubagentInfo(
        task=sc.task,
        label=sc.label,
        requester_session_key=requester.session_key,
        child_session_key="(what-if subagent)",
        depth=1,
        max_depth=0,
    )
    child = session_for(inputs, snapshot, "(what-if subagent)", subagent=what_if)
    none = Resolved(None, f"not applicable: {refused}")
    note = Diagnostic(
        "info",
        f"{refused} (no sessions_spawn tool, no subagent runner); the child shown is a what-if "
        "view of the prompt builder's unused subagent mode",
        code="spawn-unsupported",
    )
    return SpawnReport(
        normalize_agent_id(sc.target_agent),
        normalize_agent_id(sc.target_agent),
        "(what-if subagent)",
        Policy(
            [PolicyCheck("spawn", False, "no sessions_spawn tool, no subagent runner", refused)]
        ),
        ScriptsOutcome(),
        inputs.trusted,
        none,
        none,
        requester,
        child,
        [*inputs.diagnostics, note],
    )
