"""Colours never mislead: in both themes no two categories of the context maps share a colour
(a file keeps its colour on both sides), missing is not lost, truncated is not changed."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.style import Style
from textual.color import Color

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.common import color
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for

APART = 20.0
"""The least CIE76 colour difference between two colours that must not be confused."""
APART_256 = 25.0
"""The same in 256 colours, where a colour is one of a coarse cube: two cubes apart in one
channel (`#5F5FD7` and `#5F5FAF`, the light theme's AGENTS.md and tool schemas there) are
23 apart and read as one blue."""


def _lab(c: Color) -> tuple[float, float, float]:
    def lin(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = lin(c.r), lin(c.g), lin(c.b)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def apart(a: str, b: str) -> float:
    return math.dist(_lab(Color.parse(a)), _lab(Color.parse(b)))


def _swatches(table: KeyedTable) -> dict[str, str]:
    """Legend row label → the colour its swatch is drawn in (lost rows left out)."""
    out = {}
    for key in table.keys:
        swatch, label = table.row(key)[:2]
        style = Style.parse(str(swatch.style)) if swatch.plain == "██" else None
        if style is not None and style.color is not None and label.plain != "free space":
            out[label.plain] = style.color.triplet.hex if style.color.triplet else ""
    return out


@pytest.mark.parametrize("theme", ["ctxscope-dark", "ctxscope-light"])
async def test_no_two_map_categories_share_a_colour(theme: str, workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True, theme=theme)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("8")
        await pilot.pause()
        main = _swatches(app.query_one("#map-main-legend", KeyedTable))
        child = _swatches(app.query_one("#map-child-legend", KeyedTable))
        assert len(main) >= 11
        assert {"AGENTS.md", "TOOLS.md", "tool schemas", "messages"} <= set(child)
        for label in set(main) & set(child):
            assert main[label] == child[label], f"{label} changes colour between the maps"
        every = {**main, **child}
        close = [
            (a, b, round(apart(every[a], every[b]), 1))
            for a, b in itertools.combinations(every, 2)
            if apart(every[a], every[b]) < APART
        ]
        assert close == [], f"{theme}: categories too alike: {close}"


@pytest.mark.parametrize("theme", ["ctxscope-dark", "ctxscope-light"])
async def test_no_two_map_categories_share_a_colour_in_256_colours(
    theme: str, workspace: Path
) -> None:
    """A terminal of 256 colours shows each colour as its nearest of the palette: the light
    theme's AGENTS.md and tool schemas were one blue there."""
    app = make_app(workspace, watch=False, frozen=True, theme=theme)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("8")
        await pilot.pause()
        every = {
            **_swatches(app.query_one("#map-main-legend", KeyedTable)),
            **_swatches(app.query_one("#map-child-legend", KeyedTable)),
        }
    shown = {label: _in_256(hex_) for label, hex_ in every.items()}
    assert {"AGENTS.md", "tool schemas"} <= set(shown)
    close = [
        (a, b, round(apart(shown[a], shown[b]), 1))
        for a, b in itertools.combinations(shown, 2)
        if apart(shown[a], shown[b]) < APART_256
    ]
    assert close == [], f"{theme} in 256 colours: categories too alike: {close}"


def _in_256(hex_: str) -> str:
    """The colour a 256-colour terminal shows for `hex_` (Rich's downgrade, as Textual's)."""
    shown = RichColor.parse(hex_).downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return shown.hex


@pytest.mark.parametrize("theme", ["ctxscope-dark", "ctxscope-light"])
async def test_missing_is_not_lost_and_truncated_is_not_changed(
    theme: str, workspace: Path
) -> None:
    app = make_app(workspace, watch=False, frozen=True, theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        view = app.query_one("#main-view")
        drawn = {
            name: str(view.get_component_rich_style(f"prompt--{name}").color.triplet.hex)  # type: ignore[union-attr]
            for name in ("heading-missing", "gutter-lost", "heading-truncated", "gutter-changed")
        }
        assert apart(drawn["heading-missing"], drawn["gutter-lost"]) >= APART, drawn
        assert apart(drawn["heading-truncated"], drawn["gutter-changed"]) >= APART, drawn
        assert apart(color(app, "ctx-missing"), color(app, "ctx-removed")) >= APART


@pytest.mark.parametrize("theme", ["ctxscope-dark", "ctxscope-light"])
async def test_the_selected_legend_row_keeps_its_swatch_colour(theme: str, workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True, theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("8")
        legend = app.query_one("#map-main-legend", KeyedTable)
        await wait_for(pilot, lambda: legend.row_count > 2, what="the legend")
        legend.focus()
        await pilot.press("j")
        await pilot.pause()
        key = legend.current_key
        assert key is not None
        wanted = Style.parse(str(legend.row(key)[0].style)).color
        drawn = [s for s in legend.render_line(1 + legend.cursor_row) if "██" in s.text]
        assert drawn and drawn[0].style is not None
        assert drawn[0].style.color == wanted, (drawn[0].style, wanted)
