"""The Rye view (`R`) stands alone: no OpenClaw subagent beside it, no diff or link marks,
opened at its start, a token bar in its header, headings in the heading colour."""

from __future__ import annotations

from pathlib import Path

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.chain_panel import ChainTree
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


async def test_the_chain_panel_says_why_an_item_is_not_loaded(workspace: Path) -> None:
    """An item whose signature ryeos would not accept is listed as not loaded, with why;
    the panel says signatures are verified (ryeos's default) and how dev mode is had."""
    item = workspace / ".ai/knowledge/project/deploy/completion-checklist.md"
    item.write_text(item.read_text().split("\n", 1)[1])  # its signature line removed
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("6")
        await pilot.pause()
        tree = app.query_one(ChainTree)
        labels = [str(n.label) for n in tree.root.children]
        assert "signatures verified (RYE_DEV_MODE=1 for dev mode)" in labels[0]
        composed = next(n for n in tree.root.children if n.data and n.data["key"] == "composed")
        after = next(n for n in composed.children if str(n.label).startswith("after"))
        (line,) = [str(n.label) for n in after.children if "completion-checklist" in str(n.label)]
        assert "unverified" in line and "not loaded: unsigned" in line
