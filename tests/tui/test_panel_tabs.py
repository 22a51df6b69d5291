"""The panels' tab row: labels and the bar under the active one; a click or ←/→ chooses."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input

from ctxscope.tui.widgets.panel_tabs import PanelTabs

TABS = [("files", "1 Files"), ("scripts", "2 Scripts"), ("map", "3 Map")]


class TabsApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[str] = []

    def compose(self) -> ComposeResult:
        yield PanelTabs(TABS, active="files")
        yield Input()

    def on_panel_tabs_chosen(self, event: PanelTabs.Chosen) -> None:
        self.chosen.append(event.name)
        self.query_one(PanelTabs).active = event.name


def lines(tabs: PanelTabs) -> tuple[str, str]:
    top, bar = (tabs.render_line(y) for y in (0, 1))
    return "".join(s.text for s in top), "".join(s.text for s in bar)


def colour_at(tabs: PanelTabs, y: int, x: int) -> str:
    at = 0
    for segment in tabs.render_line(y):
        if at <= x < at + len(segment.text):
            assert segment.style is not None and segment.style.color is not None
            return segment.style.color.name
        at += len(segment.text)
    raise AssertionError(f"no cell {x} on line {y}")


async def test_the_bar_marks_the_active_label_and_runs_to_the_edge() -> None:
    app = TabsApp()
    async with app.run_test(size=(40, 8)) as pilot:
        tabs = app.query_one(PanelTabs)
        await pilot.pause()
        top, bar = lines(tabs)
        assert top == " 1 Files  2 Scripts  3 Map ".ljust(40)
        # Under "2 Scripts" (cells 10-18): half-bar ends outside it, the bar in its colour.
        tabs.active = "scripts"
        top, bar = lines(tabs)
        assert bar == "━" * 9 + "╸" + "━" * 9 + "╺" + "━" * 20
        on, off = colour_at(tabs, 1, 12), colour_at(tabs, 1, 2)
        assert on != off and colour_at(tabs, 1, 9) == off and colour_at(tabs, 1, 19) == off
        assert colour_at(tabs, 0, 12) != colour_at(tabs, 0, 2)  # the active label is brighter


async def test_a_click_on_a_label_or_the_bar_chooses_that_tab() -> None:
    app = TabsApp()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.click(PanelTabs, offset=(12, 0))
        await pilot.click(PanelTabs, offset=(23, 1))
        await pilot.click(PanelTabs, offset=(35, 0))  # past the labels: nothing
        assert app.chosen == ["scripts", "map"]


async def test_left_and_right_step_through_the_tabs_while_focused() -> None:
    app = TabsApp()
    async with app.run_test(size=(40, 8)) as pilot:
        app.query_one(PanelTabs).focus()
        await pilot.press("right", "right", "right", "left")
        assert app.chosen == ["scripts", "map", "files", "map"]
        app.query_one(Input).focus()
        await pilot.press("right")
        assert len(app.chosen) == 4  # only while the tabs have focus


async def test_labels_wider_than_the_row_keep_the_active_one_in_view() -> None:
    app = TabsApp()
    async with app.run_test(size=(20, 8)) as pilot:
        tabs = app.query_one(PanelTabs)
        await pilot.pause()
        assert lines(tabs)[0] == " 1 Files  2 Scripts "
        tabs.active = "map"
        top, bar = lines(tabs)
        assert top == "s  2 Scripts  3 Map "
        assert bar.endswith("╸" + "━" * 5 + "╺") and len(bar) == 20
        await pilot.click(PanelTabs, offset=(16, 0))  # "Map", drawn where it now is
        assert app.chosen == ["map"]


async def test_the_label_under_the_mouse_is_lit_until_the_mouse_leaves() -> None:
    app = TabsApp()
    async with app.run_test(size=(40, 8)) as pilot:
        tabs = app.query_one(PanelTabs)
        dim = colour_at(tabs, 0, 12)
        await pilot.hover(PanelTabs, offset=(12, 0))
        await pilot.pause()
        lit = tabs.get_component_rich_style("panel-tabs--hover").color
        assert lit is not None and colour_at(tabs, 0, 12) == lit.name != dim
        await pilot.hover(Input)
        await pilot.pause()
        assert colour_at(tabs, 0, 12) == dim
