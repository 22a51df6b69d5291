"""Scripts and Overrides panels: context-script results, log lines, override candidates."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ctxscope.scripts import ScriptResult, ScriptsOutcome
from ctxscope.tui.build import Build
from ctxscope.tui.safe import safe
from ctxscope.tui.widgets.common import check_mark, color, status_text
from ctxscope.tui.widgets.tables import KeyedTable

SCRIPT_COLUMNS = (
    "script",
    "status",
    "ms",
    "chars",
    "position",
    "priority",
    "override",
    "output / error",
)


def _first_line(text: str | None, limit: int = 80) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _outcome(build: Build | None) -> ScriptsOutcome | None:
    spawn = build.report.spawn if build is not None else None
    return spawn.scripts if spawn is not None else None


class ScriptsPanel(Vertical):
    """Each context script: status, duration, output or error, and its log lines."""

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="scripts-banner", classes="panel-summary")
        yield KeyedTable(SCRIPT_COLUMNS, id="scripts-table")
        with VerticalScroll(id="scripts-detail-scroll"):
            yield Static(markup=False, id="scripts-detail")

    def show(self, build: Build, *, running: bool) -> None:
        self._build = build
        outcome = _outcome(build)
        banner = self.query_one("#scripts-banner", Static)
        if running:
            banner.update(
                Text(
                    "⟳ context scripts running… (the panes already show the rest)",
                    style=f"bold {color(self.app, 'ctx-heading')}",
                )
            )
        elif not build.trusted:
            banner.update(
                Text.assemble(
                    ("Workspace not trusted: ", f"bold {color(self.app, 'ctx-truncated')}"),
                    "context scripts are shown but not run. Press ",
                    ("ctrl+t", "bold"),
                    " to trust this workspace, its config and its script files.",
                )
            )
        else:
            banner.update(
                Text(
                    "Trusted workspace: scripts run before the spawn. Press r to run them again.",
                    style=color(self.app, "ctx-placeholder"),
                )
            )
        rows = []
        results: list[ScriptResult] = outcome.results if outcome is not None else []
        for r in results:
            waiting = running and r.status == "pending"
            status = (
                status_text(self.app, "running", "running…")
                if waiting
                else status_text(self.app, r.status, r.status)
            )
            detail = "" if waiting else r.output if r.status == "ok" else (r.error or r.summary)
            rows.append(
                (
                    r.id,
                    (
                        r.id,
                        status,
                        "" if waiting or not r.duration_ms else f"{r.duration_ms:,.0f}",
                        f"{r.chars:,}" if r.chars else "",
                        r.position,
                        f"{r.priority:g}",
                        r.override or "",
                        Text((_first_line(detail)), no_wrap=True, overflow="ellipsis"),
                    ),
                )
            )
        self.query_one(KeyedTable).set_rows(rows)
        if not results and not running:
            self.query_one("#scripts-detail", Static).update(
                "No context scripts for this requester "
                "(agents.defaults.subagents.contextScripts / agents.list[].subagents)."
                if not running
                else ""
            )
        else:
            self.show_detail(self.query_one(KeyedTable).current_key, outcome, running)

    def show_detail(
        self, key: str | None, outcome: ScriptsOutcome | None = None, running: bool = False
    ) -> None:
        outcome = outcome or _outcome(getattr(self, "_build", None))
        if outcome is None:
            return
        result = next((r for r in outcome.results if r.id == key), None)
        parts: list[Text] = []
        if result is not None:
            parts.append(Text(f"{result.id}  ({result.uri})", style="bold"))
            if not running:
                parts.append(Text(result.summary))
                if result.output:
                    parts.append(Text(result.output))
                if result.error:
                    parts.append(Text((result.error), style=color(self.app, "ctx-missing")))
                for line in result.log_lines:
                    parts.append(Text((line), style=color(self.app, "ctx-placeholder")))
        if outcome.log_lines and not running:
            parts.append(Text("log", style="bold"))
            parts += [
                Text((line), style=color(self.app, "ctx-placeholder")) for line in outcome.log_lines
            ]
        self.query_one("#scripts-detail", Static).update(safe(Group(*parts)))

    def on_keyed_table_highlighted(self, event: KeyedTable.Highlighted) -> None:
        self.show_detail(event.key)


class OverridesPanel(Vertical):
    """agentIdOverride candidates with ✓/✗, their priorities, and the winner."""

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="overrides-summary", classes="panel-summary")
        yield KeyedTable(("", "script", "agent", "priority", "reason"), id="overrides-table")

    def show(self, build: Build, *, running: bool) -> None:
        outcome = _outcome(build)
        summary = self.query_one("#overrides-summary", Static)
        table = self.query_one(KeyedTable)
        if outcome is None:
            summary.update(
                "⟳ waiting for the context scripts…" if running else "No spawn simulated."
            )
            table.set_rows([])
            return
        spawn = build.report.spawn
        assert spawn is not None
        if outcome.winner is not None:
            w = outcome.winner
            text = Text.assemble(
                ("winner: ", "bold"),
                (f"{w.script_id} → {w.agent_id}", f"bold {color(self.app, 'ctx-added')}"),
                f" (priority {w.priority:g}); spawning as {spawn.target_agent_id}, "
                f"requested {spawn.requested_target}",
            )
        elif outcome.candidates:
            text = Text(f"no valid candidate: spawning as {spawn.target_agent_id}")
        else:
            text = Text(
                f"no script proposed an agentIdOverride: spawning as {spawn.target_agent_id}"
            )
        summary.update(safe(text))  # ids from the config and the scripts' output
        table.set_rows(
            (
                f"{c.script_id}:{c.agent_id}",
                (
                    check_mark(self.app, c.valid),
                    c.script_id,
                    c.agent_id,
                    f"{c.priority:g}",
                    c.reason,
                ),
            )
            for c in outcome.candidates
        )
