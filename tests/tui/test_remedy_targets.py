"""A remedy names the file the child actually reads, and following it changes the child."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Static

from ctxscope.tui.app import make_app
from tests.tui.conftest import wait_for

SIZE = (200, 50)


async def test_following_the_lost_line_remedy_changes_the_child(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        assert app.build is not None
        user = next(e for e in app.build.lost if e.item == "USER.md")
        move = next(r for r in user.remedies if r.startswith("Move what the subagent needs"))
        named = re.search(r"from its workspace: (.+)\.$", move)
        assert named, move
        first = named.group(1).split(", ")[0]
        assert first == "agents/coder/workspace/AGENTS.md"  # not the main workspace's
        target = workspace / first
        target.write_text(target.read_text() + "\nThe user's name is Ada.\n")
        app.rebuild()
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 2)
        await pilot.pause()
        assert app.build.child is not None
        assert "The user's name is Ada." in app.build.child.system_prompt
        strip = str(app.query_one("#deltabar", Static).render())
        assert "child unchanged" not in strip and "AGENTS.md +" in strip
