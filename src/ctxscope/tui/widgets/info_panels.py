"""Policy and Budgets panels: read-only summaries drawn as Rich text."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll

from ctxscope.core.model import Session
from ctxscope.tui.build import Build
from ctxscope.tui.widgets.bars import BarRows, FitBar
from ctxscope.tui.widgets.common import check_mark, color
from ctxscope.tui.widgets.scrollbars import LightScrollBars
from ctxscope.tui.widgets.text_lines import RichLines


class _TextPanel(LightScrollBars, VerticalScroll):
    """A scrollable panel whose body is one renderable, laid out once per width."""

    def compose(self) -> ComposeResult:
        yield RichLines(classes="panel-body")

    def set_body(self, renderable: RenderableType) -> None:
        self._body = renderable
        self.query_one(RichLines).update(renderable)

    @property
    def plain(self) -> str:
        """The body as plain text (what a copy or a test reads)."""
        console = Console(width=max(self.size.width, 40), file=io.StringIO(), record=True)
        console.print(getattr(self, "_body", ""))
        return console.export_text()

    @property
    def bar_styles(self) -> dict[str, Style]:
        return {
            "ok": Style.parse(color(self.app, "ctx-budget-ok")),
            "high": Style.parse(color(self.app, "ctx-budget-high")),
            "over": Style.parse(color(self.app, "ctx-budget-over")),
            "empty": Style.parse(color(self.app, "ctx-section-rule")),
        }


class PolicyPanel(_TextPanel):
    """Spawn policy: depth, children, allowAgents checks; model and thinking rungs."""

    def show(self, build: Build, *, running: bool) -> None:
        spawn = build.report.spawn
        sc = build.report.scenario
        if spawn is None:
            self.set_body(
                "⟳ waiting for the context scripts…" if running else "No spawn simulated."
            )
            return
        pol = spawn.policy
        ok_style = f"bold {color(self.app, 'ctx-added')}"
        bad_style = f"bold {color(self.app, 'ctx-removed')}"
        lines: list[RenderableType] = [
            Text.assemble(
                ("sessions_spawn: ", "bold"),
                ("allowed", ok_style) if pol.allowed else ("forbidden", bad_style),
                f"   {sc.requester} → {spawn.target_agent_id}"
                + (
                    f" (requested {spawn.requested_target})"
                    if spawn.requested_target != spawn.target_agent_id
                    else ""
                ),
            ),
        ]
        if pol.error:
            lines.append(Text(pol.error, style=bad_style))
        table = Table.grid(padding=(0, 1))
        for check in pol.checks:
            table.add_row(
                check_mark(self.app, check.ok), Text(check.name, style="bold"), Text(check.detail)
            )
        lines += [Text(""), table, Text("")]
        rungs = Table.grid(padding=(0, 1))
        for label, resolved in (("model", spawn.model), ("thinking", spawn.thinking)):
            rungs.add_row(
                Text(label, style="bold"),
                Text(resolved.value or "(runtime default)"),
                Text(f"← {resolved.source}", style=color(self.app, "ctx-placeholder")),
            )
        lines.append(rungs)
        lines.append(Text(f"child session key: {spawn.child_session_key}"))
        lines.append(
            Text(
                f"caller depth {sc.depth} · active children {sc.active_children} · "
                f"trusted {'yes' if spawn.trusted else 'no'}",
                style=color(self.app, "ctx-placeholder"),
            )
        )
        self.set_body(Group(*lines))


class BudgetsPanel(_TextPanel):
    """Bars: per-session tokens, bootstrap chars per file and in total, Rye tool palette."""

    def show(self, build: Build) -> None:
        styles = self.bar_styles
        rows: list[tuple[Text, Text | FitBar]] = []

        def heading(text: str) -> None:
            rows.append((Text(text, style=f"bold {color(self.app, 'ctx-heading')}"), Text()))

        sessions: list[tuple[str, Session]] = [("main", build.report.requester)]
        if build.child is not None:
            sessions.append(("child", build.child))
        heading("Tokens per session")
        for side, s in sessions:
            rows.append((Text(f"{side} ≈tokens"), FitBar(s.tokens.total, s.context_window, styles)))
        lim = build.limits
        no_limit = " chars (no limit: the profile does not truncate)"
        for side, s in sessions:
            heading(f"Bootstrap chars ({side})")
            total = 0
            for f in s.files:
                if f.status in ("excluded", "not-injected"):
                    continue
                total += f.injected_chars
                raw = f.raw_chars if f.status == "truncated" else f.injected_chars
                rows.append(
                    (Text(f"  {f.name}"), FitBar(raw, lim.max_chars, styles, no_limit=no_limit))
                )
            rows.append(
                (Text("  total"), FitBar(total, lim.total_max_chars, styles, no_limit=no_limit))
            )
        thread: Any = build.report.thread
        if thread is not None:
            pal = thread.palette
            heading("Rye tool palette")
            rows.append(
                (Text("  palette ≈tokens"), FitBar(pal.used_tokens, pal.budget_tokens, styles))
            )
            rows.append(
                (
                    Text("  tools"),
                    Text(f"{len(pal.registered)} registered, {len(pal.skipped)} skipped"),
                )
            )
        self.set_body(BarRows(rows))
