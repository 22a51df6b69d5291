"""The command palette provider: every app action, plus one entry per target agent,
directive, profile, theme and panel."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from ctxscope.core.safetext import terminal_safe
from ctxscope.runtimes.profiles import bundled_profiles
from ctxscope.tui.widgets.panels import PANEL_WIDGETS

PANELS = tuple(PANEL_WIDGETS)
"""The side panels, in the order of their number keys."""


def panel_key(index: int) -> str:
    """The number key of the panel at `index` in `PANELS` (`1`…`9`, then `0`)."""
    return str((index + 1) % 10)


if TYPE_CHECKING:
    from ctxscope.tui.build import Build


class PaletteApp(Protocol):
    """What the palette offers of the app (`CtxscopeApp` is one)."""

    build: Build | None

    @property
    def available_themes(self) -> Mapping[str, object]: ...

    def action_edit_scenario(self) -> None: ...
    def action_toggle_diff(self) -> None: ...
    def action_pin_before(self) -> None: ...
    def action_toggle_link(self) -> None: ...
    def action_why(self) -> None: ...
    def action_trust(self) -> None: ...
    def action_rerun_scripts(self) -> None: ...
    def action_export(self, kind: str) -> None: ...
    def action_zoom(self) -> None: ...
    async def action_panel(self, name: str, *, focus: bool = True) -> None: ...
    def action_set_theme(self, name: str) -> None: ...
    def rebuild(self) -> None: ...
    def reset_edits(self) -> None: ...
    def set_scenario_field(self, name: str, value: Any) -> None: ...


Command = tuple[str, str, Callable[[], object]]


def _bind(fn: Callable[..., object], *args: Any) -> Callable[[], object]:
    return lambda: fn(*args)


def app_commands(app: PaletteApp) -> list[Command]:
    """Everything the command palette offers for the app's current state."""

    cmds: list[Command] = [
        (
            "Edit scenario",
            "target, task, label, model, depth, directive, profile",
            app.action_edit_scenario,
        ),
        ("Toggle diff mode", "mark what the subagent lost or gained", app.action_toggle_diff),
        (
            "Pin a before side",
            "a git revision, profile, config or scenario file: compare against it (B)",
            app.action_pin_before,
        ),
        ("Toggle linked scrolling", "scroll both panes together", app.action_toggle_link),
        (
            "Why is the selected item there?",
            "the same answer as `ctxscope explain`",
            app.action_why,
        ),
        ("Trust workspace scripts", "allow the context scripts to run", app.action_trust),
        (
            "Re-run context scripts",
            "forget cached results and run again",
            app.action_rerun_scripts,
        ),
        ("Export JSON", "the current build as JSON", lambda: app.action_export("json")),
        ("Export markdown", "the current build as markdown", lambda: app.action_export("md")),
        (
            "Export HTML page",
            "the build with its context maps, as one page",
            lambda: app.action_export("html"),
        ),
        ("Export SVG screenshot", "the screen as SVG", lambda: app.action_export("svg")),
        ("Zoom panes", "hide or show the panels", app.action_zoom),
        ("Rebuild now", "re-read the workspace and config", app.rebuild),
        (
            "Reset scenario edits",
            "back to ctxscope.yaml and the command line",
            app.reset_edits,
        ),
    ]
    return cmds + _state_commands(app)


def _state_commands(app: PaletteApp) -> list[Command]:
    """The palette's entries for what the app shows now: each panel, agent, directive,
    profile and theme."""
    cmds: list[Command] = []
    for name in PANELS:
        cmds.append(
            (f"Panel: {name.title()}", f"show the {name} panel", _bind(app.action_panel, name))
        )
    build = app.build
    for agent in build.agent_ids if build else []:
        cmds.append(
            (
                f"Target agent: {agent}",
                "spawn the subagent as this agent",
                _bind(app.set_scenario_field, "target", agent),
            )
        )
        cmds.append(
            (
                f"Requester agent: {agent}",
                "the agent calling sessions_spawn",
                _bind(app.set_scenario_field, "requester", agent),
            )
        )
    for directive in build.directives if build else []:
        cmds.append(
            (
                f"Directive: {directive}",
                "Rye directive for the Chain panel",
                _bind(app.set_scenario_field, "directive", directive),
            )
        )
    for profile in bundled_profiles():
        cmds.append(
            (
                f"Profile: {profile}",
                "runtime profile",
                _bind(app.set_scenario_field, "profile", profile),
            )
        )
    for theme in app.available_themes:
        cmds.append(
            (f"Theme: {theme}", "switch the colour theme", _bind(app.action_set_theme, theme))
        )
    return cmds


class CtxscopeCommands(Provider):
    """Commands from `app_commands()`."""

    def _commands(self) -> list[Command]:
        return app_commands(cast("PaletteApp", self.app))

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(_shown(name), callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(_shown(name)), callback, help=help_text)


def _shown(name: str) -> str:
    """A command's name as the palette shows it: the palette reads markup, and names hold
    agent ids and directives from the workspace (shown literally, control characters as
    stand-ins)."""
    return escape(terminal_safe(name))
