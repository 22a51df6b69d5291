"""The app's one-line texts, as pure functions of its state: the top bar (scenario, runtime,
exact mode, workspace), the status line (the build, its problems, the watcher, the
scripts), the strip of what a rebuild changed, the subagent's lost line, the panes' header
marks and notices, and the notice after exact mode is toggled. No Textual: the widgets only
show what these return."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ctxscope.core.ids import normalize_agent_id
from ctxscope.core.model import Diagnostic
from ctxscope.remedies import lost_line, lost_tokens
from ctxscope.runtimes.openclaw.versions import AUTO
from ctxscope.spawn import unknown_agent
from ctxscope.tui.render import delta_line
from ctxscope.tui.shorten import home_path, middle, middle_path

if TYPE_CHECKING:
    from ctxscope.api import Inspector
    from ctxscope.runtimes.openclaw.versions import RuntimeChoice
    from ctxscope.runtimes.rye import ThreadReport
    from ctxscope.scenario import Scenario
    from ctxscope.tui.build import Build


@dataclass(frozen=True)
class Exact:
    """Exact mode as the bars tell it."""

    label: str
    """The runtime it runs (`OpenClaw 2026.9.6 at ...`)."""
    failure: str | None = None
    """Why it cannot run."""
    ready: bool | None = None
    """None: its helper is still loading (the runtime, then the modules its first answer
    loads); else whether the helper answered."""
    started: bool = False
    """The runtime has loaded and its first answer is awaited (a cold cache makes the
    runtime compile its modules then: up to a minute)."""
    drift: int | None = None
    """Where the runtime's text is shown: how many drift warnings the model has from it."""
    loading_model: bool = False
    """The app loads the runtime on its own thread; the model is shown meanwhile."""

    @property
    def state(self) -> str:
        return "unavailable" if self.failure else "on" if self.ready else "loading"

    @classmethod
    def of(cls, ins: Inspector) -> Exact | None:
        """The inspector's exact mode (None when it does not run)."""
        exact = ins.exact
        if exact is None:
            return None
        helper = exact.helper
        return cls(
            exact.label,
            exact.failure,
            None if helper.loading else True,
            helper.ready is not None and helper.loading,
        )


@dataclass(frozen=True)
class Status:
    """The status line: its text and how it is coloured."""

    text: str
    error: bool = False
    """The last rebuild failed (the last good build is shown)."""
    warn: bool = False
    """The build shown has errors."""


def spawn_arrow(scenario: Scenario, build: Build | None) -> str:
    """`requester → target` as the spawn resolved it: the agent an override chose (with the
    one asked for), unknown agents, and whether policy forbids it."""
    spawn = build.report.spawn if build is not None else None
    if build is None or spawn is None:
        return f"{scenario.requester} → {scenario.target_agent}"
    arrow = " → ".join(
        f"{a} (unknown)" if unknown_agent(build.inputs, a) else a
        for a in (normalize_agent_id(scenario.requester), spawn.target_agent_id)
    )
    if spawn.target_agent_id != spawn.requested_target:
        arrow += f" (override; asked {spawn.requested_target})"
    return arrow + ("  ✗ forbidden" if not spawn.policy.allowed else "")


def top_line(
    *,
    scenario: Scenario,
    runtime: RuntimeChoice,
    build: Build | None,
    workspace: Path,
    exact: Exact | None,
    exact_unavailable: str | None = None,
    diff: bool = False,
    pinned: str | None = None,
    linked: bool = False,
    rye_pane: bool = False,
    width: int = 0,
    home: str | None = None,
) -> str:
    """The top bar: the view's flags, the spawn, the runtime (and exact mode), the
    directive and the workspace. `exact_unavailable`: why exact mode, asked for, cannot
    run. `width` (0: any): the line fits it, the workspace always there (`fit_top`)."""
    flags = []
    if diff and not rye_pane:
        flags.append("diff")
    if pinned is not None:
        flags.append(f"before: {pinned}")
    if linked and not rye_pane:
        flags.append("linked")
    if rye_pane:
        flags.append("rye thread")
    profile, how = runtime.profile or scenario.profile, ""
    if runtime.version and scenario.profile == AUTO:
        profile, how = f"OpenClaw {runtime.version}", f" ({runtime.how})"
    exact_text = ""
    if exact_unavailable:
        exact_text = f"exact unavailable: {exact_unavailable}"
    elif exact is not None and exact.loading_model:
        exact_text = "model shown · loading OpenClaw…"
    elif exact is not None:
        exact_text = f"exact mode {exact.state}"
        if exact.drift is not None:
            exact_text += f" · model drift: {exact.drift or 'none'}"
    head = (f"[{' '.join(flags)}] " if flags else "") + f"{spawn_arrow(scenario, build)}"
    parts = [head, profile + how, exact_text, scenario.directive or "", str(workspace)]
    return fit_top(parts, width, how=how, home=home)


SEP = "  ·  "
WORKSPACE_MIN = 24
"""The workspace's path keeps this many characters at least, whatever else the line says."""


def fit_top(parts: list[str], width: int, *, how: str = "", home: str | None = None) -> str:
    """`parts` (the spawn, the runtime and `how` it was found, exact mode, the directive,
    the workspace; an empty one is left out) joined in `width` characters (0: any). The
    path keeps `WORKSPACE_MIN` characters at least: it is written with `~` for the home
    folder, then, while the line is too long, the runtime loses `how`, the directive, exact
    mode and the runtime their middle, and the path takes the room left, cut in the middle
    (12 characters at the very least)."""

    def line() -> str:
        return SEP.join(p for p in parts if p)

    if not width or len(line()) <= width:
        return line()
    workspace = home_path(parts[-1], home)
    least = min(len(workspace), WORKSPACE_MIN)
    parts[-1] = workspace[:least]

    def over() -> int:
        return len(line()) - width

    if over() > 0 and how and parts[1].endswith(how):
        parts[1] = parts[1][: -len(how)]
    for at, keep in ((3, 12), (2, 24)):
        if over() > 0 and parts[at]:
            parts[at] = middle(parts[at], max(keep, len(parts[at]) - over()))
    parts[-1] = middle_path(workspace, max(12, least - over()))
    if over() > 0:
        parts[1] = middle(parts[1], max(8, len(parts[1]) - over()))
    return line()


def status_line(
    *,
    build: Build | None,
    error: Diagnostic | None,
    exact: Exact | None = None,
    frozen: bool = False,
    watch_problem: Diagnostic | None = None,
    watch_bounded: bool = False,
    scripts_running: bool = False,
) -> Status:
    """The status line: the failed rebuild, else what is loading, else the build shown
    (number, time unless `frozen`, problems, the Rye check), the watcher and the scripts."""
    if error is not None:
        return Status(f"✗ {error}  — showing the last good build", error=True)
    if build is None:
        loading = exact is not None and exact.ready is None and not exact.failure
        if not loading or exact is None:
            return Status("building…")
        if exact.started:
            return Status(
                f"loading {exact.label} for exact mode: its first answer loads its modules "
                "(up to a minute when it compiles them the first time)…"
            )
        return Status(f"loading {exact.label} for exact mode (takes a few seconds)…")
    diags = build.diagnostics
    errors = sum(d.severity == "error" for d in diags)
    warnings = sum(d.severity == "warning" for d in diags)
    parts = [f"build #{build.number}"]
    if not frozen:
        parts.append(f"{build.duration_ms:.0f} ms")
    findings = sum(not f.info for f in build.findings)
    checking = ""
    if build.rye_pending:
        checking = ", building Rye…"
    elif build.check_pending:
        checking = ", checking the Rye space…"
    parts.append(
        f"{errors} error(s), {warnings} warning(s), {findings} check finding(s)"
        f"{checking} (7: Problems)"
    )
    spawn = build.report.spawn
    if watch_problem is not None:
        parts.append(
            "⚠ polling for changes"
            if watch_problem.severity == "warning"
            else "✗ not watching: r rebuilds"
        )
    if watch_bounded:
        parts.append("⚠ watching bounded (7: Problems)")
    if scripts_running:
        parts.append("⟳ scripts running…")
    elif spawn is not None and spawn.scripts.results and not spawn.trusted:
        parts.append(f"{len(spawn.scripts.results)} script(s) not run: untrusted (ctrl+t)")
    return Status("  ·  ".join(parts), warn=errors > 0)


def delta_text(before: Build, after: Build) -> str:
    """The strip above the panes: what the rebuild `after` changed since `before`, main
    then child."""
    edited = after.edited_since(before)
    main = delta_line(before.report.requester, after.report.requester, "main", edited)
    child = delta_line(before.child, after.child, "child", edited)
    if main == "main unchanged" and child in ("child unchanged", ""):
        return f"Δ build #{after.number}: no change in either prompt"
    return f"Δ build #{after.number}: {main}  │  {child}"


LOST_HINT = " (W: why, and remedies)"
_LOST_CUTS: list[tuple[str, dict[str, int]]] = [
    *((hint, {}) for hint in (LOST_HINT, " (W: why)")),
    *((" (W: why)", {"section": n}) for n in (6, 4, 3, 2, 1, 0)),
    *((" (W: why)", {"section": 0, "file": n}) for n in (3, 2, 1, 0)),
    *((" (W: why)", {"section": 0, "file": 0, "persona": n}) for n in (2, 1, 0)),
]
"""How a lost line too long for its lines gives way, in turn: the hint shortens; the
sections, then the other files, then the persona files name fewer (`… N more`)."""


def lost_text(build: Build, width: int = 0, lines: int = 2) -> str:
    """The line above the panes: what the subagent does not get ("" without a subagent),
    its files in the main session's load order. `width` (0: any): in at most `lines` lines
    of `width`, broken between words; a group too long names its first few, then `… N
    more`, so the figures always show."""
    if build.child is None:
        return ""
    main = build.report.requester
    order = {f.name: n for n, f in enumerate(main.files)}
    lost = sorted(  # files by load order; sections (gated) after them, as they come
        build.lost, key=lambda e: (e.status == "gated", order.get(e.item, len(order)))
    )
    tokens = lost_tokens(main, lost)
    text = lost_line(lost, LOST_HINT, tokens)
    if width <= 0 or len(text) <= width:
        return text
    for hint, most in _LOST_CUTS:
        wrapped = textwrap.wrap(lost_line(lost, hint, tokens, most), width)
        if len(wrapped) <= lines:
            return "\n".join(wrapped)
    return "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" …"))


def exact_notice(ins: Inspector) -> tuple[str, bool] | None:
    """After exact mode is toggled: (what to say, whether it is a warning): why it does not
    run, or that it runs; None when it is off."""
    failure = ins.exact_unavailable()
    if failure:
        return f"exact unavailable: {failure}", True
    if ins.exact is not None:
        return f"exact mode on: {ins.exact.label}", False
    return None


def unknown_mark(build: Build, agent_id: str) -> str:
    """`? unknown agent` when the agent is not in `agents.list` (it gets the defaults); the
    pane's key, beside it, names the agent."""
    return "? unknown agent" if unknown_agent(build.inputs, agent_id) else ""


def child_notice(build: Build, *, scripts_running: bool = False) -> str:
    """The line above the subagent's prompt: scripts still running, or a forbidden spawn."""
    spawn = build.report.spawn
    if scripts_running:
        return "⟳ context scripts running… the task below does not include their output yet"
    if spawn is not None and not spawn.policy.allowed:
        return (
            f"✗ spawn forbidden: {spawn.policy.error}. Shown: what the child would have received."
        )
    return ""


def child_extra(build: Build) -> str:
    """Beside the subagent pane's key: the agent an override chose, or no subagent."""
    spawn = build.report.spawn
    if spawn is not None and spawn.target_agent_id != spawn.requested_target:
        return f"target {spawn.target_agent_id}"
    return "no subagent" if build.child is None else ""


def child_alarm(build: Build) -> str:
    """The subagent pane's alarms: a forbidden spawn, an unknown agent."""
    spawn, child = build.report.spawn, build.child
    forbidden = "✗ spawn forbidden" if spawn is not None and not spawn.policy.allowed else ""
    unknown = unknown_mark(build, child.agent_id) if child is not None else ""
    return " ".join(a for a in (forbidden, unknown) if a)


@dataclass(frozen=True)
class ThreadHeader:
    """The main pane's header in the Rye view."""

    directive: str
    line: str
    """Profile, system tier, sizes and tools."""
    alarm: str
    used: int
    """Tokens: system message, first message parts, tool palette."""


def thread_header(thread: ThreadReport) -> ThreadHeader:
    tier = "stand-in system tier" if thread.system_stand_in else "installed ryeos"
    used = (
        thread.tokenizer.count(thread.system_message)
        + sum(p.tokens for p in thread.parts)
        + thread.palette.used_tokens
    )
    return ThreadHeader(
        thread.directive,
        f"{thread.profile.name} · {tier} · system {len(thread.system_message):,} ch · "
        f"first message {len(thread.first_message):,} ch · "
        f"{len(thread.palette.registered)} tools",
        "⛔ not started" if thread.refused else "",
        used,
    )
