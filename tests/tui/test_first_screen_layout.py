"""A prompt view's first layout (the app's first frame) covers its first screen only and
shows no scrollbar thumb, whose length is not known yet; the rest is laid out once that
frame is drawn, and anything that needs a block further down lays it out at once."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from ctxscope.tui.render import Block
from ctxscope.tui.widgets.prompt_view import PromptView

BLOCKS = [
    Block(f"file:F{i}.md", f"## F{i}.md", "1 ch ≈1 tok", "\n".join(f"line {n}" for n in range(30)))
    for i in range(20)
]


class OneView(App[None]):
    CSS = "PromptView { scrollbar-gutter: stable; scrollbar-size-vertical: 1; }"  # as the app's

    def compose(self) -> ComposeResult:
        yield PromptView(id="view")


def first_layout(view: PromptView) -> None:
    """Lay `view` out as its first resize does the first time (it has a size already)."""
    view._laid_out = False
    view._lines = None
    view._relayout()


@contextlib.asynccontextmanager
async def laid_out() -> AsyncIterator[tuple[Pilot[None], PromptView]]:
    """A view showing `BLOCKS`, laid out whole (its first layout has been completed)."""
    app = OneView()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(PromptView)
        view.set_blocks(BLOCKS)
        await pilot.pause()
        yield pilot, view


async def test_the_first_layout_is_the_first_screen_then_the_whole_text() -> None:
    async with laid_out() as (pilot, view):
        assert view._whole
        whole = [line.strip for line in view._lines or []]
        assert len(whole) == 20 * 31 and view.virtual_size.height == len(whole)
        first_layout(view)
        shown = [line.strip for line in view._lines or []]
        assert not view._whole
        assert view.scrollable_content_region.height <= len(shown) < len(whole)
        assert shown == whole[: len(shown)]
        assert view.virtual_size.height == 0  # no thumb yet
        await pilot.pause()  # the frame is drawn: the rest follows
        assert view._whole and view.virtual_size.height == len(whole)


async def test_a_block_past_the_first_screen_is_found_at_once() -> None:
    async with laid_out() as (_pilot, view):
        first_layout(view)
        assert not view._whole
        assert view.line_of("file:F19.md") == 19 * 31
        assert view._whole


OPENING = [
    Block(f"runtime:S{i}", f"## S{i}", "1 ch ≈1 tok", "\n".join(f"rule {n}" for n in range(10)))
    for i in range(6)
] + BLOCKS


async def test_a_pane_not_yet_moved_opens_at_its_files_again_after_a_resize() -> None:
    """The pane opens with its first file a third of the way down; a resize before the user
    moves it (the screen's layout settling) places it by the same rule; once the user has
    scrolled, a resize keeps their top line."""
    app = OneView()
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(PromptView)
        view.set_blocks(OPENING)
        await pilot.pause()
        start = view.line_of("file:F0.md")
        assert start == 6 * 11
        assert round(view.scroll_y) == start - view.scrollable_content_region.height // 3
        await pilot.resize_terminal(80, 18)
        await pilot.pause()
        assert round(view.scroll_y) == start - view.scrollable_content_region.height // 3
        view.scroll_to(y=10, animate=False, immediate=True)  # the user's move
        await pilot.pause()
        await pilot.resize_terminal(80, 26)
        await pilot.pause()
        assert round(view.scroll_y) == 10
