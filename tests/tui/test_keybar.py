"""The key bar: the focused widget's and the app's keys on one line, clickable."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from ctxscope.tui.widgets.keybar import KeyBar


class BarApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("d", "toggle", "Diff"),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("x", "hidden", "Hidden", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.toggled = 0

    def compose(self) -> ComposeResult:
        yield Input(id="box")
        yield KeyBar()

    def action_toggle(self) -> None:
        self.toggled += 1

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "help" else True  # shown, but disabled


def line(bar: KeyBar) -> str:
    return "".join(segment.text for segment in bar.render_line(0))


async def test_the_bar_shows_each_shown_action_once_and_the_palette_on_the_right() -> None:
    app = BarApp()
    async with app.run_test(size=(80, 5)) as pilot:
        bar = app.query_one(KeyBar)
        app.set_focus(None)
        await pilot.pause()
        text = line(bar)
        assert len(text) == 80
        assert text.startswith("q Quit ? Help d Diff ")  # help and quit first
        assert "Hidden" not in text and text.count("Help") == 1
        assert text.rstrip().endswith("▏^p palette") and text.endswith(" ")
        dim = next(s for s in bar.render_line(0) if s.text == "?")
        assert dim.style is not None and dim.style.dim  # disabled: drawn dim


async def test_a_narrow_bar_drops_whole_keys_and_keeps_help_and_the_palette_key() -> None:
    app = BarApp()
    async with app.run_test(size=(30, 5)) as pilot:
        app.set_focus(None)
        await pilot.pause()
        text = line(app.query_one(KeyBar))
        assert text.startswith("q Quit ? Help ") and "Di" not in text
        assert text.rstrip().endswith("▏^p palette")


async def test_a_very_narrow_bar_keeps_help_before_the_palette_key() -> None:
    app = BarApp()
    async with app.run_test(size=(16, 5)) as pilot:
        app.set_focus(None)
        await pilot.pause()
        text = line(app.query_one(KeyBar))
        assert text.startswith("q Quit ? Help") and "palette" not in text


async def test_the_keys_follow_focus_and_a_click_presses_a_key() -> None:
    app = BarApp()
    async with app.run_test(size=(80, 5)) as pilot:
        bar = app.query_one(KeyBar)
        app.set_focus(None)
        await pilot.pause()
        without = bar.keys
        app.query_one(Input).focus()
        await pilot.pause()
        assert bar.keys != without  # the input's own keys (those it shows) come in first
        app.set_focus(None)
        await pilot.pause()
        assert bar.keys == without
        x = line(bar).index("Diff")
        await pilot.hover(KeyBar, offset=(x, 0))
        await pilot.pause()
        hover = bar.get_component_rich_style("key-bar--hover").bgcolor
        lit = {s.text.strip() for s in bar.render_line(0) if s.style and s.style.bgcolor == hover}
        assert lit == {"d", "Diff"}  # the key under the pointer, and only it
        await pilot.click(KeyBar, offset=(x, 0))
        await pilot.pause()
        assert app.toggled == 1
        await pilot.click(KeyBar, offset=(line(bar).index("Help"), 0))  # disabled: nothing
        await pilot.click(KeyBar, offset=(line(bar).index("palette") - 8, 0))  # a gap
        await pilot.pause()
        assert app.toggled == 1 and app.screen is app.screen_stack[0]
