"""`w`, `W` and a click on the lost line: why an item is or is not in each session, asked
off the event loop, answered in a dialog."""

from __future__ import annotations

from textual import on

from ctxscope.tui.background import in_background, to_app
from ctxscope.tui.build import Build
from ctxscope.tui.build_flow import BuildFlow
from ctxscope.tui.pane_actions import item_for_key
from ctxscope.tui.screens.why import WhyScreen
from ctxscope.tui.widgets.lost_line import LOST, LostLine
from ctxscope.tui.widgets.map_panel import MapColumn
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.tables import KeyedTable


class WhyActions(BuildFlow):
    """The why actions of the inspector (mixed into `CtxscopeApp`)."""

    def action_why(self) -> None:
        item = self.current_item()
        if item is None:
            self.notify(
                markup=False,
                message="Select a section, file, script, knowledge item or tool first.",
                severity="warning",
                timeout=3,
            )
            return
        self.explain_item(item)

    def explain_item(self, item: str) -> None:
        if self.build is not None and item == LOST:
            self.push_screen(WhyScreen("lost in the subagent", self.build.lost))
        elif self.build is not None:
            self._why_worker(item, self.build)

    def action_why_lost(self) -> None:
        """`W`: what the subagent lacks, each with why and the remedies (the lost line's)."""
        if self.build is not None and self.build.child is not None:
            self.explain_item(LOST)

    @on(LostLine.Chosen)
    def _lost_chosen(self) -> None:
        self.explain_item(LOST)

    def _why_worker(self, item: str, build: Build) -> None:
        in_background("why", lambda: self._explain(item, build))

    def _explain(self, item: str, build: Build) -> None:
        answers = self.ctl.explain(item, build)
        to_app(self, self.push_screen, WhyScreen(item, answers))

    @on(PromptView.WhyRequested)
    def _why_from_view(self, message: PromptView.WhyRequested) -> None:
        self.explain_item(item_for_key(message.key))

    @on(KeyedTable.Selected)
    def _why_from_table(self, event: KeyedTable.Selected) -> None:
        self.explain_item(item_for_key(event.key))

    @on(ProblemsPanel.Chosen)
    def _problem_chosen(self, event: ProblemsPanel.Chosen) -> None:
        """Enter on a problem: a session file's section in its pane, and why; else what it
        says, whole, and where `o` opens."""
        target = event.target
        if target.side is not None and target.item is not None:
            view = self.query_one(f"#{target.side}", PromptPane).view
            key = f"file:{target.item}"
            if key in view.block_keys():
                view.select(key, scroll=True)
            self.explain_item(target.item)
            return
        where = f" — o opens {target.path}" + (f":{target.line}" if target.line else "")
        self.notify(markup=False, message=event.text + (where if target.path else ""), timeout=8)

    @on(MapColumn.Chosen)
    def _map_chosen(self, event: MapColumn.Chosen) -> None:
        """Enter on a map legend row: show that category's section in its pane (pinned: both
        columns are the pinned pane's session, before and now)."""
        side = self.pinned.pane if self.pinned is not None else event.side
        view = self.query_one(f"#{side}", PromptPane).view
        if event.section in view.block_keys():
            view.select(event.section, scroll=True)
            self.call_after_refresh(view.focus)
