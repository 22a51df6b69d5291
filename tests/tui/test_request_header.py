"""Both panes' headers count the whole request: prompt, tools and messages."""

from __future__ import annotations

from pathlib import Path

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.pane import PaneHeader
from tests.tui.conftest import wait_for


async def test_both_headers_show_the_whole_request(workspace: Path) -> None:
    config = workspace / "openclaw.json"
    # Tool Search off: the 55 tools' schemas dwarf the prompt.
    (workspace / "ctxscope.yaml").write_text(
        (workspace / "ctxscope.yaml").read_text(encoding="utf-8") + "profile: openclaw-2026.9\n",
        encoding="utf-8",
    )
    text = config.read_text(encoding="utf-8")
    assert text.rstrip().endswith("},\n}")  # JSON5: the last entry has a trailing comma
    config.write_text(text.rstrip()[:-1] + "  tools: { toolSearch: false },\n}\n")
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        for pane in ("main", "child"):
            header = app.query_one(f"#{pane}-header", PaneHeader)
            session = header.session
            assert session is not None and session.wire is not None
            rendered = str(header.render())
            t = session.tokens
            assert t.total == t.system + t.tools + t.messages
            assert t.tools > t.system  # the schemas are counted
            assert f" {t.total:,} / {session.context_window:,} ≈tok" in rendered
            assert " · prompt " in rendered and " + tools " in rendered, rendered
            assert " + msgs " in rendered
