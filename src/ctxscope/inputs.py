"""What a build is made from, decided once and then frozen: the workspace, the gateway
config, the scenario, the profile and the trust decision.

`load_inputs()` is the only place these are read; everything after it (`build_report`,
`simulate_spawn`, `explain`, `run_check`) takes the frozen `Inputs` and a `Snapshot` to
read workspace files through, and never reaches for a mutable object.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxscope.core.keylines import yaml_key_lines
from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.infra.environ import process_env
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.openclaw.config import (
    GatewayConfig,
    discover_config,
    int_setting,
    load_config,
)
from ctxscope.runtimes.openclaw.prompt import DEFAULT_CONTEXT_TOKENS
from ctxscope.runtimes.openclaw.refusals import refusals
from ctxscope.runtimes.openclaw.sessionkeys import SessionInfo, classify
from ctxscope.runtimes.openclaw.versions import NO_CHOICE, RuntimeChoice, choose
from ctxscope.runtimes.profiles import Profile, ProfileError, load_profile, unknown_family
from ctxscope.scenario import SCENARIO_FILE, Scenario, load_scenario
from ctxscope.scripts import ScriptCache, TrustSet, TrustStore, trust_set
from ctxscope.scripts.resolve import every_agent_entries

if TYPE_CHECKING:
    from ctxscope.runtimes.rye import ToolSource


class WorkspaceError(Exception):
    """The workspace folder itself is unusable (missing, not a folder)."""


@record(frozen=True)
class Inputs:
    """Everything one build depends on apart from the workspace files themselves."""

    workspace: Path
    config: GatewayConfig
    scenario: Scenario
    profile: Profile
    trusted: bool
    """Whether context scripts may run: `--trust`, or the user's remembered trust in this
    workspace with exactly this `trust_set`."""
    user_space: Path | None = None
    """The Rye user space (`.ai` folder), if any."""
    tokenizer: Tokenizer = ESTIMATE
    diagnostics: tuple[Diagnostic, ...] = ()
    """Problems found reading the config and the scenario file."""
    trust_set: TrustSet = field(default_factory=TrustSet)
    """What trusting this workspace vouches for (and the trust dialog lists): every config
    file read and every agent's context scripts."""
    runtime: RuntimeChoice = NO_CHOICE
    """Which profile models the workspace's runtime, the runtime version and how both were
    chosen."""
    env: Mapping[str, str] = field(default_factory=process_env, compare=False, repr=False)
    """The environment the build decides with, read once with the rest of the inputs:
    `${NAME}` in the config, the variables a skill requires, the host's time zone and shell,
    OpenClaw's state folder, Rye's dev mode and system space."""

    @property
    def script_files(self) -> tuple[Path, ...]:
        """Every local context-script file any agent runs."""
        return self.trust_set.script_files

    @property
    def trust_key(self) -> str:
        return self.trust_set.key

    def workspace_for(self, agent_id: str) -> Path:
        """The folder an agent's bootstrap files are read from."""
        return self.config.agent_workspace(agent_id, self.workspace)[0]

    def max_spawn_depth(self) -> int:
        default = int(self.profile.spawn.get("max_spawn_depth", 1))
        return int_setting(self.config, "subagents.maxSpawnDepth", default)

    def classify(self, session_key: str) -> SessionInfo:
        return classify(
            session_key, self.profile, self.config.default_agent_id(), self.scenario.prompt_mode
        )

    def context_window(self) -> int:
        return self.scenario.context_tokens or int_setting(
            self.config, "contextTokens", DEFAULT_CONTEXT_TOKENS
        )


@record
class Caches:
    """What is worth keeping between builds besides file reads: context-script results and
    where Rye tool metadata comes from (`rye.toolsource`; None: each file parsed in turn).
    A build reads them; only the edge (running scripts, saving the tool cache) writes."""

    scripts: ScriptCache = field(default_factory=ScriptCache)
    tools: ToolSource | None = None


def resolve_workspace(workspace: str | os.PathLike[str]) -> Path:
    path = Path(workspace).expanduser().absolute()
    if not path.exists():
        raise WorkspaceError(f"{path}: workspace folder not found")
    if not path.is_dir():
        raise WorkspaceError(f"{path}: not a folder")
    return Path(os.path.normpath(path))


def load_inputs(
    workspace: Path,
    snapshot: Snapshot,
    *,
    config: str | os.PathLike[str] | None = None,
    overrides: dict[str, Any] | None = None,
    tokenizer: Tokenizer = ESTIMATE,
    user_space: Path | None = None,
    trusted: bool = False,
    trust_store: TrustStore | None = None,
    previous: Inputs | None = None,
    exact: tuple[str, str] | None = None,
    scenario_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Inputs:
    """Read the config, the scenario file and the profile. Raises `WorkspaceError`,
    `ConfigError` or `ProfileError` for unusable input (a caller keeps its last good build).

    `overrides` replace scenario fields (None values are ignored). When `previous` holds
    the same config text, its parsed config is reused: a workspace edit never re-parses it.
    `exact`: (version, folder) of the runtime exact mode asks; it picks the auto profile.
    `scenario_file`: a scenario read instead of `WORKSPACE/ctxscope.yaml`.
    `environ`: the environment the build decides with (this process's by default), read
    here once (`Inputs.env`).
    """
    if not workspace.is_dir():
        raise WorkspaceError(f"{workspace}: workspace folder not found")
    path = discover_config(workspace, config)
    env = process_env(environ)
    gateway = _reuse_config(previous, path, snapshot, env) or load_config(path, snapshot.read, env)
    scenario, diags = load_scenario(workspace, snapshot, scenario_file)
    if overrides:
        scenario = scenario.replace(**overrides)
    choice, version_diags = choose(scenario.profile, gateway.data, gateway.path, exact)
    try:
        profile = load_profile(choice.profile, snapshot.read, base=workspace)
    except ProfileError as exc:
        if overrides and overrides.get("profile") is not None:
            raise  # typed on the command line (or in the app): the message says it all
        raise _named_by_scenario(
            exc, scenario_file or workspace / SCENARIO_FILE, snapshot
        ) from None
    if not choice.version and profile.version:
        choice = dataclasses.replace(choice, profile=profile.name, version=profile.version)
    version_diags += missing_env_diagnostics(gateway, profile)
    if (odd := unknown_family(profile)) is not None:  # named with its line in the file
        line = yaml_key_lines(snapshot.read(profile.path).text).get(("family",))
        version_diags.append(dataclasses.replace(odd, line=line))
    gateway = _read_as_release(gateway, profile, version_diags)
    version_diags += refusals(gateway, profile, workspace)
    if not scenario.requester:
        # The default agent: `default: true`, else the first configured one.
        scenario = dataclasses.replace(scenario, requester=gateway.default_agent_id())
    vouched = _trust_set(gateway, workspace, snapshot, previous)
    is_trusted = trusted or (
        trust_store is not None and trust_store.is_trusted(workspace, vouched.key)
    )
    if trust_store is not None:
        version_diags += trust_store.problems
        if not is_trusted and vouched.any_scripts and trust_store.knows(workspace):
            version_diags.append(_trust_changed(gateway))
    return Inputs(
        workspace,
        gateway,
        scenario,
        profile,
        is_trusted,
        user_space,
        tokenizer,
        tuple(gateway.diagnostics) + tuple(diags) + tuple(version_diags),
        vouched,
        choice,
        env,
    )


def _read_as_release(
    gateway: GatewayConfig, profile: Profile, problems: list[Diagnostic]
) -> GatewayConfig:
    """The config as the profile's release reads its agents (`agents.entries` or not, whose
    workspace the default agent owns); an `agents.entries` the release ignores is said in
    `problems`."""
    entries = bool(profile.config_rules.get("agent_entries"))
    owner = str(profile.config_rules.get("workspace_owner", "default"))
    if entries != gateway.entries_roster or owner != gateway.workspace_owner:
        gateway = dataclasses.replace(gateway, entries_roster=entries, workspace_owner=owner)
    if not entries and isinstance(gateway.get("agents.entries"), dict):
        problems.append(
            Diagnostic(
                "warning",
                f"agents.entries is not read by {profile.runtime_name} {profile.version} "
                "(its schema rejects the key; OpenClaw 2026.9 reads it); agents.list is used",
                gateway.path,
                gateway.line_of("agents.entries"),
                code="config-entries",
            )
        )
    return gateway


def _named_by_scenario(exc: ProfileError, file: Path, snapshot: Snapshot) -> ProfileError:
    """`exc` about the profile the scenario `file` names, pointing at that `profile:` line
    (an unknown name), or saying where it is named (a profile file that cannot be used)."""

    path = str(file)
    line = yaml_key_lines(snapshot.read(path).text).get(("profile",))
    d = exc.diagnostic
    if d.path is None:
        return ProfileError(dataclasses.replace(d, path=path, line=line))
    where = f"{path}:{line}" if line else path
    return ProfileError(dataclasses.replace(d, message=f"{d.message} (the profile {where} names)"))


def _trust_set(
    gateway: GatewayConfig, workspace: Path, snapshot: Snapshot, previous: Inputs | None
) -> TrustSet:
    """What trusting the workspace vouches for; the previous build's, with the script files
    hashed again, when the config is the same (thousands of agents resolve once)."""
    if previous is not None and previous.config is gateway:
        return previous.trust_set.refreshed(snapshot.digest)
    files = [(gateway.path, gateway.text)] if gateway.path else []
    return trust_set(
        every_agent_entries(gateway.data),
        gateway.folder or workspace,
        files + list(gateway.included),
        snapshot.digest,
    )


def _trust_changed(gateway: GatewayConfig) -> Diagnostic:
    return Diagnostic(
        "warning",
        "the workspace was trusted, but what its context scripts run has changed since (a "
        "config file, an included file, a script entry or a script file; or the trust was "
        "given by an older ctxscope): they do not run until it is trusted again (T in the "
        "app, or --trust)",
        gateway.path,
        code="trust-changed",
    )


def missing_env_diagnostics(config: GatewayConfig, profile: Profile) -> list[Diagnostic]:
    """Unset `${NAME}` references, as the version treats them: 2026.2 refuses the config,
    2026.9 loads it and leaves the feature that uses the value unavailable."""
    refuse = profile.config_rules.get("missing_env") == "refuse"
    out = []
    for miss in config.missing_env:
        if refuse:
            message = (
                f'Missing env var "{miss.name}" referenced at config path: {miss.key} '
                f"({profile.runtime_name} {profile.version} would not load this config)"
            )
        else:
            message = (
                f'Missing env var "{miss.name}" - feature using this value will be unavailable '
                f"({miss.key})"
            )
        out.append(
            Diagnostic(
                "error" if refuse else "warning",
                message,
                config.path,
                config.line_of(miss.key),
                code="config-env",
            )
        )
    return out


def _reuse_config(
    previous: Inputs | None, path: Path | None, snapshot: Snapshot, env: Mapping[str, str]
) -> GatewayConfig | None:
    """The previous build's config when `path` is the same file with the same text, read in
    the same environment (parsing JSON5 is slow, so an edit elsewhere in the workspace must
    not re-parse it)."""
    if previous is None or path is None or previous.env != env:
        return None
    if previous.config.path != str(Path(path).absolute()):
        return None
    fr = snapshot.read(path)
    if not fr.exists or fr.text != previous.config.text:
        return None
    same = all(snapshot.read(p).text == text for p, text in previous.config.included)
    return previous.config if same else None
