"""The panels below the panes, by name: the app composes the first one with the
screen and adds the others once that screen is drawn (`PanelActions.mount_panels`)."""

from __future__ import annotations

from textual.widget import Widget

from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.files_panel import FilesPanel
from ctxscope.tui.widgets.info_panels import BudgetsPanel, PolicyPanel
from ctxscope.tui.widgets.map_panel import MapPanel
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.runs_panel import RunsPanel
from ctxscope.tui.widgets.scripts_panel import OverridesPanel, ScriptsPanel
from ctxscope.tui.widgets.tools_panel import ToolsPanel

PANEL_WIDGETS: dict[str, type[Widget]] = {
    "files": FilesPanel,
    "scripts": ScriptsPanel,
    "overrides": OverridesPanel,
    "policy": PolicyPanel,
    "budgets": BudgetsPanel,
    "chain": ChainTree,
    "problems": ProblemsPanel,
    "map": MapPanel,
    "runs": RunsPanel,
    "tools": ToolsPanel,
}
"""Each panel's widget by its name (its id in the app), in the order of the panels' number
keys (`tui.commands.PANELS` is this order)."""


def make_panel(name: str, *, shown: bool) -> Widget:
    """The widget of panel `name`, shown or hidden (the panel switcher shows one at a time)."""
    panel = PANEL_WIDGETS[name](id=name)
    panel.display = shown
    return panel
