"""The one way a Rye thread is built for a question: `thread`, `explain`, `check`, the app's
report and the API all call `scenario_thread` with the scenario's Rye options (semantics
profile, system tier, user space, `continued`, inputs, model). It resolves the profile and
the system tier (a bad name or folder is a diagnostic, and the default applies), builds the
thread, and, when asked, the same thread under the other profile to list where Rye's docs
and ryeos disagree."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ctxscope.core.model import Diagnostic
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.infra.environ import process_env
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.disagree import details, disagreements
from ctxscope.runtimes.rye.installed import ENV, RyeSystemError, system_tier
from ctxscope.runtimes.rye.semantics import DEFAULT, DOCS, RyeProfileError
from ctxscope.runtimes.rye.semantics import load as load_profile
from ctxscope.runtimes.rye.thread import build_thread
from ctxscope.runtimes.rye.threadreport import ThreadReport
from ctxscope.runtimes.rye.toolsource import ToolSource

DEV_MODE_ENV = "RYE_DEV_MODE"
"""ryeos's dev mode switch: `1` loads every item without checking its signature."""


class RyeOptionError(ValueError):
    """An unknown Rye profile or an unusable system folder named on the command line."""


def resolve_options(
    rye_profile: str | None,
    rye_system: list[str] | None,
    env: Mapping[str, str],
    strict: bool = False,
) -> tuple[str, list[Path], list[Diagnostic]]:
    """(profile name, system tier folders, problems): a bad profile name or system folder
    is reported and the default is used (`strict`: it raises `RyeOptionError`); `env`: the
    environment that may name the system tier."""
    problems: list[Diagnostic] = []
    name = rye_profile or DEFAULT
    try:
        load_profile(name)
    except RyeProfileError as exc:
        if strict:
            raise RyeOptionError(str(exc)) from None
        problems.append(Diagnostic("error", f"{exc}; {DEFAULT} is used", code="rye-profile"))
        name = DEFAULT
    try:
        system = system_tier(rye_system or None, env)
    except RyeSystemError as exc:
        if strict:
            raise RyeOptionError(str(exc)) from None
        source = "--rye-system" if rye_system else f"${ENV}"
        problems.append(
            Diagnostic(
                "error", f"{source}: {exc}; the stand-in system tier is used", code="rye-system"
            )
        )
        system = []
    return name, system, problems


def scenario_thread(
    workspace: Path | str,
    directive: str,
    *,
    inputs: dict[str, str] | None = None,
    user_space: Path | str | None = None,
    model: str | None = None,
    rye_profile: str | None = None,
    rye_system: list[str] | None = None,
    rye_dev_mode: bool = False,
    continued: bool = False,
    snapshot: Snapshot | None = None,
    tokenizer: Tokenizer = ESTIMATE,
    tools: ToolSource | None = None,
    compare: bool = True,
    strict: bool = False,
    env: Mapping[str, str] | None = None,
) -> ThreadReport:
    """The thread `directive` is told, under the scenario's Rye options; with `compare`,
    its `disagreements` with the other profile. `strict`: a bad profile or system folder
    raises `RyeOptionError` (a command line's usage error) instead of being reported.
    Dev mode is on when `rye_dev_mode` says so or, as ryeos reads it, `$RYE_DEV_MODE` is 1.
    `env`: the environment the thread is built in (the inputs'; else this process's, read
    here once): `$RYE_DEV_MODE`, `$CTXSCOPE_RYE_SYSTEM` and `{env:NAME}` placeholders."""
    env = env if env is not None else process_env()
    name, system, problems = resolve_options(rye_profile, rye_system, env, strict)
    dev_mode = rye_dev_mode or env.get(DEV_MODE_ENV) == "1"
    snap = snapshot if snapshot is not None else Snapshot()

    def build(profile_name: str) -> ThreadReport:
        return build_thread(
            workspace,
            directive,
            inputs=inputs,
            user_space=user_space,
            model=model,
            snapshot=snap,  # the second profile's build reuses the first one's reads
            tokenizer=tokenizer,
            continued=continued,
            tools=tools,
            profile=load_profile(profile_name),
            system=system,
            dev_mode=dev_mode,
            env=env,
        )

    report = build(name)
    report.diagnostics += problems
    if compare and report.found:
        other = build(DOCS if name != DOCS else DEFAULT)
        docs, real = (other, report) if name != DOCS else (report, other)
        report.disagreements = disagreements(docs, real)
        report.disagreement_details = details(docs, real)
    return report
