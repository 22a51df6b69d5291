"""The Tools panel (key 9): each pane's tools sent beside its prompt, by size, the ones Tool
Search defers, totals and where the sizes come from."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.tables import KeyedTable
from ctxscope.tui.widgets.tools_panel import ToolsPanel
from tests.tui.conftest import wait_for


def use_release(workspace: Path, tools: dict[str, object] | None = None) -> None:
    """The sample as OpenClaw 2026.9 runs it, with `tools` as the config's `tools`."""
    scenario = workspace / "ctxscope.yaml"
    scenario.write_text(
        scenario.read_text(encoding="utf-8") + "profile: openclaw-2026.9\n", encoding="utf-8"
    )
    if tools is not None:
        config = workspace / "openclaw.json"
        text = config.read_text(encoding="utf-8").rstrip()
        assert text.endswith("},\n}")  # JSON5: the last entry has a trailing comma
        config.write_text(text[:-1] + f"  tools: {json.dumps(tools)},\n}}\n")


def cells(table: KeyedTable, key: str) -> list[str]:
    return [c.plain for c in table.row(key)]


async def test_nine_shows_each_panes_tools_with_tool_search(workspace: Path) -> None:
    use_release(workspace)
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("0")
        await wait_for(pilot, lambda: app.active_panel == "tools", what="the Tools panel")
        table = app.query_one("#tools-table", KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the tools table")
        build = app.build
        assert build is not None and build.child is not None
        for side, session in (("main", build.report.requester), ("child", build.child)):
            request = session.wire
            assert request is not None and request.tool_search
            sent = [k for k in table.keys if k.startswith(f"{side}:") and k != f"{side}:(total)"]
            assert len(sent) == len(request.tools) + len(request.deferred)
            for tool in request.tools:
                row = cells(table, f"{side}:{tool.name}")
                assert row[2] == "visible"
                assert row[3:5] == [f"{tool.description_chars:,}", f"{tool.schema_chars:,}"]
            for name in request.deferred:
                assert cells(table, f"{side}:{name}")[2:5] == ["deferred", "–", "–"]
            total = cells(table, f"{side}:(total)")
            assert total[1] == f"total: {len(request.tools)} sent"
            assert total[2] == f"{len(request.deferred)} deferred"
            assert total[4] == f"{request.tool_schema_chars:,}"
        # The subagent never gets the openclaw tool; the main session does.
        assert "main:openclaw" in table.keys and "child:openclaw" not in table.keys
        summary = str(app.query_one("#tools-summary", Static).render())
        assert "main: " in summary and "child: " in summary and "Tool Search on" in summary
        assert "source: stand-in" in summary


async def test_without_tool_search_every_tool_is_sent(workspace: Path) -> None:
    use_release(workspace, {"toolSearch": False})
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await app.action_panel("tools")
        table = app.query_one(ToolsPanel).query_one(KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="the tools table")
        build = app.build
        assert build is not None
        request = build.report.requester.wire
        assert request is not None and not request.tool_search and not request.deferred
        main = [k for k in table.keys if k.startswith("main:") and k != "main:(total)"]
        assert len(main) == len(request.tools) > 40
        assert {cells(table, k)[2] for k in main} == {"sent"}
        assert "Tool Search off" in str(app.query_one("#tools-summary", Static).render())
