"""A recorded run as a side of a comparison (`--from run:agent:main:main`): the session
OpenClaw recorded in its session store, rebuilt from the figures its `systemPromptReport`
holds.

A record holds figures, not texts: the prompt's size, each injected file's raw and injected
size with its truncation or missing mark, each tool sent with its description and schema
sizes, the skills, the current turn's sizes (2026.9). So the side's session has files,
tools and token figures estimated from those chars (chars/4), and no sections: a comparison
says sections are not recorded rather than removed. The stores are read as `ctxscope runs`
reads them: strictly read-only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ctxscope.core.model import (
    FileEntry,
    PromptMode,
    Session,
    SessionKind,
    SessionTokens,
)
from ctxscope.core.record import record
from ctxscope.core.tokens import CHARS4, estimate_tokens
from ctxscope.diff.build import SideBuild
from ctxscope.diff.causes import NO_REPORT, Evidence
from ctxscope.runs import RecordedRun, find_run, state_folder
from ctxscope.runs.figures import recorded_status, run_figures, tool_entries, turn_chars
from ctxscope.runs.recorded import RecordedFile, int_figure, run_release, same_folder, utc_time
from ctxscope.runs.store import DATABASE
from ctxscope.runtimes.openclaw.prompt import budget_limits
from ctxscope.runtimes.openclaw.request import (
    ModelRequest,
    RequestMessage,
    RequestPlan,
    RequestTool,
)

if TYPE_CHECKING:
    from ctxscope.core.figures import SessionFigures
    from ctxscope.diff.source import SideSource
    from ctxscope.inputs import Inputs


class RunSideError(Exception):
    """No usable record for the key; the message names the store file (or state folder)."""


@record
class RunSide:
    """A recorded run, ready to be built as a side: the run, and the figures the record
    lacks that the workspace's config gives (the context window, the key's kind)."""

    run: RecordedRun
    context_window: int
    kind: SessionKind
    prompt_mode: PromptMode
    workspace: str
    """The folder the session reads now (to say when the run's was another)."""
    evidence: Evidence
    """What the run brings to a comparison with the workspace now (`diff.causes`): the
    bootstrap limits the session reads now, where the config sets them, the release it
    runs."""

    @property
    def label(self) -> str:
        when = self.run.generated_at
        if when is None:
            return f"run {self.run.session_key}"
        at = utc_time(when / 1000, " UTC", "%Y-%m-%d %H:%M")
        return f"run {self.run.session_key} ({at})"

    @property
    def runtime(self) -> str:
        version = self.run.app_version
        if version:
            return f"OpenClaw {version} (recorded)"
        release, _ = run_release(self.run)
        where = os.path.basename(self.run.store)
        return f"OpenClaw {release} (recorded in {where})" if release else f"OpenClaw ({where})"

    def notes(self) -> list[str]:
        run = self.run
        out = [
            f"{self.label}: OpenClaw recorded figures, not texts, in {run.store}: its sections "
            "are not recorded (not compared), and its tokens are an estimate from the recorded "
            "chars (chars/4), the other side's counted the same way"
        ]
        turn = run.figure("currentTurn")
        if isinstance(turn, dict):
            out.append(
                f"{self.label}: its messages are the current turn's prompt and runtime context "
                f"as recorded ({int_figure(turn.get('promptChars'), 0):,} and "
                f"{int_figure(turn.get('runtimeContextChars'), 0):,} chars)"
            )
        else:
            out.append(f"{self.label}: its messages are not recorded (counted as 0 tokens)")
        recorded = run.figure("workspaceDir")
        if isinstance(recorded, str) and recorded and not same_folder(recorded, self.workspace):
            delta = len(self.workspace) - len(recorded)
            out.append(
                f"{self.label}: the run's workspace was {recorded}, the workspace now is "
                f"{self.workspace}"
                + (
                    f": sizes that include the workspace's path differ by {delta:+,} chars "
                    "for each mention"
                    if delta
                    else ""
                )
            )
        return out

    def __call__(self, side: SideSource, **_: Any) -> SideBuild:
        """The side's build (`SideSource.build`): the one recorded session."""
        session = self.session()
        return SideBuild(
            side.label,
            {session.session_key: session},
            self.runtime,
            None,
            requester_key=session.session_key,
            notes=[*side.notes, *self.notes()],
            figures={session.session_key: self.figures()},
            evidence={session.session_key: self.evidence},
        )

    def figures(self) -> SessionFigures:
        """The run's figures, with what the record lacks as the config gives it now."""
        return run_figures(self.run, self.kind, self.prompt_mode, self.context_window)

    def session(self) -> Session:
        """The run as a session (a pane's before side): files, tools and sizes, no texts."""
        run = self.run
        figures = self.figures()
        files = [_file(f) for f in run.files()]
        tools = tuple(RequestTool(n, d, c) for n, d, c in tool_entries(run))
        turn = turn_chars(run)
        messages: tuple[RequestMessage, ...] = ()
        if turn is not None:
            messages = (
                RequestMessage("user", "current-turn", "", turn, estimate_tokens(turn), True),
            )
        system = figures.prompt.chars4()
        tool_tokens = figures.tools.chars4()
        message_tokens = figures.messages.chars4()
        plan = RequestPlan(None, f"recorded in {run.store}", "", "", 0, "")
        wire = ModelRequest(plan, figures.prompt.chars, system, tools, messages, tool_tokens)
        return Session(
            session_key=run.session_key,
            agent_id=run.agent_id,
            kind=self.kind,
            prompt_mode=self.prompt_mode,
            profile="recorded",
            workspace=figures.workspace,
            system_prompt="",
            sections=[],
            files=files,
            tokens=SessionTokens(
                system, 0, system + tool_tokens + message_tokens, tool_tokens, message_tokens
            ),
            context_window=self.context_window,
            model=figures.model,
            tokenizer=CHARS4.label,
            runtime_version=run.app_version or "",
            wire=wire,
        )


def _file(rec: RecordedFile) -> FileEntry:
    status, reason = recorded_status(rec)
    return FileEntry(
        rec.name, rec.path, status, rec.raw_chars or 0, rec.injected_chars or 0, reason
    )


def find_side(key: str, inputs: Inputs, state: str | os.PathLike[str] | None = None) -> RunSide:
    """The run recorded for `key` in the state folder (`state`, else as `ctxscope runs`
    finds it: `$OPENCLAW_STATE_DIR`, the config's folder when it holds an agent's session store,
    `~/.openclaw`). Raises RunSideError naming the store (or the state folder) when there is
    no store, no session `key` in it, or no report for it."""
    config = inputs.config
    folder = state_folder(str(state) if state else None, config.path)
    data: Mapping[str, Any] = config.data
    read = find_run(key, state=folder, config=data)
    where = read.state
    missing = [p for p in read.problems if p.code == "runs-no-state"]
    if missing:
        raise RunSideError(
            f"{where}: no OpenClaw state folder here, so no recorded run {key} (give --state "
            "DIR or set $OPENCLAW_STATE_DIR)"
        )
    if not read.runs:
        if not read.stores:
            agent = key.split(":")[1] if key.count(":") >= 2 else "main"
            expected = os.path.join(where, "agents", agent, "agent", DATABASE)
            raise RunSideError(
                f"{expected}: no session store for agent {agent} in {where} (nor its "
                f"sessions.json), so no recorded run {key}"
            )
        trouble = "; ".join(str(p) for p in read.problems if p.severity == "error")
        raise RunSideError(
            f"{', '.join(read.stores)}: no recorded session {key}"
            + (f" ({trouble})" if trouble else "")
        )
    run = read.runs[0]
    if run.problem is not None:
        raise RunSideError(str(run.problem))
    if run.report is None:
        raise RunSideError(
            f"{run.store}: session {run.session_key} holds no report of what it was told "
            f"(no systemPromptReport: {NO_REPORT})"
        )
    info = inputs.classify(run.session_key)
    workspace = inputs.workspace_for(info.agent_id)
    return RunSide(
        run,
        inputs.context_window(),
        info.kind,
        info.mode,
        str(workspace),
        Evidence(
            run,
            budget_limits(inputs.profile, config, info.agent_id),
            limits_set_by(inputs, info.agent_id, info.kind),
            inputs.runtime.version,
        ),
    )


def limits_set_by(inputs: Inputs, agent: str, kind: str = "") -> dict[str, str]:
    """Where the config sets each bootstrap limit the session reads (`openclaw.json:12`):
    the agent's own entry, where the release reads one, else `agents.defaults`; the tool
    policy's keys it sets (`tools.deny`); for an agent's main session (`kind`), the key that
    names its model (`model`: `agents.defaults.model.primary (openclaw.json:5)`)."""
    config = inputs.config
    name = os.path.basename(config.path or "openclaw.json")
    out = {}
    entries = config.get("agents.list")
    index = next(
        (
            i
            for i, e in enumerate(entries if isinstance(entries, list) else [])
            if isinstance(e, dict) and str(e.get("id", "")).strip().lower() == agent
        ),
        None,
    )
    own = entries[index] if index is not None and inputs.profile.per_agent_limits else {}
    for key in ("bootstrapMaxChars", "bootstrapTotalMaxChars"):
        if own.get(key) is not None:
            dotted = f"agents.list[{index}].{key}"
        elif config.get(f"agents.defaults.{key}") is not None:
            dotted = f"agents.defaults.{key}"
        else:
            continue
        line = config.line_of(dotted)
        out[key] = f"{name}:{line}" if line else f"{name}, {dotted}"
    for dotted in ("tools.profile", "tools.allow", "tools.alsoAllow", "tools.deny"):
        if config.get(dotted) is not None:
            line = config.line_of(dotted)
            out[dotted] = f"{name}:{line}" if line else name
    if kind == "main":  # a child's model comes from the spawn's ladder
        found = entries[index] if index is not None else {}
        if inputs.scenario.model:
            out["model"] = "the scenario's model"
        else:
            for where, value in (
                (f"agents.list[{index}].model", found.get("model")),
                ("agents.defaults.model", config.get("agents.defaults.model")),
            ):
                if isinstance(value, dict) and isinstance(value.get("primary"), str):
                    where += ".primary"
                elif not (isinstance(value, str) and value):
                    continue
                line = config.line_of(where)
                out["model"] = f"{where} ({name}:{line})" if line else f"{where} ({name})"
                break
    return out
