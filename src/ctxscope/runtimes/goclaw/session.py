"""A GoClaw session from frozen `Inputs`: the user the session key picks, the registered tools,
the model and the media folder from GoClaw's config, then the prompt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.core.model import Diagnostic, Session
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.goclaw.prompt import Request, build_prompt
from ctxscope.runtimes.goclaw.users import Setup, default_key, load_setup, speaker

if TYPE_CHECKING:  # Inputs are made above the runtimes (ctxscope.inputs)
    from ctxscope.inputs import Inputs

DEFAULT_CONTEXT_TOKENS = 200_000


def default_tools(setup: Setup) -> list[str]:
    """The tools GoClaw registers with this config (its defaults where the config is
    silent): the file, exec and web tools, cron, update, browser, memory, memory graph,
    skills, message and transcript, and those a config switches on."""

    def on(path: str, default: bool = True) -> bool:
        value = setup.get(path)
        return default if value is None else value is True

    tools = ["read", "write", "edit", "exec", "jq", "web_fetch", "cron", "goclaw_update"]
    if setup.get("tools.web.braveApiKey"):
        tools.append("web_search")
    if on("tools.browser.enabled"):
        tools.append("browser")
    if on("memory.enabled"):
        tools += ["memory_search", "memory_get"]
    if on("memoryGraph.enabled"):
        tools += ["memory_graph_search", "memory_graph_store", "memory_graph_query"]
    if on("skills.enabled"):
        tools.append("skills")
    if on("auth.enabled", False) and setup.get("auth.script"):
        tools.append("user_auth")
    if on("homeassistant.enabled", False) and setup.get("homeassistant.token"):
        tools.append("hass")
    if on("tools.xaiImagine.enabled", False):
        tools.append("xai_imagine")
    tools.append("message")
    if on("transcript.enabled"):
        tools.append("transcript")
    return tools


def _tools(inputs: Inputs, setup: Setup, diags: list[Diagnostic]) -> list[str]:
    known = next((s.tool_lines for s in inputs.profile.sections if s.kind == "tooling"), {})
    wanted = list(inputs.scenario.tools) or default_tools(setup)
    unknown = [t for t in wanted if t not in known]
    if unknown:
        diags.append(
            Diagnostic(
                "warning",
                f"GoClaw has no tool named {', '.join(unknown)}: left out of the Tooling "
                f"section (its tools: {', '.join(sorted(known))})",
                code="goclaw-tool",
            )
        )
    return list(dict.fromkeys(t for t in wanted if t in known))


def _model(inputs: Inputs, setup: Setup) -> str | None:
    """The scenario's model, else the first of `llm.agent.models` without its provider."""
    if inputs.scenario.model:
        return inputs.scenario.model
    models = setup.get("llm.agent.models")
    if isinstance(models, list) and models and isinstance(models[0], str):
        return models[0].split("/", 1)[-1]
    return None


def media_root(setup: Setup, workspace: Path) -> str:
    """The gateway's media folder: `media.dir` (default `media`) under the workspace unless
    absolute or under `~`."""
    value: Any = setup.get("media.dir")
    folder = value if isinstance(value, str) and value else "media"
    if folder.startswith("~"):
        return os.path.normpath(os.path.expanduser(folder))
    if not os.path.isabs(folder):
        folder = os.path.join(workspace, folder)
    return os.path.normpath(folder)


def goclaw_session(
    inputs: Inputs,
    snapshot: Snapshot,
    session_key: str | None = None,
    *,
    subagent: bool = False,
    task: str | None = None,
) -> Session:
    """The session `session_key` names (default: the scenario's, else the key GoClaw gives
    the scenario's user); `subagent`: the builder's unused subagent mode (a what-if)."""
    sc = inputs.scenario
    setup = load_setup(inputs.workspace, inputs.config.path, snapshot)
    diags = list(setup.diagnostics)
    subagent = subagent or sc.prompt_mode == "minimal"
    key = session_key or sc.session_key or default_key(setup, sc.user)
    who = speaker(setup, key, sc.user)
    diags += who.diagnostics
    user = who.user
    if user is None and not subagent:
        diags.append(
            Diagnostic(
                "error",
                f"no user for session {key!r} (users.json has no owner): GoClaw would not run it",
                setup.users_path,
                code="goclaw-no-owner",
            )
        )
    if sc.timezone:
        diags.append(
            Diagnostic(
                "info",
                "GoClaw's gateway passes no user time zone: the Runtime line names the host's",
                code="goclaw-timezone",
            )
        )
    req = Request(
        key="(what-if subagent)" if subagent else key,
        workspace=inputs.workspace,
        tools=_tools(inputs, setup, diags),
        user=user,
        role=setup.role(user.role) if user else None,
        setup=setup,
        model=_model(inputs, setup),
        channel="cron" if key.startswith("cron:") else sc.channel,  # cron jobs' source
        subagent=subagent,
        context_tokens=sc.context_tokens or DEFAULT_CONTEXT_TOKENS,
        media_root=None if subagent else media_root(setup, inputs.workspace),
        time_in_prompt=setup.get("promptCache.timeInSystemPrompt") is True,
        skills_enabled=setup.get("skills.enabled") is not False,
        kind_rule=who.rule,
        diagnostics=diags,
        env=inputs.env,
    )
    session = build_prompt(req, inputs.profile, snapshot, inputs.tokenizer)
    if subagent and (task if task is not None else sc.task):
        session.task_message = task if task is not None else sc.task
        count = inputs.tokenizer.count(session.task_message)
        session.tokens.task = count
        session.tokens.total += count
    session.profile_choice = f"{inputs.profile.runtime_name} {inputs.profile.version}, " + (
        "roelfdiedericks/goclaw"
    )
    if not inputs.workspace.is_dir():
        session.diagnostics.insert(
            0,
            Diagnostic(
                "error",
                "workspace folder not found",
                str(inputs.workspace),
                code="workspace-missing",
            ),
        )
    return session
