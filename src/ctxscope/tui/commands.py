"""The command palette provider: every app action, plus one entry per target agent,
directive, profile, theme and panel."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from ctxscope.tui.app import CtxscopeApp

Command = tuple[str, str, Callable[[], object]]


class CtxscopeCommands(Provider):
    """Commands from `CtxscopeApp.palette_commands()`."""

    def _commands(self) -> list[Command]:
        app = cast("CtxscopeApp", self.app)
        return app.palette_commands()

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
