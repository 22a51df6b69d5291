"""The panel keys of the inspector: a number key, `p`, a click on a tab, `m` and `z`. A key
that shows a panel puts the focus in it (as k9s and lazygit do), so `j`/`k` move its rows,
Enter acts on the row and `o` opens its file at once; `z`, hiding the panels, hands the
focus back to the main pane."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

from textual.app import App
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import ContentSwitcher

from ctxscope.tui.commands import PANELS
from ctxscope.tui.widgets.panel_tabs import PanelTabs
from ctxscope.tui.widgets.panels import make_panel
from ctxscope.tui.widgets.prompt_view import PromptView


def first_focusable(chain: list[Widget], panel: Widget) -> Widget | None:
    """The first widget of the focus chain `chain` inside `panel` (None: it has none)."""
    return next((w for w in chain if w is panel or panel in w.ancestors), None)


class PanelActions(App[None]):
    """Panel switching and focus (mixed into `CtxscopeApp`)."""

    @property
    def active_panel(self) -> str:
        """The name of the panel on show (one of `PANELS`)."""
        return self.query_one(PanelTabs).active

    _panels_mounting: Awaitable[None] | None = None
    """The mount of the panels the screen was not composed with, once begun."""

    async def action_panel(self, name: str, *, focus: bool = True) -> None:
        await self.mount_panels()
        if not self.query("#panel-stack"):  # the app closed meanwhile
            return
        self._leave_panel()
        self.query_one(PanelTabs).active = name
        self.query_one("#panel-stack", ContentSwitcher).current = name
        self._refresh_panel(name)
        self.screen.remove_class("-zoomed")
        if focus:
            self.call_after_refresh(self.focus_panel)

    async def mount_panels(self) -> None:
        """Add the panels the screen was not composed with (only the first is: the first
        frame waits for none of the others), hidden, and wait until they are mounted."""
        if self._panels_mounting is None:
            found = self.query("#panel-stack")
            if not found:  # the app is closing
                return
            stack = found.first()
            have = {child.id for child in stack.children}
            missing = [make_panel(name, shown=False) for name in PANELS if name not in have]
            self._panels_mounting = stack.mount_all(missing)
        await self._panels_mounting

    def panel_ready(self, name: str) -> bool:
        """Whether panel `name` is mounted, its parts composed (see `mount_panels`)."""
        try:
            return self.query_one("#panel-stack").get_child_by_id(name).is_mounted
        except NoMatches:
            return False

    def focus_panel(self) -> None:
        """The focus on the panel on show: its table, tree or scroll (unless a dialog is up
        or the panel has nothing that takes focus)."""
        if not self.query("#panel-stack") or len(self.screen_stack) > 1:
            return
        panel = self.query_one(f"#{self.active_panel}")
        target = first_focusable(list(self.screen.focus_chain), panel)
        if target is not None:
            target.focus()

    def _leave_panel(self) -> None:
        """Move focus out of the panels before switching them: a focused widget in the panel
        being hidden would hand focus to whatever comes next, not to the panes."""
        focused = self.focused
        stack = self.query_one("#panel-stack", ContentSwitcher)
        if focused is not None and stack in focused.ancestors:
            self.query_one("#main-view", PromptView).focus()

    def action_zoom(self) -> None:
        """Hide or show the panels (more room for the panes on small terminals)."""
        self.screen.remove_class("-panel-max")
        self.screen.toggle_class("-zoomed")
        if self.screen.has_class("-zoomed"):
            self._leave_panel()

    def action_maximise_panel(self) -> None:
        """Let the panels take the screen (the panes hide), and back; maximised, the focus
        is in the panel."""
        self.screen.remove_class("-zoomed")
        self.screen.toggle_class("-panel-max")
        if self.screen.has_class("-panel-max"):
            self.call_after_refresh(self.focus_panel)
        else:
            self._leave_panel()

    async def action_next_panel(self) -> None:
        index = PANELS.index(self.active_panel) if self.active_panel in PANELS else -1
        await self.action_panel(PANELS[(index + 1) % len(PANELS)])

    if TYPE_CHECKING:  # the app's

        def _refresh_panel(self, name: str) -> None: ...
