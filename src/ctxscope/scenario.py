"""The scenario: what to simulate (who spawns whom, with which task, model, tools, ...).

Read from `WORKSPACE/ctxscope.yaml` when present; every field can be overridden by CLI flags
and edited in the TUI.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxscope.core.keylines import KeyPath, yaml_key_lines
from ctxscope.core.model import Diagnostic, Severity
from ctxscope.core.record import record
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye import DEFAULT_PROFILE, profile_names

SCENARIO_FILE = "ctxscope.yaml"


@record
class Scenario:
    """What ctxscope simulates. `None` means "not given: use the config or the default"."""

    requester: str = ""
    """The agent calling sessions_spawn (empty: the config's default agent, `main` when
    there is no config)."""
    target: str | None = None
    """The agent the subagent is spawned as (default: the requester)."""
    task: str = ""
    label: str | None = None
    model: str | None = None
    thinking: str | None = None
    depth: int = 0
    """The caller's depth (0 for a main session)."""
    active_children: int = 0
    channel: str | None = None
    tools: list[str] = field(default_factory=list)
    directive: str | None = None
    inputs: dict[str, str] = field(default_factory=dict)
    profile: str = "openclaw"
    context_tokens: int | None = None
    session_key: str | None = None
    """The requester's session key (default `agent:<requester>:main`)."""
    prompt_mode: str | None = None
    """Force a prompt mode (`full`, `minimal`, `none`) for what-ifs."""
    cleanup: str | None = None
    child_id: str | None = None
    """A fixed id for the child session key instead of a fresh uuid4."""
    timezone: str | None = None
    setup_completed: bool = False
    """OpenClaw 2026.9 records workspace setup outside the workspace; true says it is done
    (BOOTSTRAP.md is then no longer injected)."""
    user: str | None = None
    """GoClaw: the user (a `users.json` key) who sends the message; the session key still
    decides where that matters (`primary`: the owner, `user:<id>`: that user, cron: the
    owner)."""
    rye_profile: str | None = None
    """The Rye semantics of the directive's thread (`ryeos-0.1` when not given, `rye-docs`)."""
    rye_system: list[str] = field(default_factory=list)
    """Folders of the real Rye system tier (default: `$CTXSCOPE_RYE_SYSTEM`, else an installed
    ryeos, else the stand-in)."""
    continued: bool = False
    """The thread is resumed: `thread_continued` hooks fire instead of `thread_started`."""
    exact: str | None = None
    """Exact mode by default (`auto`: where an installed OpenClaw is found, `on`: required,
    `off`: ctxscope's model); None: the command's own default (the app: `auto`; the
    commands: off). `--exact`, `--exact=auto` and `--exact=off` override it."""
    rye_dev_mode: bool = False
    """Read Rye items as ryeos's dev mode does (`RYE_DEV_MODE=1`): signatures are reported,
    not enforced. Off by default, as in ryeos; `$RYE_DEV_MODE=1` turns it on too."""

    def replace(self, **changes: Any) -> Scenario:
        """A copy with `changes` applied, ignoring those that are None."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    @property
    def target_agent(self) -> str:
        return self.target or self.requester

    @property
    def requester_session_key(self) -> str:
        return self.session_key or f"agent:{self.requester or 'main'}:main"

    @property
    def spawner_session_key(self) -> str:
        """The session that calls `sessions_spawn`, as the child is told: at depth 0 the
        requester's; deeper, the requester is itself a subagent (`session_key`, else a
        subagent key with a stable made-up id)."""
        if self.session_key or self.depth < 1:
            return self.requester_session_key

        parent = uuid.uuid5(uuid.NAMESPACE_URL, f"ctxscope:{self.requester}:{self.depth}")
        return f"agent:{self.requester or 'main'}:subagent:{parent}"


EXACT_MODES = ("auto", "on", "off")
"""The values of the scenario's `exact` setting."""
_INT_FIELDS = {"depth", "active_children", "context_tokens"}
_LIST_FIELDS = {"tools", "rye_system"}
_DICT_FIELDS = {"inputs"}
_BOOL_FIELDS = {"setup_completed", "continued", "rye_dev_mode"}
FIELDS = {f.name for f in dataclasses.fields(Scenario)}


def load_scenario(
    workspace: Path, snapshot: Snapshot | None = None, file: Path | None = None
) -> tuple[Scenario, list[Diagnostic]]:
    """The scenario from `WORKSPACE/ctxscope.yaml` (or `file`; defaults when absent), with
    diagnostics."""
    fr = (snapshot or Snapshot()).read(file or workspace / SCENARIO_FILE)
    spath = fr.path
    if not fr.exists:
        return Scenario(), [
            Diagnostic(
                "error", f"cannot read the scenario: {d.message}", spath, code="scenario-unreadable"
            )
            for d in fr.diagnostics[:1]  # none when the file is simply absent
        ]
    try:
        data = load_yaml(fr.text)
    except yaml.YAMLError as exc:
        return Scenario(), [*fr.diagnostics, yaml_diagnostic(exc, spath, "scenario-parse")]
    if data is None:
        return Scenario(), []
    if not isinstance(data, dict):
        return Scenario(), [
            Diagnostic("error", "the scenario must be a mapping", spath, 1, code="scenario-shape")
        ]
    lines: dict[KeyPath, int] = {}

    def line_of(key: str) -> int | None:
        if not lines:  # worked out only for a scenario with a problem
            lines.update(yaml_key_lines(fr.text))
        return lines.get((key,))

    scenario, diags = scenario_from_mapping(data, spath, line_of)
    return scenario, [*fr.diagnostics, *diags]


def _rye_profiles() -> tuple[list[str], str]:
    """(the Rye profile names, the default one): read only for a scenario naming one."""

    return profile_names(), DEFAULT_PROFILE


def scenario_from_mapping(
    data: dict[str, Any],
    path: str | None,
    line_of: Callable[[str], int | None] = lambda key: None,
) -> tuple[Scenario, list[Diagnostic]]:
    """The scenario `data` gives, with a diagnostic (at `line_of(key)`) for each key that is
    unknown or holds a value of the wrong kind."""
    diags: list[Diagnostic] = []
    values: dict[str, Any] = {}
    for key, value in data.items():
        if value is None and key in FIELDS:
            continue
        taken = _field_value(key, value)
        if isinstance(taken, _Refused):
            diags.append(
                Diagnostic(taken.severity, taken.message, path, line_of(key), code=taken.code)
            )
        else:
            values[key] = taken
    return Scenario(**values), diags


@dataclass(frozen=True)
class _Refused:
    """Why a scenario key's value is not taken."""

    message: str
    code: str = "scenario-value"
    severity: Severity = "warning"


def _field_value(key: str, value: Any) -> Any:
    """The value the scenario takes for `key`, or why it is refused (`_Refused`)."""
    if key not in FIELDS:
        return _Refused(f"unknown scenario key {key!r} (ignored)", "scenario-unknown-key")
    if key in _INT_FIELDS:
        ok = not isinstance(value, bool) and isinstance(value, int) and value >= 0
        return value if ok else _Refused(f"{key} must be a non-negative integer")
    if key in _BOOL_FIELDS:
        return value if isinstance(value, bool) else _Refused(f"{key} must be true or false")
    if key in _LIST_FIELDS:
        if not isinstance(value, list):
            return _Refused(f"{key} must be a list")
        return [str(v) for v in value]
    if key in _DICT_FIELDS:
        if not isinstance(value, dict):
            return _Refused(f"{key} must be a mapping")
        return {str(k): str(v) for k, v in value.items()}
    if key == "exact":
        # YAML reads a bare on/off as true/false
        mode = {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value
        if mode not in EXACT_MODES:
            return _Refused(f"exact must be one of {', '.join(EXACT_MODES)} (ignored)")
        return mode
    text = str(value)
    if key == "rye_profile" and text not in (known := _rye_profiles())[0]:
        return _Refused(
            f"unknown Rye profile {text!r} (known: {', '.join(known[0])}); {known[1]} is used",
            "rye-profile",
            "error",
        )
    return text
