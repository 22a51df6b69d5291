"""One side of a comparison built with the ordinary engine: every configured agent's main
session, the child the scenario's spawn makes (with its policy), and the Rye thread of the
scenario's directive. Context scripts never run here (a side may be an old revision): the
child's first message lacks their output on both sides alike."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.core.figures import SessionFigures, of_session
from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record
from ctxscope.core.tokens import ESTIMATE, Tokenizer
from ctxscope.diff.causes import Evidence
from ctxscope.diff.gitside import fill_in
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Caches, Inputs, load_inputs
from ctxscope.report import thread_for
from ctxscope.runtimes.registry import session_for
from ctxscope.scripts import ScriptCache
from ctxscope.spawn import Policy, simulate_spawn

if TYPE_CHECKING:
    from ctxscope.diff.source import SideSource
    from ctxscope.runtimes.openclaw.configread import EnvString
    from ctxscope.runtimes.profiles import Profile
    from ctxscope.runtimes.rye import ThreadReport

CHILD_ID = "diff"
"""The child session's id on both sides (a fresh uuid would differ between them)."""


@record
class SideBuild:
    """What one side's agents are told."""

    label: str
    sessions: dict[str, Session]
    """By session key, in order: each agent's main session, then the spawn's child."""
    runtime: str = ""
    """The runtime the side models, in words (`OpenClaw 2026.9.6`)."""
    profile: Profile | None = None
    """The profile the sessions were built with (None: they were not built here)."""
    child_key: str | None = None
    requester_key: str | None = None
    """The scenario's requester session (the runtime may name it its own way)."""
    policy: Policy | None = None
    """The spawn's checks, for the child."""
    thread: ThreadReport | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    scratch: str = ""
    """A git side's scratch folder, which paths in the sessions point into."""
    top: str = ""
    """The repository's folder those paths stand for."""
    notes: list[str] = field(default_factory=list)
    """What the reader should know about this side's figures."""
    env_strings: tuple[EnvString, ...] = ()
    """The strings the side's config made from the environment."""
    figures: dict[str, SessionFigures] = field(default_factory=dict)
    """Sessions whose figures are not their build's, by key (a recorded run's: files, tools
    and sizes, its sections, digests and tokens `NOT_RECORDED`); a session may be here only."""
    evidence: dict[str, Evidence] = field(default_factory=dict)
    """A recorded run's session: what its side brings to decide why it differs from the
    workspace now (`diff.causes`), by key."""
    live: bool = False
    """The side is the workspace as it is now: its files on disk are the ones it read, so a
    recorded run beside it is compared file by file with them (`diff.causes`)."""

    def session_figures(self) -> dict[str, SessionFigures]:
        """Each session of the side in figures, by key, in order (those only in `figures`
        last)."""
        out = {
            k: self.figures.get(k) or of_session(s, self.shown) for k, s in self.sessions.items()
        }
        return {**out, **{k: f for k, f in self.figures.items() if k not in out}}

    @property
    def recorded(self) -> bool:
        """Whether a session of the side is a record's figures (no texts)."""
        return any(f.recorded for f in self.figures.values())

    def shown(self, text: str) -> str:
        """`text` with a git side's scratch folder named as the repository's folder."""
        return text.replace(self.scratch, self.top) if self.scratch else text


def _inputs(
    side: SideSource, snapshot: Snapshot, tokenizer: Tokenizer, user_space: Path | None
) -> Inputs:
    return load_inputs(
        side.workspace,
        snapshot,
        config=side.config,
        overrides={"child_id": CHILD_ID, **side.overrides},
        tokenizer=tokenizer,
        user_space=user_space,
        scenario_file=side.scenario_file,
    )


def build_side(
    side: SideSource,
    *,
    session_key: str | None = None,
    tokenizer: Tokenizer = ESTIMATE,
    user_space: Path | None = None,
) -> SideBuild:
    """Build `side` (materialised: its files in place). Raises what `load_inputs` raises for
    unusable input. A side that builds itself (`SideSource.build`) does."""
    if side.build is not None:
        return side.build(side, session_key=session_key, tokenizer=tokenizer, user_space=user_space)
    snapshot = Snapshot()
    inputs = _inputs(side, snapshot, tokenizer, user_space)
    if side.revision is not None and side.scratch is not None:
        folders = [inputs.workspace_for(a) for a in inputs.config.agent_ids()]
        missing = [f for f in folders if not f.exists()]
        if missing:
            fill_in(side.revision, side.scratch, missing)
            snapshot = Snapshot()
            inputs = _inputs(side, snapshot, tokenizer, user_space)
    sessions: dict[str, Session] = {}
    p = inputs.profile
    built = SideBuild(
        side.label,
        sessions,
        f"{p.runtime_name} {inputs.runtime.version or p.version}".strip(),
        p,
        diagnostics=list(inputs.diagnostics),
        notes=list(side.notes),
        env_strings=inputs.config.env_strings,
        live=side.kind == "now",
    )
    if side.scratch is not None and side.revision is not None:
        built.scratch, built.top = str(side.scratch), str(side.revision.top)
    if session_key is not None:
        sessions[session_key] = session_for(inputs, snapshot, session_key)
        return built
    requester_key = inputs.scenario.requester_session_key
    for agent in inputs.config.agent_ids():
        key = f"agent:{agent}:main"
        if key == requester_key:
            continue
        sessions[key] = session_for(inputs, snapshot, key)
    requester = session_for(inputs, snapshot)
    sessions = {requester.session_key: requester, **sessions}
    built.sessions = sessions
    built.requester_key = requester.session_key
    spawn = simulate_spawn(inputs, snapshot, ScriptCache(), requester)
    sessions[spawn.child.session_key] = spawn.child
    built.child_key, built.policy = spawn.child.session_key, spawn.policy
    built.thread = thread_for(inputs, snapshot, Caches())
    return built
