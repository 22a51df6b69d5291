"""A prompt pane: a header (session key, mode, profile, model, token bar) over a PromptView."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.color import Color
from textual.containers import Vertical
from textual.geometry import Size
from textual.widget import Widget

from ctxscope.core.model import Session
from ctxscope.tui.safe import safe_text
from ctxscope.tui.widgets.bars import bar
from ctxscope.tui.widgets.prompt_view import PromptView


class PaneHeader(Widget):
    """Who the session is and how full its context window is."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "header--title",
        "header--key",
        "header--meta",
        "header--stale",
        "header--alarm",
        "header--summary",
        "bar--ok",
        "bar--high",
        "bar--over",
        "bar--empty",
    }

    DEFAULT_CSS = """
    PaneHeader { height: auto; }
    """

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = title
        self.session: Session | None = None
        self.stale = ""
        self.extra = ""
        self.alarm = ""
        self.summary = ""
        """A line under the bar: where the tokens go, what the subagent lacks."""
        self.tokens: tuple[int, int] | None = None
        self.lines: tuple[str, str] | None = None
        self.shown_title = title
        self._styles: dict[str, Style] = {}
        """Component styles as last worked out (each costs a walk of the ancestors)."""

    def show(
        self,
        session: Session | None,
        *,
        stale: str = "",
        extra: str = "",
        alarm: str = "",
        summary: str = "",
    ) -> None:
        """`alarm`: a short warning set beside the key (`✗ spawn forbidden`); `summary`: a
        line under the bar."""
        height = self._height()
        self.session, self.stale, self.extra, self.alarm = session, stale, extra, alarm
        self.summary = summary
        self.lines = None
        self.refresh(layout=self._height() != height)

    def show_lines(
        self,
        title: str,
        key: str,
        meta: str,
        *,
        alarm: str = "",
        tokens: tuple[int, int] | None = None,
    ) -> None:
        """Something other than a session (a Rye thread): a title, a key line, a meta line
        and, given `tokens` (used, window), a bar of the context window."""
        height = self._height()
        self.session, self.lines, self.alarm = None, (key, meta), alarm
        self.tokens = tokens
        self.shown_title = title
        self.refresh(layout=self._height() != height)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def render(self) -> Text:
        width = max(20, self.size.width or 60)
        s = self.session
        title = Text(f" {self.title} ", style=self._style("header--title"))
        if self.lines is not None:
            key, meta = self.lines
            title = Text(f" {self.shown_title} ", style=self._style("header--title"))
            first = Text.assemble(title, " ", Text(key, style=self._style("header--key")))
            if self.alarm:
                first.append("  ")
                first.append(self.alarm, style=self._style("header--alarm"))
            second = Text(meta, style=self._style("header--meta"))
            first, second = safe_text(first), safe_text(second)
            shown = [first, second]
            if self.tokens is not None:
                styles = {k: self._style(f"bar--{k}") for k in ("ok", "high", "over", "empty")}
                shown.append(bar(*self.tokens, width, styles, unit=" ≈tok"))
            for line in shown:
                line.truncate(width, overflow="ellipsis")
            return Text("\n").join(shown)
        if s is None:
            line = Text.assemble(
                title, " ", Text(self.extra or "no session", style=self._style("header--meta"))
            )
            return safe_text(line)
        line1 = Text.assemble(title, " ")
        for said, style in ((self.stale, "header--stale"), (self.alarm, "header--alarm")):
            if said:  # before the key (which may be cut): it must show at any width
                line1.append(said, style=self._style(style))
                line1.append(" ")
        line1.append(s.session_key, style=self._style("header--key"))
        meta = f"{s.prompt_mode} · {s.profile} · {s.model or 'default model'}{request_split(s)}"
        if self.extra:
            meta += f" · {self.extra}"
        line2 = Text(meta, style=self._style("header--meta"))
        styles = {k: self._style(f"bar--{k}") for k in ("ok", "high", "over", "empty")}
        line3 = bar(s.tokens.total, s.context_window, width, styles, unit=" ≈tok")
        line1, line2 = safe_text(line1), safe_text(line2)
        lines = [line1, line2, line3]
        if self.summary:
            lines.append(Text(self.summary, style=self._style("header--summary")))
        for line in lines:
            line.truncate(width, overflow="ellipsis")
        return Text("\n").join(lines)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._height()

    def _height(self) -> int:
        """Lines shown: the screen is laid out again only when this changes."""
        if self.lines is not None:
            return 2 + (self.tokens is not None)
        return (3 + bool(self.summary)) if self.session is not None else 1


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def request_split(session: Session) -> str:
    """` · prompt 8.3k + tools 2.2k + msgs 113`: where the bar's tokens (the whole request)
    go; empty when the request is not known."""
    if session.wire is None:
        return ""
    t = session.tokens
    return f" · prompt {_k(t.system)} + tools {_k(t.tools)} + msgs {_k(t.messages)}"


class PromptPane(Vertical):
    """Header + prompt view for one session."""

    def __init__(self, title: str, *, id: str) -> None:
        super().__init__(id=id, classes="pane")
        self.title = title

    def compose(self) -> ComposeResult:
        yield PaneHeader(self.title, id=f"{self.id}-header")
        yield PromptView(id=f"{self.id}-view")

    # The focused pane's border is the theme's primary colour. Set inline rather than by a
    # `:focus-within` rule: Textual re-applies the stylesheet to a whole subtree when such a
    # rule's state changes, and the header's and the view's styled parts made every Tab
    # between the panes cost 10-20 ms of restyling for one border colour.
    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._mark())

    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)

    def on_descendant_focus(self, _event: events.DescendantFocus) -> None:
        self._mark()

    def on_descendant_blur(self, _event: events.DescendantBlur) -> None:
        self.call_after_refresh(self._mark)  # the focus may move within the pane

    def _mark(self) -> None:
        if self.has_focus_within:
            self.styles.border = ("round", Color.parse(self.app.theme_variables["primary"]))
        else:  # back to the stylesheet's border
            for side in ("top", "right", "bottom", "left"):
                self.styles.clear_rule(f"border_{side}")
            self.refresh()

    @property
    def header(self) -> PaneHeader:
        return self.query_one(PaneHeader)

    @property
    def view(self) -> PromptView:
        return self.query_one(PromptView)
