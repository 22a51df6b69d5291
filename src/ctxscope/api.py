"""The one entry point for every face (CLI, TUI, Python): `Inspector` and `inspect()`.

An `Inspector` holds what is worth keeping between builds (the file snapshot cache, the
context-script cache) and answers for one workspace:

    >>> import ctxscope
    >>> report = ctxscope.inspect("sample_workspace")
    >>> report.requester.files[1].status
    'injected'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.config import GatewayConfig, discover_config, int_setting, load_config
from ctxscope.model import Diagnostic, Session
from ctxscope.openclaw.profiles import Profile, load_profile
from ctxscope.openclaw.prompt import SessionRequest, build_session
from ctxscope.openclaw.sessions import SessionInfo, classify
from ctxscope.openclaw.subagent import SubagentInfo
from ctxscope.rye import ThreadReport, build_thread
from ctxscope.scenario import Scenario, load_scenario
from ctxscope.scripts import ScriptCache, ScriptsOutcome
from ctxscope.snapshot import Snapshot
from ctxscope.spawn import SpawnReport, context_scripts, simulate_spawn
from ctxscope.tokens import Tokenizer, get_tokenizer


class WorkspaceError(Exception):
    """The workspace folder itself is unusable (missing, not a folder)."""


@dataclass
class Report:
    """Everything one build shows: the requester, the child, the spawn, the Rye thread."""

    workspace: str
    config_path: str | None
    scenario: Scenario
    requester: Session
    child: Session | None = None
    spawn: SpawnReport | None = None
    """The spawn simulation (policy, context scripts, override, model)."""
    thread: ThreadReport | None = None
    """The Rye thread when the scenario names a directive."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def all_diagnostics(self) -> list[Diagnostic]:
        out = list(self.diagnostics) + self.requester.diagnostics
        if self.child:
            out += self.child.diagnostics
        if self.thread is not None:
            out += list(self.thread.diagnostics)
        return list(dict.fromkeys(out))  # each once, in order


def _resolve_workspace(workspace: str | os.PathLike[str]) -> Path:
    path = Path(workspace).expanduser().absolute()
    if not path.exists():
        raise WorkspaceError(f"{path}: workspace folder not found")
    if not path.is_dir():
        raise WorkspaceError(f"{path}: not a folder")
    return Path(os.path.normpath(path))


class Inspector:
    """Builds sessions, spawns and threads for one workspace, caching between builds.

    `scenario` maps scenario fields to values that override `WORKSPACE/ctxscope.yaml`
    (None values are ignored).
    Raises `WorkspaceError`, `ConfigError` or `ProfileError` for unusable input.
    """

    def __init__(self, workspace: str | os.PathLike[str] = ".", *,
                 config: str | os.PathLike[str] | None = None,
                 scenario: dict[str, Any] | None = None,
                 tokenizer: str | None = None,
                 user_space: str | os.PathLike[str] | None = None,
                 trusted: bool = False) -> None:
        self.workspace = _resolve_workspace(workspace)
        self.explicit_config = config
        self.overrides = scenario
        self.tokenizer: Tokenizer = get_tokenizer(tokenizer)
        self.user_space = Path(user_space) if user_space else env_user_space()
        self.trusted = trusted
        self.snapshot = Snapshot()
        self.script_cache = ScriptCache()
        self.diagnostics: list[Diagnostic] = []
        self.config = GatewayConfig()
        self.scenario = Scenario()
        self.profile: Profile = load_profile("openclaw")
        self.reload()

    # -- inputs -------------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the config, the scenario file and the profile. Raises on unusable input
        (the caller keeps its last good build)."""
        if not self.workspace.is_dir():
            raise WorkspaceError(f"{self.workspace}: workspace folder not found")
        path = discover_config(self.workspace, self.explicit_config)
        config = self.config
        if not self._config_unchanged(path):
            config = load_config(path, self.snapshot.read)
        scenario, diags = load_scenario(self.workspace)
        if self.overrides:
            scenario = scenario.replace(**self.overrides)
        self.profile = load_profile(scenario.profile)
        self.config, self.scenario = config, scenario
        self.diagnostics = list(config.diagnostics) + diags

    def _config_unchanged(self, path: Path | None) -> bool:
        """True when `path` is the config already loaded and its text is the same (parsing
        JSON5 is slow, so an edit elsewhere in the workspace must not re-parse it)."""
        if path is None or self.config.path != str(Path(path).absolute()):
            return False
        fr = self.snapshot.read(path)
        return fr.exists and fr.text == self.config.text

    # -- builds -------------------------------------------------------------------------
    def workspace_for(self, agent_id: str) -> Path:
        return self.config.agent_workspace(agent_id, self.workspace)[0]

    def max_spawn_depth(self) -> int:
        return int_setting(self.config, "subagents.maxSpawnDepth", 1)

    def classify(self, session_key: str) -> SessionInfo:
        return classify(session_key, self.profile, self.config.default_agent_id(),
                        self.scenario.prompt_mode)

    def session(self, session_key: str | None = None, *, subagent: SubagentInfo | None = None,
                model: str | None = None, thinking: str | None = None) -> Session:
        """Build the session named by `session_key` (default: the requester's).

        A subagent key with no `subagent` info gets one from the scenario (task, label,
        requester session, depth + 1 of the configured max)."""
        sc = self.scenario
        info = self.classify(session_key or sc.requester_session_key)
        if subagent is None and info.kind == "subagent":
            subagent = SubagentInfo(
                task=sc.task, label=sc.label, requester_session_key=sc.requester_session_key,
                child_session_key=info.key, depth=sc.depth + 1,
                max_depth=self.max_spawn_depth(), requester_channel=sc.channel)
        agent = self.config.agent(info.agent_id) or {}
        req = SessionRequest(
            info=info, workspace=self.workspace_for(info.agent_id), tools=list(sc.tools),
            model=model or self._main_model(agent), thinking=thinking or sc.thinking,
            channel=sc.channel, timezone=sc.timezone, subagent=subagent,
            context_tokens=sc.context_tokens)
        session = build_session(req, self.profile, self.config, self.snapshot, self.tokenizer)
        if not Path(req.workspace).is_dir():
            session.diagnostics.insert(0, Diagnostic(
                "error", f"workspace folder of agent {info.agent_id} not found",
                str(req.workspace), code="workspace-missing"))
        return session

    def _main_model(self, agent: dict[str, Any]) -> str | None:
        if self.scenario.model:
            return self.scenario.model
        for value in (agent.get("model"), self.config.defaults.get("model")):
            if isinstance(value, str) and value:
                return value
            if isinstance(value, dict) and isinstance(value.get("primary"), str):
                return str(value["primary"])
        return None

    def context_window(self) -> int:
        return self.scenario.context_tokens or int_setting(self.config, "contextTokens", 200_000)

    def spawn(self, requester: Session | None = None, *, run_scripts: bool = True
              ) -> SpawnReport:
        """Simulate `sessions_spawn` for the scenario. Context scripts run when the workspace
        is trusted; with `run_scripts=False` only their cached results are used."""
        return simulate_spawn(self, requester, run_scripts=run_scripts)

    def run_scripts(self) -> ScriptsOutcome:
        """Run the scenario's context scripts into the cache without building anything (an
        app does this in the background, then rebuilds with `run_scripts=False`)."""
        return context_scripts(self)

    def thread(self) -> ThreadReport | None:
        """The Rye thread of the scenario's directive (None when it names none)."""
        if not self.scenario.directive:
            return None
        return build_thread(self.workspace, self.scenario.directive,
                            inputs=self.scenario.inputs, user_space=self.user_space,
                            model=self.scenario.model, snapshot=self.snapshot,
                            tokenizer=self.tokenizer)

    def report(self, *, run_scripts: bool = True) -> Report:
        """Build everything the scenario asks for: requester, spawn + child, Rye thread."""
        requester = self.session()
        spawn = self.spawn(requester, run_scripts=run_scripts)
        return Report(str(self.workspace), self.config.path, self.scenario, requester,
                      child=spawn.child, spawn=spawn, thread=self.thread(),
                      diagnostics=list(self.diagnostics) + spawn.diagnostics)


def env_user_space() -> Path | None:
    """The Rye user space from the environment: `$USER_SPACE/.ai`, or None."""
    base = os.environ.get("USER_SPACE")
    return Path(base) / ".ai" if base else None


def inspect(workspace: str | os.PathLike[str] = ".", **options: Any) -> Report:
    """Build a `Report` for `workspace`. Keyword options are those of `Inspector`, plus any
    scenario field (`requester`, `target`, `task`, `label`, `model`, `depth`, ...)."""
    inspector_keys = {"config", "tokenizer", "user_space", "trusted"}
    scenario = {k: v for k, v in options.items() if k not in inspector_keys}
    kwargs = {k: v for k, v in options.items() if k in inspector_keys}
    return Inspector(workspace, scenario=scenario or None, **kwargs).report()
