"""The Rye view (`R`) stands alone: no OpenClaw subagent beside it, no diff or link marks,
opened at its start, a token bar in its header, headings in the heading colour."""

from __future__ import annotations

from pathlib import Path

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.keybar import KeyBar
from ctxscope.tui.widgets.pane import PromptPane
from tests.tui.conftest import wait_for


async def test_r_shows_the_thread_alone_at_its_start_with_a_token_bar(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        main = app.query_one("#main", PromptPane)
        main.view.focus()
        await pilot.press("G")  # the main session scrolled to its end
        assert main.view.scroll_y > 0
        await pilot.press("y")
        await pilot.pause()
        assert main.view.scroll_y == 0 and main.view.blocks[0].key.startswith("rye:")
        assert not app.query_one("#child", PromptPane).display
        assert not app.query_one("#lostbar").display
        header = str(main.header.render()).splitlines()
        assert header[0].startswith(" RYE THREAD ") and "≈tok" in header[2] and "█" in header[2]
        assert {b.heading_role for b in main.view.blocks} <= {"heading", "heading-missing"}
        await pilot.press("d", "l")
        assert not app.diff_mode  # diff compares the OpenClaw panes: off here
        keys = {k.display: k.enabled for k in app.query_one(KeyBar).keys}
        assert keys.get("d") is False and keys.get("l") is False
        top = str(app.query_one("#topbar").render())
        assert top.startswith("[rye thread] ") and "linked" not in top
        await pilot.press("y")
        await pilot.pause()
        assert app.query_one("#child", PromptPane).display
        assert app.query_one("#lostbar").display
