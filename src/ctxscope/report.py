"""One build: frozen `Inputs` + a `Snapshot` of the files + caches → a `Report`.

`build_report` has no side effects of its own: it reads files through the snapshot, takes
context script results from the caches (scripts not run yet are `pending`) and asks the
caches' tool source for Rye tool metadata. The default source parses in this process; one a
program chose (`rye.toolsource.Workers`: the CLI and the app) may parse in worker processes
that end with the build. Running scripts and saving caches happen at the edge
(`ctxscope.api`, the CLI, the app).
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record
from ctxscope.core.secrets import EnvMask
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Caches, Inputs
from ctxscope.runtimes.registry import session_for
from ctxscope.scenario import Scenario
from ctxscope.spawn import SpawnReport, simulate_spawn

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ctxscope.runtimes.rye import ThreadReport


@record
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
    mask: EnvMask | None = field(default=None, repr=False, compare=False)
    """How values from the environment are shown (`to_dict` applies it; `shown()` too)."""

    @property
    def sessions(self) -> list[Session]:
        """The requester's session, then the child's when there is one."""
        return [self.requester] + ([self.child] if self.child else [])

    @property
    def all_diagnostics(self) -> list[Diagnostic]:
        out = list(self.diagnostics)
        for s in self.sessions:
            out += s.diagnostics
        if self.thread is not None:
            out += list(self.thread.diagnostics)
        return list(dict.fromkeys(out))  # each once, in order

    def shown(self) -> Report:
        """A display copy: values from the environment masked but for allowed names (the
        report itself when there are none)."""
        if not self.mask:
            return self
        out: Report = self.mask.value(self)
        return out if out is self else dataclasses.replace(out, mask=None)

    def to_dict(self) -> dict[str, Any]:
        """The whole build as one JSON object (snake_case; values from the environment
        masked, secret-named keys not yet)."""
        return self.mask.value(self._dict()) if self.mask else self._dict()

    def _dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "workspace": self.workspace,
            "config_path": self.config_path,
            "scenario": dataclasses.asdict(self.scenario),
            "requester": self.requester.to_dict(),
            "child": self.child.to_dict() if self.child is not None else None,
        }
        if self.spawn is not None:
            spawn = self.spawn.to_dict()
            spawn.pop("requester", None)
            spawn.pop("child", None)
            data["spawn"] = spawn
        if self.thread is not None:
            data["thread"] = self.thread.to_dict()
        data["diagnostics"] = [d.to_dict() for d in self.all_diagnostics]
        return data


@contextlib.contextmanager
def tools_ahead(inputs: Inputs, snapshot: Snapshot, caches: Caches) -> Iterator[None]:
    """When the scenario names a directive, the tool source may start on the project's and
    the user's Rye tool files before the OpenClaw sessions are built (`ToolSource.ahead`;
    `build_thread` asks it too, later, when called alone)."""
    if not inputs.scenario.directive or caches.tools is None:
        yield
        return
    from ctxscope.runtimes.rye import spaces_for  # the Rye engine only for a thread

    with caches.tools.ahead(snapshot, spaces_for(inputs.workspace, inputs.user_space)):
        yield


def thread_for(inputs: Inputs, snapshot: Snapshot, caches: Caches) -> ThreadReport | None:
    """The Rye thread of the scenario's directive (None when it names none)."""
    sc = inputs.scenario
    if not sc.directive:
        return None
    from ctxscope.runtimes.rye import scenario_thread  # the Rye engine only for a thread

    return scenario_thread(
        inputs.workspace,
        sc.directive,
        inputs=sc.inputs,
        user_space=inputs.user_space,
        model=sc.model,
        rye_profile=sc.rye_profile,
        rye_system=sc.rye_system,
        rye_dev_mode=sc.rye_dev_mode,
        continued=sc.continued,
        snapshot=snapshot,
        tokenizer=inputs.tokenizer,
        tools=caches.tools,
        env=inputs.env,
    )


def build_report(
    inputs: Inputs, snapshot: Snapshot, caches: Caches, *, thread: bool = True
) -> Report:
    """Build everything the scenario asks for: requester, spawn + child, Rye thread
    (`thread` False: not the thread, which is left None; the Rye engine is not loaded)."""
    with tools_ahead(inputs, snapshot, caches) if thread else contextlib.nullcontext():
        requester = session_for(inputs, snapshot)
        spawn = simulate_spawn(inputs, snapshot, caches.scripts, requester)
        rye = thread_for(inputs, snapshot, caches) if thread else None
    return Report(
        str(inputs.workspace),
        inputs.config.path,
        inputs.scenario,
        requester,
        child=spawn.child,
        spawn=spawn,
        thread=rye,
        diagnostics=list(spawn.diagnostics),
        mask=EnvMask(inputs.config.env_strings),
    )
