"""LineScrollBar: the same bar as Textual's, laid out once per look, following the scroll."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.scrollbar import ScrollBar
from textual.widgets import Static

from ctxscope.tui.widgets.scrollbars import LightScrollBars, LineScrollBar

BODY = "\n".join(f"line {i}" for i in range(200))


class LightScroll(LightScrollBars, VerticalScroll):
    pass


class TwoScrolls(App[None]):
    CSS = "VerticalScroll { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll(id="plain"):
                yield Static(BODY)
            with LightScroll(id="light"):
                yield Static(BODY)


def cells(bar: ScrollBar) -> list[list[tuple[str, object]]]:
    region = bar.size.region
    return [[(s.text, s.style) for s in strip] for strip in bar.render_lines(region)]


async def test_the_bar_matches_textuals_and_follows_the_scroll() -> None:
    app = TwoScrolls()
    async with app.run_test(size=(60, 20)) as pilot:
        plain = app.query_one("#plain", VerticalScroll)
        light = app.query_one("#light", LightScroll)
        await pilot.pause()
        assert isinstance(light.vertical_scrollbar, LineScrollBar)
        assert type(plain.vertical_scrollbar) is ScrollBar
        assert light.vertical_scrollbar.display
        first = cells(light.vertical_scrollbar)
        assert first == cells(plain.vertical_scrollbar)
        for view in (plain, light):
            view.scroll_to(y=120, animate=False)
        await pilot.pause()
        moved = cells(light.vertical_scrollbar)
        assert moved != first  # the thumb moved down
        assert moved == cells(plain.vertical_scrollbar)


async def test_a_click_on_the_track_below_the_thumb_pages_down() -> None:
    app = TwoScrolls()
    async with app.run_test(size=(60, 20)) as pilot:
        light = app.query_one("#light", LightScroll)
        await pilot.pause()
        bar = light.vertical_scrollbar
        await pilot.click(bar, offset=(0, bar.size.height - 1))
        await pilot.pause()
        assert light.scroll_y > 0
