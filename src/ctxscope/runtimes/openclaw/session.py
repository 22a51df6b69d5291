"""Build one OpenClaw session (system prompt, files, tools, tokens) from frozen `Inputs`
(`runtimes.session_for` chooses it for an OpenClaw profile)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.installedcatalog import catalog_for_install
from ctxscope.runtimes.openclaw.prompt import SessionRequest, build_session
from ctxscope.runtimes.openclaw.request import plan_for, with_request
from ctxscope.runtimes.openclaw.sessionkeys import SessionInfo
from ctxscope.runtimes.openclaw.subagent import SubagentInfo
from ctxscope.runtimes.openclaw.toolcatalog import Catalog, SessionTools, session_tools
from ctxscope.runtimes.openclaw.toolpolicy import Matcher, decide

if TYPE_CHECKING:  # Inputs are made above the runtimes (ctxscope.inputs)
    from ctxscope.inputs import Inputs


def openclaw_session(
    inputs: Inputs,
    snapshot: Snapshot,
    session_key: str | None = None,
    *,
    subagent: SubagentInfo | None = None,
    model: str | None = None,
    thinking: str | None = None,
    task: str | None = None,
) -> Session:
    """The session named by `session_key` (default: the requester's).

    A subagent key with no `subagent` info gets one from the scenario (task, label,
    requester session, depth + 1 of the configured max); `task` replaces the scenario's
    task (the spawn's, with the context scripts' output around it)."""
    sc = inputs.scenario
    info = inputs.classify(session_key or sc.requester_session_key)
    if subagent is None and info.kind == "subagent":
        subagent = _scenario_subagent(inputs, info, task)
    agent = inputs.config.agent(info.agent_id) or {}
    depth = subagent.depth if subagent and info.kind == "subagent" else None
    catalog = catalog_for_install(inputs.profile, inputs.runtime.package)
    sent = _sent_tools(inputs, info, depth, catalog)
    tools = _prompt_tools(inputs, info, depth, catalog, sent)
    req = SessionRequest(
        info=info,
        workspace=inputs.workspace_for(info.agent_id),
        tools=tools.names,
        removed_tools=tools.removed,
        deferred=tools.deferred,
        model=model or _main_model(inputs, agent),
        thinking=thinking or sc.thinking or _thinking_default(inputs, agent),
        channel=sc.channel,
        timezone=sc.timezone,
        subagent=subagent,
        context_tokens=sc.context_tokens,
        setup_completed=sc.setup_completed,
        package=inputs.runtime.package,
        env=inputs.env,
    )
    session = build_session(req, inputs.profile, inputs.config, snapshot, inputs.tokenizer)
    plan = plan_for(
        session,
        catalog,
        sent,
        inputs.config,
        channel=sc.channel,
        timezone=sc.timezone,
        env=inputs.env,
        separator=inputs.profile.separator,
    )
    session = with_request(session, plan, inputs.tokenizer)
    _note_runtime(session, inputs, info.agent_id, req.workspace)
    return session


def _scenario_subagent(inputs: Inputs, info: SessionInfo, task: str | None) -> SubagentInfo:
    """The subagent the scenario spawns as the session `info` (`task`: the spawn's, when
    given)."""
    sc = inputs.scenario
    return SubagentInfo(
        task=sc.task if task is None else task,
        label=sc.label,
        requester_session_key=sc.spawner_session_key,
        child_session_key=info.key,
        depth=sc.depth + 1,
        max_depth=inputs.max_spawn_depth(),
        requester_channel=sc.channel,
    )


def _sent_tools(
    inputs: Inputs, info: SessionInfo, depth: int | None, catalog: Catalog | None
) -> SessionTools | None:
    """The tools the runtime sends with the session (none without the release's catalog):
    the catalog under the tool policy, only the scenario's tools when it lists some."""
    if catalog is None:
        return None
    return session_tools(
        catalog,
        inputs.profile,
        inputs.config,
        info.agent_id,
        subagent_depth=depth,
        max_depth=inputs.max_spawn_depth(),
        only=list(inputs.scenario.tools) or None,
    )


@record(frozen=True)
class _PromptTools:
    """The tools a session's prompt names."""

    names: list[str]
    removed: dict[str, str]
    """Tools the tool policy takes away (tool -> rule)."""
    deferred: frozenset[str]
    """Tools Tool Search defers."""


def _prompt_tools(
    inputs: Inputs,
    info: SessionInfo,
    depth: int | None,
    catalog: Catalog | None,
    sent: SessionTools | None,
) -> _PromptTools:
    """The scenario's tools under the tool policy or, with the release's tool catalog, the
    tools the runtime sends."""
    sc = inputs.scenario
    tools = decide(
        list(sc.tools),
        inputs.profile,
        inputs.config,
        info.agent_id,
        subagent_depth=depth,
        max_depth=inputs.max_spawn_depth(),
    )
    if sent is None:
        return _PromptTools(tools.kept, tools.removed, frozenset[str]())
    # The runtime's prompt follows the tools it sends: the catalog under the tool policy
    # (and the scenario's tools, when it lists some), the ones Tool Search defers
    # included; a listed tool the catalog lacks is still listed (no schema is sent).
    catalogued = {t.name for t in catalog.tools} if catalog is not None else set()
    name = Matcher(inputs.profile.tool_rules).name
    names = [t.name for t, _ in sent.sent] + list(sent.deferred)
    names += [t for t in tools.kept if name(t) not in catalogued]
    removed = tools.removed if sc.tools else sent.removed
    return _PromptTools(names, removed, frozenset(sent.deferred))


def _note_runtime(session: Session, inputs: Inputs, agent_id: str, workspace: Path) -> None:
    """Mark `session` with the runtime release and how its profile was chosen, and put first
    the profile's note and a missing workspace folder."""
    session.runtime_version = inputs.runtime.version
    session.profile_choice = inputs.runtime.how
    if inputs.profile.note:
        session.diagnostics.insert(
            0, Diagnostic("info", inputs.profile.note, inputs.profile.path, code="profile-note")
        )
    if not Path(workspace).is_dir():
        session.diagnostics.insert(0, _no_folder(inputs, agent_id, str(workspace)))


def _no_folder(inputs: Inputs, agent_id: str, folder: str) -> Diagnostic:
    """An agent's workspace folder that is not there: OpenClaw makes it on the agent's first
    run (`first_run` rules: writing its templates there unless skipBootstrap); any other
    runtime has no folder to read."""
    if not inputs.profile.first_run or os.path.lexists(folder):
        return Diagnostic(
            "error",
            f"workspace folder of agent {agent_id} not found",
            folder,
            code="workspace-missing",
        )
    skip = inputs.config.defaults.get("skipBootstrap") is True
    then = (
        "it is left empty (agents.defaults.skipBootstrap): every file is missing"
        if skip
        else "its template files are written there before the prompt is built"
    )
    return Diagnostic(
        "info",
        f"workspace folder of agent {agent_id} does not exist yet: "
        f"{inputs.profile.runtime_name} makes it on the agent's first run and {then}",
        folder,
        code="workspace-missing",
    )


def _thinking_default(inputs: Inputs, agent: dict[str, Any]) -> str | None:
    """`thinkingDefault` of the agent, else of `agents.defaults`."""
    for value in (agent.get("thinkingDefault"), inputs.config.defaults.get("thinkingDefault")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _main_model(inputs: Inputs, agent: dict[str, Any]) -> str | None:
    if inputs.scenario.model:
        return inputs.scenario.model
    for value in (agent.get("model"), inputs.config.defaults.get("model")):
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict) and isinstance(value.get("primary"), str):
            return str(value["primary"])
    return None
