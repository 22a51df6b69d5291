"""Both bundled themes keep text readable: every text colour ctxscope draws has a WCAG
contrast of at least 4.5 against the background it is drawn on."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import Color as RichColor
from textual.color import Color
from textual.widget import Widget
from textual.widgets import Static

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.pane import PaneHeader
from ctxscope.tui.widgets.prompt_view import PromptView
from tests.tui.conftest import wait_for

PROMPT = [
    "prompt--heading",
    "prompt--heading-truncated",
    "prompt--heading-missing",
    "prompt--heading-task",
    "prompt--metrics",
    "prompt--placeholder",
    "prompt--label",
    "prompt--notice",
    "prompt--gutter-lost",
    "prompt--gutter-gained",
    "prompt--gutter-changed",
]
HEADER = ["header--title", "header--key", "header--meta", "header--stale"]


def luminance(color: Color) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def textual(color: RichColor | None, fallback: Color) -> Color:
    if color is None:
        return fallback
    r, g, b = color.get_truecolor()
    return Color(r, g, b)


def pairs(widget: Widget, components: list[str]) -> list[tuple[str, Color, Color]]:
    """(component, text colour, background) as the widget draws them."""
    base = widget.rich_style
    background = textual(base.bgcolor, Color(0, 0, 0))
    out = []
    for name in components:
        style = widget.get_component_rich_style(name, partial=True)
        fg = textual(style.color, textual(base.color, Color(255, 255, 255)))
        out.append((name, fg, textual(style.bgcolor, background)))
    return out


@pytest.mark.parametrize("theme", ["ctxscope-dark", "ctxscope-light"])
async def test_every_text_colour_is_readable(theme: str, workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True, theme=theme)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.pause()
        assert app.theme == theme
        found = pairs(app.query_one("#main-view", PromptView), PROMPT)
        found += pairs(app.query(PaneHeader).first(), HEADER)
        for bar in ("#topbar", "#statusbar"):
            style = app.query_one(bar, Static).rich_style
            black, white = Color(0, 0, 0), Color(255, 255, 255)
            found.append((bar, textual(style.color, white), textual(style.bgcolor, black)))
        low = {name: round(contrast(fg, bg), 2) for name, fg, bg in found if contrast(fg, bg) < 4.5}
        assert low == {}, f"{theme}: contrast below 4.5: {low}"


@pytest.mark.parametrize("theme", ["ctxscope-dark", "ctxscope-light"])
async def test_map_colours_stand_out_and_apart(theme: str, workspace: Path) -> None:
    """Context-map cells are graphics: each category colour has WCAG contrast ≥ 3 against
    the panel background it is drawn on, and the file colours differ from one another."""
    from ctxscope.core.contextmap import FILE_COLOURS as FILE_VARS
    from ctxscope.core.contextmap import KIND_COLOUR as KIND_VAR

    app = make_app(workspace, watch=False, frozen=True, theme=theme)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("8")
        await pilot.pause()
        column = app.query_one("#map-main")
        background = textual(column.rich_style.bgcolor, Color(0, 0, 0))
        names = [*FILE_VARS, *(v for k, v in KIND_VAR.items() if k != "free")]
        colours = {n: Color.parse(app.theme_variables[n]) for n in names}
        low = {
            n: round(contrast(c, background), 2)
            for n, c in colours.items()
            if contrast(c, background) < 3
        }
        assert low == {}, f"{theme}: map colours below 3:1 against the background: {low}"
        assert len({colours[n].hex6 for n in FILE_VARS}) == len(FILE_VARS)
