"""Pilot tests of the app: what a user sees after startup, edits, scenario changes, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static

from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.commands import app_commands
from ctxscope.tui.screens.scenario import ScenarioScreen
from ctxscope.tui.screens.why import WhyScreen
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.info_panels import BudgetsPanel
from ctxscope.tui.widgets.pane import PaneHeader, PromptPane
from ctxscope.tui.widgets.panel_tabs import PanelTabs
from ctxscope.tui.widgets.problems_panel import ProblemsPanel
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.tables import KeyedTable
from ctxscope.tui.widgets.text_lines import TextLines
from tests.tui.conftest import screen_layouts, settled, tree_digest, wait_for, watcher_ready

SIZE = (200, 50)


def views(app: CtxscopeApp) -> tuple[PromptView, PromptView]:
    return app.query_one("#main-view", PromptView), app.query_one("#child-view", PromptView)


def status(app: CtxscopeApp) -> str:
    return str(app.query_one("#statusbar", Static).render())


async def started(pilot, app: CtxscopeApp) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.build is not None, what="the first build")
    await pilot.pause()


async def test_startup_shows_both_prompts(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, child = views(app)
        assert "tooling" in main.block_keys()
        assert "## Tooling" in main.plain_text
        assert "file:MEMORY.md" in main.block_keys()
        # The truncation marker and the runtime placeholders are in the main pane.
        assert "[...truncated, read MEMORY.md for full content...]" in main.plain_text
        assert "⟦runtime text:" in main.plain_text
        # The child pane: minimal mode, the coder's own AGENTS.md, the first user message.
        assert "task" in child.block_keys()
        assert "[Subagent Task]: Review the open pull request" in child.plain_text
        assert "file:SOUL.md" not in child.block_keys()
        main_header = app.query_one("#main-header", PaneHeader)
        child_header = app.query_one("#child-header", PaneHeader)
        assert main_header.session is not None
        assert main_header.session.session_key == "agent:main:main"
        assert child_header.session is not None
        assert child_header.session.session_key.startswith("agent:coder:subagent:")
        assert child_header.session.prompt_mode == "minimal"
        rendered = str(main_header.render())
        assert "full · openclaw-2026.2 · anthropic/claude-sonnet-4-5" in rendered
        assert "/ 200,000 ≈tok" in rendered


async def test_files_panel_lists_every_candidate(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("1")  # the Map is the first panel: show Files
        table = app.query_one("#files-table", KeyedTable)
        rows = {k: table.row(k) for k in table.keys}
        assert str(rows["main:MEMORY.md"][2]) == "truncated"
        assert str(rows["child:SOUL.md"][2]) == "excluded"
        assert "the subagent allowlist of profile openclaw-2026.2" in str(rows["child:SOUL.md"][7])
        assert str(rows["main:memory/2026-11-20.md"][2]) == "not-injected"


async def test_tables_scroll_sideways_to_the_end_of_a_long_reason(workspace: Path) -> None:
    """At 100 columns the Files table's reasons run past the edge: → and End reach them."""
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await pilot.press("1")  # the Map is the first panel: show Files
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        table.move_cursor(table.index("main:MEMORY.md"))
        await pilot.pause()
        assert table.max_scroll_x > 0
        reason = str(table.row("main:MEMORY.md")[7])

        def drawn_row() -> str:
            row = table.cursor_row - round(table.scroll_y) + 1  # +1: the header line
            return "".join(seg.text for seg in table.render_line(row))

        assert "MEMORY.md" in drawn_row() and reason[-20:] not in drawn_row()
        await pilot.press("right", "right")
        await wait_for(pilot, lambda: table.scroll_x >= 2, what="a sideways step")
        await pilot.press("end")
        await wait_for(pilot, lambda: table.scroll_x == table.max_scroll_x, what="the far end")
        assert drawn_row().rstrip().endswith(reason[-20:])  # the whole reason, to its end
        await pilot.press("home")
        await wait_for(pilot, lambda: table.scroll_x == 0, what="back to the left")


async def test_real_file_edit_reaches_the_pane(workspace: Path) -> None:
    """A real write, picked up by the real watcher, changes the main pane."""
    app = make_app(workspace, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: app.watched, what="the watcher")
        await watcher_ready(pilot, app, workspace)
        await pilot.pause(0.3)
        main, child = views(app)
        soul = workspace / "SOUL.md"
        soul.write_text(soul.read_text() + "\nZEPHYR-7 is the new motto.\n")
        await wait_for(pilot, lambda: "ZEPHYR-7" in main.plain_text, what="the edit")
        # SOUL.md does not reach a subagent.
        assert "ZEPHYR-7" not in child.plain_text
    assert app.build is not None


async def test_a_watched_tool_edit_reaches_the_rye_palette(workspace: Path) -> None:
    """Once the watcher runs, rebuilds trust the tools folders it reports nothing about, and
    a real edit of a tool file (reported by the watcher) still reaches the palette."""
    app = make_app(workspace, watch=True)
    tools = workspace / ".ai" / "tools"
    feed = app.builder.inspector.snapshot.changes
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: feed.quiet(tools, feed.now()), what="the ready watcher")

        def kubectl() -> str:
            assert app.build is not None and app.build.report.thread is not None
            palette = app.build.report.thread.palette
            granted = palette.registered + palette.skipped  # fits the budget or not
            return next(t.description for t in granted if t.id.endswith("kubectl"))

        assert kubectl().startswith("Apply manifests")
        tool = tools / "project" / "deploy" / "kubectl.py"
        tool.write_text(tool.read_text().replace("Apply manifests", "Roll out manifests"))
        await wait_for(pilot, lambda: kubectl().startswith("Roll out"), what="the tool edit")


async def test_a_failed_rebuild_does_not_leave_the_kept_builds_check_unmade(
    workspace: Path,
) -> None:
    """A rebuild that fails before the last good build's Rye space check ran (it waits for
    a quiet moment) checks that build anyway: the status never stays at "checking"."""
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        assert app.build.check_pending  # its check comes after a quiet moment
        config = workspace / "openclaw.json"
        config.write_text(config.read_text().replace("contextTokens: 200000,", "contextTokens: ,"))
        app.rebuild()
        await wait_for(pilot, lambda: app.build_error is not None, what="the error")
        await pilot.press("7")
        panel = app.query_one(ProblemsPanel)
        await wait_for(pilot, lambda: "invalid JSON5" in panel.plain, what="the error shown")
        await wait_for(pilot, lambda: not app.build.check_pending, what="the kept build's check")
        await wait_for(pilot, lambda: "checking every" not in panel.plain, what="Problems")
        assert "invalid JSON5" in panel.plain and "ctxscope check:" in panel.plain


async def test_the_rye_space_check_follows_the_build_and_is_kept_while_quiet(
    workspace: Path,
) -> None:
    """The check of every project directive runs after a build is shown (on a large space it
    takes seconds); under the watcher, an edit outside the Rye space keeps its findings, an
    edit inside it checks again."""
    broken = workspace / ".ai" / "directives" / "project" / "broken.md"
    broken.write_text('# Broken\n\n```xml\n<directive name="broken" version="1">\n```\n')
    app = make_app(workspace, watch=True)
    feed = app.builder.inspector.snapshot.changes
    ai = workspace / ".ai"

    def chain_findings() -> list[str]:
        assert app.build is not None
        return [f.message for f in app.build.findings if f.kind == "chain"]

    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: feed.quiet(ai, feed.now()), what="the ready watcher")
        soul = workspace / "SOUL.md"
        for line in ("One more line.", "And another."):
            # The first edit after the watcher started checks again (what changed before it
            # ran is unknown); the next one keeps that check.
            before = app.build.number
            soul.write_text(soul.read_text() + f"\n{line}\n")
            await wait_for(pilot, lambda n=before: app.build.number > n, what="the SOUL.md rebuild")
            if line == "And another.":
                assert not app.build.check_pending  # kept, not redone
            await wait_for(pilot, lambda: not app.build.check_pending, what="the check")
            assert chain_findings()
            assert "broken.md" in " ".join(f.location for f in app.build.findings)
        number = app.build.number
        broken.unlink()
        await wait_for(pilot, lambda: app.build.number > number, what="the Rye rebuild")
        # Until the check is made the chain findings are absent, not cleared: wait for it.
        await wait_for(pilot, lambda: not app.build.check_pending, what="the check")
        await wait_for(pilot, lambda: not chain_findings(), what="the check without it")
        await pilot.press("7")
        panel = app.query_one(ProblemsPanel)
        await wait_for(
            pilot,
            lambda: "ctxscope check:" in panel.plain and "checking every" not in panel.plain,
            what="Problems",
        )
        assert "broken.md" not in panel.plain and "checking every" not in panel.plain


async def test_switching_target_agent_rebuilds_the_child(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        header = app.query_one("#child-header", PaneHeader)
        assert header.session is not None and header.session.agent_id == "coder"
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ScenarioScreen), what="editor")
        field = app.screen.query_one("#field-target")
        field.value = "main"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: header.session is not None and header.session.agent_id == "main",
            what="the new target",
        )
        _, child = views(app)
        # Spawned as main: the child now reads the main workspace's AGENTS.md.
        assert str(workspace / "AGENTS.md") in child.plain_text
        assert "main → main" in str(app.query_one("#topbar", Static).render())


async def test_palette_command_switches_target(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        names = {name: cb for name, _, cb in app_commands(app)}
        assert "Target agent: main" in names and "Export JSON" in names
        names["Target agent: main"]()
        header = app.query_one("#child-header", PaneHeader)
        await wait_for(
            pilot,
            lambda: header.session is not None and header.session.agent_id == "main",
            what="the new target",
        )


async def test_broken_config_keeps_last_good_view_until_fixed(workspace: Path) -> None:
    app = make_app(workspace, watch=True)
    config = workspace / "openclaw.json"
    good = config.read_text()
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: app.watched, what="the watcher")
        await watcher_ready(pilot, app, workspace)
        await pilot.pause(0.3)
        main, _ = views(app)
        before = main.plain_text
        config.write_text(good.replace("bootstrapMaxChars: 20000,", "bootstrapMaxChars: 20000,,"))
        await wait_for(pilot, lambda: app.build_error is not None, what="the error")
        assert app.build_error.path == str(config)
        assert app.build_error.line is not None
        assert f"{config}:{app.build_error.line}" in status(app)
        assert "showing the last good build" in status(app)
        assert main.plain_text == before
        assert "stale" in str(app.query_one("#main-header", PaneHeader).render())
        config.write_text(good)
        await wait_for(pilot, lambda: app.build_error is None, what="the fix")
        assert "stale" not in str(app.query_one("#main-header", PaneHeader).render())
        assert "error" not in status(app).split("·")[0]


async def test_panel_switching_by_keys(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert app.active_panel == "map"  # the first screen: where the tokens go
        await pilot.press("5")
        assert app.active_panel == "budgets"
        await pilot.press("p")
        assert app.active_panel == "chain"
        await pilot.press("2")
        assert app.active_panel == "scripts"
        banner = str(app.query_one("#scripts-banner", Static).render())
        assert "not trusted" in banner
        await pilot.press("6")
        tree = app.query_one(ChainTree)
        labels = [str(n.label) for n in tree.root.children]
        assert any(label.startswith("project/deploy/deploy_staging") for label in labels)
        assert labels[0].startswith("semantics: ryeos-0.1 (ryeos 0.1.30)")
        hooks = next(n for n in tree.root.children if n.data and n.data["key"] == "hooks")
        reasons = {str(h.label).split("  ")[0]: str(h.label) for h in hooks.children}
        assert "✓ thread_started project_deploy_rules" in reasons
        assert "loads nothing" in reasons["✗ thread_started ctx_directive_instruction"]
        assert "condition false" in reasons["✗ resolve_extends route_web_extends"]


async def test_theme_switching(workspace: Path) -> None:
    """`t` switches the theme, and the pane headers are drawn in its colours."""
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        header = app.query_one("#main-header", PaneHeader)

        def title_colour() -> object:
            return header.render().spans[0].style.bgcolor  # type: ignore[union-attr]

        assert app.theme == "ctxscope-dark"
        dark = title_colour()
        assert {"ctxscope-dark", "ctxscope-light"} <= set(app.ctx_themes)
        await pilot.press("t")
        await pilot.pause()
        assert app.theme == "ctxscope-light"
        assert app.theme_variables["ctx-missing"].upper() == "#A3137A"
        assert title_colour() != dark
        assert title_colour() == header.get_component_rich_style("header--title").bgcolor


async def test_broken_theme_file_is_reported_and_skipped(workspace: Path, config_dir: Path) -> None:
    themes = config_dir / "themes"
    themes.mkdir()
    (themes / "broken.yaml").write_text("name: broken\nprimary: [not, a colour\n")
    (themes / "nocolour.yaml").write_text("name: odd\nprimary: notacolour\n")
    (themes / "mine.yaml").write_text("name: mine\nprimary: '#336699'\ndark: true\n")
    app = make_app(workspace, watch=False, frozen=True, theme="mine")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert app.theme == "mine"
        assert len(app.theme_errors) == 2
        assert any("broken.yaml" in e for e in app.theme_errors)
        assert any("nocolour.yaml" in e and "not a colour" in e for e in app.theme_errors)
        # The stylesheet still works under a theme without ctxscope variables.
        assert views(app)[0].plain_text


async def test_export_json_markdown_svg(workspace: Path, export_dir: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True, export_dir=export_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("x")  # all four at once
        await pilot.pause()
    data = json.loads(app.last_export["json"].read_text())
    assert data["requester"]["session_key"] == "agent:main:main"
    assert data["child"]["task_message"].startswith("[Subagent Context]")
    assert data["spawn"]["policy"]["allowed"] is True
    assert data["thread"]["directive"]["id"] == "project/deploy/deploy_staging"
    assert app.last_export["json"].parent == export_dir
    markdown = app.last_export["md"].read_text()
    assert "# `agent:main:main`" in markdown and "## Policy checks" in markdown
    svg = app.last_export["svg"].read_text()
    assert svg.lstrip().startswith("<svg")
    assert "Quit" in svg and "Scenario" in svg  # the key bar is in the picture
    page = app.last_export["html"].read_text()
    assert page.count('<div class="grid">') == 2  # the context maps of both sessions
    assert "Policy checks" in page and app.last_export["html"].parent == export_dir


async def test_an_svg_exported_from_the_palette_has_the_key_bar(
    workspace: Path, export_dir: Path
) -> None:
    app = make_app(workspace, watch=False, frozen=True, export_dir=export_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"export", "space", *"svg")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "svg" in app.last_export, what="the SVG export")
    svg = app.last_export["svg"].read_text()
    assert "Quit" in svg and "Scenario" in svg
    assert "json" not in app.last_export  # only what was asked for


async def test_export_never_writes_into_the_workspace(
    workspace: Path, config_dir: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(workspace)
    before = tree_digest(workspace)
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("x")
        await pilot.pause()
    assert config_dir in app.last_export["json"].parents
    assert tree_digest(workspace) == before


async def test_workspace_is_byte_identical_after_a_session(workspace: Path) -> None:
    before = tree_digest(workspace)
    app = make_app(workspace, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        for key in ("d", "l", "2", "6", "5", "7", "1", "t", "z", "z"):
            await pilot.press(key)
        await pilot.pause(0.3)
    assert tree_digest(workspace) == before


async def test_diff_mode_marks_lost_and_gained(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("d")
        main, child = views(app)
        marks = {b.key: b.mark for b in main.blocks}
        assert marks["file:SOUL.md"] == "lost"
        assert marks["skills"] == "lost"
        child_marks = {b.key: b.mark for b in child.blocks}
        assert child_marks["lost:file:SOUL.md"] == "lost"
        assert child_marks["subagent_context"] == "gained"
        assert child_marks["file:AGENTS.md"] == "changed"
        # The subagent loses memory_search, memory_get (tool policy): a changed tool list.
        assert child_marks["tooling"] == "changed"
        # Stand-ins keep main's order: SOUL.md comes before TOOLS.md.
        keys = child.block_keys()
        assert keys.index("lost:file:SOUL.md") < keys.index("file:TOOLS.md")
        await pilot.press("d")
        assert not any(b.key.startswith("lost:") for b in child.blocks)


async def test_why_for_a_file(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("1")  # the Map is the first panel: show Files
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        table.move_cursor(table.index("main:SOUL.md"))
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why")
        screen = app.screen
        assert isinstance(screen, WhyScreen)
        assert screen.item == "SOUL.md"
        text = screen.text
        assert "✓ agent:main:main injected" in text
        assert "✗ agent:coder:subagent:" in text and "allowlist" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, WhyScreen)
        await pilot.press("up", "enter")  # Enter on a row asks the same question
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why (Enter)")
        assert isinstance(app.screen, WhyScreen) and app.screen.item == "AGENTS.md"


async def test_why_for_a_section_selected_in_the_pane(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        main.focus()
        main.select("skills", scroll=True)
        await pilot.press("enter")  # a runtime placeholder: the first Enter opens it
        assert "skills" in main.opened
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why")
        assert isinstance(app.screen, WhyScreen)
        text = app.screen.text
        assert "✓ agent:main:main placeholder" in text  # the runtime writes the intro
        assert "✗ agent:coder:subagent:" in text and "gated" in text
        assert "only in full mode" in text


async def test_scroll_and_selection_survive_a_rebuild(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        main.select("file:USER.md", scroll=True)
        await pilot.pause()
        top = main.scroll_y
        assert top > 0
        await pilot.press("6")
        tree = app.query_one(ChainTree)
        composed = next(n for n in tree.root.children if n.data and n.data["key"] == "composed")
        composed.expand()
        number = app.build.number if app.build else 0
        app.rebuild()
        await wait_for(
            pilot, lambda: app.build is not None and app.build.number > number, what="the rebuild"
        )
        await pilot.pause()
        assert main.scroll_y == top
        assert main.selected == "file:USER.md"
        composed = next(n for n in tree.root.children if n.data and n.data["key"] == "composed")
        assert composed.is_expanded


async def test_linked_scrolling_follows_sections(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, child = views(app)
        assert app.linked
        main.scroll_to(y=main.line_of("file:AGENTS.md"), animate=False, immediate=True)
        await pilot.pause()
        assert child.top_anchor() == ("file:AGENTS.md", 0)
        # A section the subagent lacks (its skills): it shows the next section it has.
        keys, theirs = main.block_keys(), child.block_keys()
        assert "skills" in keys and "skills" not in theirs
        nxt = next(k for k in keys[keys.index("skills") + 1 :] if k in theirs)
        main.scroll_to(y=main.line_of("skills") + 1, animate=False, immediate=True)
        await pilot.pause()
        assert child.top_anchor() == (nxt, 0)
        # Page keys move the view at once (no animation frames), and the other pane follows.
        main.focus()
        main.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        seen: list[int] = []
        main.watch(main, "scroll_y", lambda y: seen.append(round(y)), init=False)
        await pilot.press("pagedown")
        await pilot.wait_for_animation()
        assert seen == [main.scrollable_content_region.height]  # one step: no frames between
        await pilot.pause()
        assert child.scroll_y > 0
        await pilot.press("l")
        assert not app.linked
        where = child.top_anchor()
        main.scroll_to(y=main.line_of("file:USER.md"), animate=False, immediate=True)
        await pilot.pause()
        assert child.top_anchor() == where


async def test_workspace_deleted_and_recreated(workspace: Path, tmp_path: Path) -> None:
    import shutil

    backup = tmp_path / "backup"
    shutil.copytree(workspace, backup, symlinks=True)
    app = make_app(workspace, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: app.watched, what="the watcher")
        await watcher_ready(pilot, app, workspace)
        await pilot.pause(0.3)
        shutil.rmtree(workspace)
        await wait_for(pilot, lambda: app.build_error is not None, what="the missing workspace")
        assert "not found" in status(app)
        assert views(app)[0].plain_text  # the last good view stays
        shutil.copytree(backup, workspace, symlinks=True)
        (workspace / "SOUL.md").write_text("# SOUL\nBack again: QUOKKA.\n")
        await wait_for(
            pilot,
            lambda: app.build_error is None and "QUOKKA" in views(app)[0].plain_text,
            what="recovery",
        )


async def test_bracketed_user_text_is_shown_literally(tmp_path: Path, config_dir: Path) -> None:
    """Text that looks like Rich markup is user content: shown as-is, never interpreted."""
    ws = tmp_path / "odd"
    ws.mkdir()
    (ws / "SOUL.md").write_text("[/red] closing tag first, then [bold]unclosed and [link=x]\n")
    # skipBootstrap: absent files stay absent (no first-run template)
    (ws / "openclaw.json").write_text(
        "{ agents: { defaults: { skipBootstrap: true }, list: [ {id: 'main'} ] } }"
    )
    app = make_app(ws, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        assert "[/red] closing tag first, then [bold]unclosed" in main.plain_text
        # AGENTS.md is absent: its section carries the [MISSING] marker.
        assert "[MISSING] Expected at:" in main.plain_text
        block = next(b for b in main.blocks if b.key == "file:AGENTS.md")
        assert block.heading_role == "heading-missing"
        assert any(role == "missing" for _, _, role in block.spans)
        (ws / "openclaw.json").write_text("{ agents: [[[ }")
        app.rebuild()
        await wait_for(pilot, lambda: app.build_error is not None, what="the error")
        assert str(ws / "openclaw.json") in status(app)


async def test_a_failing_watcher_is_reported_and_polling_takes_over(
    workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The OS watcher fails as it does past inotify's limits: Problems and the status line say
    so, and a real edit still reaches the pane by polling."""
    import watchfiles

    from ctxscope.tui import watch

    def limited(*paths, force_polling=None, **kw):  # type: ignore[no-untyped-def]
        if not force_polling:
            raise OSError("OS file watch limit reached")
        return watchfiles.watch(*paths, force_polling=force_polling, **kw)

    monkeypatch.setattr(watch, "watch", limited)
    monkeypatch.setattr(watch, "POLL_FALLBACK_MS", 100)
    app = make_app(workspace, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: app.watch_problem is not None, what="the watch problem")
        assert "polling for changes" in status(app)
        await pilot.press("7")
        panel = app.query_one(ProblemsPanel)
        await wait_for(pilot, lambda: "watch limit reached" in panel.plain, what="Problems")
        main, _ = views(app)
        soul = workspace / "SOUL.md"
        soul.write_text(soul.read_text() + "\nPOLLED-9 is the new motto.\n")
        await wait_for(pilot, lambda: "POLLED-9" in main.plain_text, what="the polled edit")


async def test_the_running_app_calms_the_garbage_collector_once_shown(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from ctxscope.infra import tuning

    monkeypatch.setattr(tuning, "_state", {"on": False, "froze": False})

    before = gc.get_threshold()
    try:
        quiet = make_app(workspace, watch=False, frozen=True)  # tests share one process
        async with quiet.run_test(size=SIZE) as pilot:
            await started(pilot, quiet)
        assert gc.get_threshold() == before
        app = make_app(workspace, watch=False, frozen=True)
        app.calm_gc = True  # as `ctxscope` sets it
        async with app.run_test(size=SIZE) as pilot:
            await started(pilot, app)
            assert gc.get_threshold() == tuning.APP_THRESHOLDS
            assert gc.get_freeze_count() > 0  # what the first build left alive is frozen
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


async def test_a_click_on_a_tab_shows_its_panel_and_the_tabs_step_with_arrows(
    workspace: Path,
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        tabs = app.query_one(PanelTabs)
        label = "".join(s.text for s in tabs.render_line(0))
        await pilot.click(PanelTabs, offset=(label.index("5 Budgets") + 2, 0))
        await pilot.pause()
        assert app.active_panel == "budgets"
        assert app.query_one("#budgets").display and not app.query_one("#files").display
        assert "Tokens per session" in app.query_one("#budgets", BudgetsPanel).plain
        tabs.focus()
        await pilot.press("right")
        await pilot.pause()
        assert app.active_panel == "chain" and app.focused is tabs
        assert app.query_one(ChainTree).root.children  # shown, so drawn from the build


async def test_panel_keys_work_with_a_panel_table_focused(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("2")
        await pilot.pause()
        table = app.query_one("#scripts-table", KeyedTable)
        table.focus()
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
        assert app.active_panel == "files"
        await pilot.press("2")
        await pilot.pause()
        table.focus()
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        assert app.active_panel == "overrides"
        await pilot.press("2")
        await pilot.pause()
        table.focus()
        await pilot.pause()
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is not table and app.active_panel == "scripts"


async def test_problems_show_what_check_finds_and_why_marks_a_cut_file(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        # The sample's MEMORY.md is over the per-file limit: `ctxscope check` reports it.
        assert "check finding(s)" in status(app) and " 0 check finding" not in status(app)
        await pilot.press("7")
        panel = app.query_one(ProblemsPanel)
        await wait_for(pilot, lambda: "ctxscope check:" in panel.plain, what="Problems")
        assert "No problems found" not in panel.plain
        assert "truncated" in panel.plain and "MEMORY.md" in panel.plain
        await pilot.press("1")
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        table.move_cursor(table.index("main:MEMORY.md"))
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why")
        assert isinstance(app.screen, WhyScreen)
        assert "◐ agent:main:main truncated" in app.screen.text
        assert "✓ agent:main:main truncated" not in app.screen.text


def top(app: CtxscopeApp) -> str:
    return str(app.query_one("#topbar", Static).render())


async def test_a_forbidden_spawn_is_marked_and_the_top_bar_follows_an_override(
    workspace: Path,
) -> None:
    # The sample's main may spawn only coder: steward is forbidden.
    app = make_app(workspace, watch=False, frozen=True, overrides={"target": "steward"})
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        header = app.query_one("#child", PromptPane).header
        assert "✗ spawn forbidden" in str(header.render())
        assert "main → steward (unknown)  ✗ forbidden" in top(app)  # not in agents.list
    # Trusted, its context script moves the spawn to main, which is allowed.
    app = make_app(
        workspace, watch=False, frozen=True, overrides={"target": "steward"}, trusted=True
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: app.build is not None and not app.build.scripts_pending,
            what="the scripts' build",
        )
        await pilot.pause()
        assert "main → main (override; asked steward)" in top(app)
        assert "✗ forbidden" not in top(app)
        header = app.query_one("#child", PromptPane).header
        assert "✗ spawn forbidden" not in str(header.render())


async def test_budget_bars_fill_the_panel_and_keep_their_figures(workspace: Path) -> None:
    from ctxscope.tui.widgets.info_panels import BudgetsPanel

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("5")
        panel = app.query_one(BudgetsPanel)
        await wait_for(pilot, lambda: "Tokens per session" in panel.plain, what="Budgets")

        def main_bar() -> str:
            return next(line for line in panel.plain.splitlines() if "main ≈tokens" in line)

        assert main_bar().count("░") + main_bar().count("█") > 100  # the width of the screen
        assert "Bootstrap chars (child)" in panel.plain  # labels are not cut
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.2)
        assert "/ 200,000" in main_bar()  # the figures survive a narrower screen
        await pilot.press("t")  # another theme: still every row
        await pilot.pause(0.2)
        assert "/ 200,000" in main_bar() and "  total" in panel.plain


async def test_why_reads_at_100_columns_and_file_headings_keep_their_name(
    workspace: Path,
) -> None:
    import io

    from rich.console import Console

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        # A pane's file heading: the path is cut in the middle, the file name stays.
        line = next(
            "".join(seg.text for seg in strip)
            for strip, block in ((ln.strip, main.blocks[ln.block]) for ln in main._lines or [])
            if block.key == "file:AGENTS.md"
        )
        assert "AGENTS.md" in line and "…" in line
        await pilot.press("1")
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        table.move_cursor(table.index("main:SOUL.md"))
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="why")
        body = app.screen.query_one("#why-body", Static)
        console = Console(width=body.size.width, file=io.StringIO(), record=True)
        assert isinstance(app.screen, WhyScreen)
        console.print(app.screen._body())  # what the dialog draws, at its width
        lines = [ln.strip() for ln in console.export_text().splitlines() if ln.strip()]
        # The rule reads as a sentence (not squeezed a word per line beside the long key),
        # and the paths are whole (folded, never cut).
        assert any("subagent sessions get only AGENTS.md, TOOLS.md" in ln for ln in lines)
        assert str(workspace / "SOUL.md") in "".join(lines)


async def test_the_scenario_editor_fits_80x24_checks_numbers_and_edits_every_field(
    workspace: Path,
) -> None:
    from textual.widgets import Button, Input, Select

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ScenarioScreen), what="editor")
        screen = app.screen
        apply = screen.query_one("#apply", Button)
        assert apply.region.bottom <= 24 and apply.region.height > 0  # on screen
        target = screen.query_one("#field-target", Select)
        assert "coder" in [value for _, value in target._options]  # the configured agents
        depth = screen.query_one("#field-depth", Input)
        depth.value = "abc"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ScenarioScreen)  # not applied
        assert "not a whole number" in str(screen.query_one("#scenario-error", Static).render())
        assert app.focused is depth
        depth.value = "1"
        screen.query_one("#field-tools", Input).value = "read, exec"
        screen.query_one("#field-prompt_mode", Select).value = "minimal"
        last = screen.query_one("#field-profile", Select)
        last.focus()
        await wait_for(  # the form scrolls (animated) to the focused field
            pilot,
            lambda: last.region.bottom <= 24 and last.region.height > 0,
            what="the focused field scrolled into view",
        )
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: app.build is not None and app.build.report.scenario.depth == 1,
            what="the edited build",
        )
        sc = app.build.report.scenario
        assert sc.tools == ["read", "exec"] and sc.prompt_mode == "minimal"
        assert app.build.report.requester.prompt_mode == "minimal"


async def test_help_lists_every_key_and_colour(workspace: Path) -> None:
    from ctxscope.tui.screens.help import COLOURS, KEY_NAMES, HelpScreen

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        for binding in app.BINDINGS:
            first = binding.key.split(",")[0]  # type: ignore[union-attr]
            assert KEY_NAMES.get(first, first) in text
        for _, meaning in COLOURS:
            assert meaning.split(":")[0] in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help by f1")


async def test_the_delta_strip_says_what_a_rebuild_changed(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        strip = app.query_one("#deltabar", Static)
        assert str(strip.render()).strip() == ""  # nothing to compare with yet
        before = app.build.report.requester.tokens.total if app.build else 0
        soul = workspace / "SOUL.md"
        soul.write_text(soul.read_text() + "\n" + "More persona text. " * 200)
        app.rebuild()
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 2, what="#2")
        await pilot.pause()
        text = str(strip.render())
        after = app.build.report.requester.tokens.total
        assert "SOUL.md +3,801 ch" in text
        assert f"main {before:,} → {after:,} tok" in text
        assert "child unchanged" in text  # the subagent never reads SOUL.md
        app.rebuild()
        await wait_for(pilot, lambda: app.build is not None and app.build.number == 3, what="#3")
        await pilot.pause()
        assert "no change in either prompt" in str(strip.render())


async def test_r_shows_the_rye_thread_part_by_part_in_the_main_pane(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        assert app.build is not None and app.build.report.thread is not None
        await pilot.press("y")
        await pilot.pause()
        thread = app.build.report.thread
        headings = [b.heading for b in main.blocks]
        assert headings[0] == "system · rye/agent/core/Identity"
        assert "user · directive_prompt project/deploy/deploy_staging" in headings
        assert "user · hook_before project_deploy_rules → project/deploy/rules" in headings
        assert thread.first_message.split("\n")[0] in main.plain_text
        header = app.query_one("#main", PromptPane).header
        assert header.lines is not None and header.lines[0] == "project/deploy/deploy_staging"
        main.focus()
        main.select(main.blocks[0].key, scroll=True)
        assert app.current_item() == "rye/agent/core/Identity"  # what Why explains
        await pilot.press("y")
        await pilot.pause()
        assert main.blocks[0].heading == "(identity line)"


async def test_the_map_shows_where_tokens_go_and_what_the_subagent_lost(workspace: Path) -> None:
    from ctxscope.tui.widgets.map_panel import MapColumn

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("8")
        await pilot.pause()
        assert app.active_panel == "map"
        main_col = app.query_one("#map-main", MapColumn)
        child_col = app.query_one("#map-child", MapColumn)
        assert app.build is not None and app.build.child is not None
        main_tokens = {c.label: c.tokens for c in main_col.categories}
        assert sum(v for k, v in main_tokens.items() if k != "free space") == (
            app.build.report.requester.tokens.total
        )
        assert main_tokens["MEMORY.md"] > 0 and {"messages", "tool schemas"} <= {
            c.label for c in child_col.categories
        }
        legend = app.query_one("#map-child-legend", KeyedTable)
        rows = [legend.row(key) for key in legend.keys]
        lost = [str(r[1]) for r in rows if str(r[4]) == "lost"]
        # The minimal child gets AGENTS.md and TOOLS.md: every other file, and the skills, lost.
        assert lost == [
            "SOUL.md",
            "IDENTITY.md",
            "USER.md",
            "HEARTBEAT.md",
            "BOOTSTRAP.md",
            "MEMORY.md",
            "skills",
        ]
        grid = app.query_one("#map-child .map-grid", TextLines).text.plain
        assert "·" in grid  # the smaller session leaves cells empty on the shared scale
        table = app.query_one("#map-main-legend", KeyedTable)
        table.focus()
        table.move_cursor([c.label for c in main_col.categories].index("SOUL.md"))

        # The selected legend row's cells stand out; the other categories step back.
        def solid_colours() -> tuple[set[str], str]:
            drawn = app.query_one("#map-main .map-grid", TextLines).text
            cells = {
                str(s.style) for s in drawn.spans if set(drawn.plain[s.start : s.end]) == {"█"}
            }
            return cells, drawn.plain

        await wait_for(pilot, lambda: len(solid_colours()[0]) == 1, what="one category solid")
        solid, plain = solid_colours()
        assert "░" in plain
        # Moving along the legend redraws the grid in place: the screen is not laid out
        # (once the hidden panels, which lay it out when filled, are filled and laid out).
        await settled(pilot, app)
        with screen_layouts(app) as layouts:
            await pilot.press("down")
            await wait_for(pilot, lambda: solid_colours()[0] != solid, what="the next row's")
        assert not layouts
        await pilot.press("up")
        views(app)[0].focus()
        await wait_for(pilot, lambda: len(solid_colours()[0]) > 5, what="every category solid")
        assert "░" not in solid_colours()[1]  # every category drawn again
        table.focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        main_view, _ = views(app)
        assert main_view.selected == "file:SOUL.md" and app.focused is main_view
        await pilot.press("m")
        assert "-panel-max" in app.screen.classes and not app.query_one("#panes").display


async def test_the_lost_line_opens_reasons_and_remedies(workspace: Path) -> None:
    from ctxscope.tui.widgets.lost_line import LostLine

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        line = app.query_one("#lostbar", LostLine)
        text = str(line.render())
        assert text.startswith("Lost in the subagent (W: why, and remedies): persona ≈")
        assert " tok (SOUL.md, IDENTITY.md, USER.md); 3 files ≈" in text
        line.focus()
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the why dialog")
        why = app.screen
        assert isinstance(why, WhyScreen)
        assert "SOUL.md" in why.text and "→ Move what the subagent needs into AGENTS.md" in why.text
        await pilot.press("escape")
        await pilot.click("#lostbar")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the dialog again")


async def test_find_in_a_pane_moves_with_n_and_shift_n(workspace: Path) -> None:
    from ctxscope.tui.screens.search import SearchScreen

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        main.focus()
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), what="the prompt")
        await pilot.press(*"tool", "enter")
        await pilot.pause()
        assert main.query_text == "tool" and len(main.matches) > 2
        first = main.match_at
        block, start, end = main.matches[first]
        assert main.blocks[block].body[start:end].lower() == "tool"
        assert main.selected == main.blocks[block].key
        await pilot.press("n")
        assert main.match_at == first + 1
        await pilot.press("N")
        assert main.match_at == first
        await pilot.press("escape")
        assert main.query_text == "" and main.matches == []
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), what="the prompt")
        await pilot.press(*"zzqqxx", "enter")
        await pilot.pause()
        assert main.matches == []


async def test_c_and_shift_c_copy_exact_text_to_the_clipboard_and_a_file(
    workspace: Path, tmp_path: Path
) -> None:
    app = make_app(workspace, watch=False, frozen=True, export_dir=tmp_path / "out")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        main.focus()
        main.select("file:SOUL.md", scroll=True)
        await pilot.press("c")
        assert app.build is not None
        soul = app.build.report.requester.section("file:SOUL.md")
        assert soul is not None and app.clipboard == soul.text
        assert app.last_export["txt"].read_text() == soul.text
        await pilot.press("C")
        assert app.clipboard == app.build.report.requester.system_prompt
        assert app.last_export["txt"].read_text() == app.clipboard
        assert not any(p.is_relative_to(workspace) for p in app.last_export.values())


async def test_a_rebuild_marks_changed_sections_for_a_moment_and_files_keep_a_history(
    workspace: Path,
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        soul = workspace / "SOUL.md"
        for n in range(2):
            soul.write_text(soul.read_text() + f"\nOne more line of persona, edit {n}.\n" * (n + 1))
            number = app.build.number if app.build else 0
            app.rebuild()
            await wait_for(
                pilot,
                lambda n=number: app.build is not None and app.build.number > n,  # type: ignore[misc]
                what="rebuild",
            )
        await pilot.pause()
        marks = {b.key: b.mark for b in main.blocks}
        assert marks["file:SOUL.md"] == "changed"
        assert marks["file:AGENTS.md"] == ""  # only what changed
        await pilot.press("1")
        row = app.query_one("#files-table", KeyedTable).row("main:SOUL.md")
        spark = str(row[6])
        assert len(spark) == 3 and spark[0] < spark[1] < spark[2]  # growing over three builds
        await wait_for(
            pilot,
            lambda: {b.key: b.mark for b in main.blocks}["file:SOUL.md"] == "",
            timeout=10,
            what="the mark to fade",
        )


async def test_j_jumps_to_the_cut_and_v_shows_what_it_dropped(
    workspace: Path, export_dir: Path
) -> None:
    from ctxscope.tui.screens.cut import CutScreen

    app = make_app(workspace, watch=False, frozen=True, export_dir=export_dir)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        main.focus()
        await pilot.press("J")
        await pilot.pause()
        assert main.selected == "file:MEMORY.md"  # the sample's truncated file
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, CutScreen), what="the cut text")
        cut = app.screen
        assert isinstance(cut, CutScreen) and "MEMORY.md" in cut.title_text
        raw = (workspace / "MEMORY.md").read_text()
        assert cut.text and cut.text in raw  # a stretch of the file
        assert app.build is not None
        body = app.build.report.requester.file("MEMORY.md").body  # type: ignore[union-attr]
        assert cut.text[:200] not in body  # and not what the prompt kept
        await pilot.press("c")  # copy it out: the clipboard and a file
        await pilot.pause()
        assert app.clipboard == cut.text
        copied = app.last_export["txt"]
        assert copied.parent == export_dir and "cut-MEMORY.md" in copied.name
        assert copied.read_text(encoding="utf-8") == cut.text
        await pilot.press("escape")
        main.select("file:SOUL.md")
        await pilot.press("v")
        assert not isinstance(app.screen, CutScreen)  # nothing was cut there


async def test_the_focused_pane_has_the_primary_border_in_every_theme(workspace: Path) -> None:
    """The border marks the pane that has focus, follows Tab and a theme switch, and a
    focused prompt view needs no restyle: forcing one changes none of its styles."""
    from textual.color import Color

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, child = views(app)
        main_pane, child_pane = (
            app.query_one("#main", PromptPane),
            app.query_one("#child", PromptPane),
        )

        def border(pane: PromptPane) -> Color:
            return pane.styles.border_top[1]

        def primary() -> Color:
            return Color.parse(app.theme_variables["primary"])

        main.focus()
        await pilot.pause()
        assert border(main_pane) == primary() != border(child_pane)
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is child
        assert border(child_pane) == primary() != border(main_pane)
        old = primary()
        await pilot.press("t")  # another theme
        await pilot.pause()
        assert primary() != old and border(child_pane) == primary()
        before = (
            str(child.styles.css),
            {k: str(v.css) for k, v in child._component_styles.items()},
        )
        app.stylesheet.apply(child)
        after = (str(child.styles.css), {k: str(v.css) for k, v in child._component_styles.items()})
        assert after == before


async def test_moving_between_the_panes_redraws_neither_the_keys_nor_the_text(
    workspace: Path,
) -> None:
    """Tab between the panes changes no key and no wrapped line: the key bar keeps its keys,
    the panes keep their laid-out lines (rebuilding them stalled the frame) and the
    screen is not drawn whole; a theme switch still lays the text out again, in the new
    colours."""
    from ctxscope.tui.widgets.keybar import KeyBar

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, child = views(app)
        main.focus()
        await settled(pilot, app)  # a panel filled meanwhile would draw the screen whole
        keys = app.query_one(KeyBar).keys
        lines = main._lines
        assert keys and lines
        compositor = app.screen._compositor
        full_draws = []
        full_update = compositor.render_full_update
        compositor.render_full_update = (  # type: ignore[method-assign]
            lambda *a, **k: full_draws.append(1) or full_update(*a, **k)
        )
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is child
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is main
        assert app.query_one(KeyBar).keys is keys
        assert main._lines is lines
        assert not full_draws  # moving focus draws what it restyles, not the whole screen
        await pilot.press("t")  # another theme: new colours, so a new layout
        await pilot.pause()
        assert main._lines is not None and main._lines is not lines
        heading = next(line for line in main._lines if line.header)
        before = next(line for line in lines if line.header)
        assert heading.strip.text == before.strip.text
        assert next(iter(heading.strip)).style != next(iter(before.strip)).style  # new colours


async def test_a_section_edited_at_one_line_is_laid_out_as_if_from_scratch(
    workspace: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A long section edited in one line is re-wrapped at that line only, and the pane shows
    exactly what a fresh layout of the new text shows (styles and all)."""
    import dataclasses

    from ctxscope.tui.render import md_headings
    from ctxscope.tui.widgets import prompt_wrap

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        body = "\n".join(
            f"## Rule {i}\n" if i % 7 == 0 else f"line {i} " + "word " * (i % 40)
            for i in range(300)
        )
        long = dataclasses.replace(main.blocks[0], body=body, spans=md_headings(body))
        main.set_blocks([long, *main.blocks[1:]])
        edited_body = body.replace("line 150 ", "## line 150 grew " + "longer " * 30, 1)
        edited = dataclasses.replace(long, body=edited_body, spans=md_headings(edited_body))
        wrapped: list[str] = []
        real_wrap = prompt_wrap.wrap
        monkeypatch.setattr(
            prompt_wrap,
            "wrap",
            lambda text, width, console: (
                wrapped.append(text.plain) or real_wrap(text, width, console)
            ),
        )
        main.set_blocks([edited, *main.blocks[1:]])
        assert len(wrapped) == 1 and wrapped[0].startswith("## line 150 grew")
        shown = [(line.strip.text, [s.style for s in line.strip]) for line in main._lines or []]
        main._wrap_cache.clear()
        main._line_cache.clear()
        main._header_cache.clear()
        main._relayout()
        fresh = [(line.strip.text, [s.style for s in line.strip]) for line in main._lines or []]
        assert shown == fresh
        assert any(text.startswith("## line 150 grew") for text, _ in shown)


async def test_a_pane_that_grows_or_shrinks_keeps_its_scrollbar_without_a_screen_layout(
    workspace: Path,
) -> None:
    """A rebuild that only changes how many lines a pane has updates its scrollbar and its
    scroll range without laying the whole screen out; scrolled past the new end, the pane
    comes back to it."""
    import dataclasses

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        main, _ = views(app)
        # The hidden panels are filled once the app is idle, and each fill lays the screen out.
        await settled(pilot, app)
        first = main.blocks[0]
        rest = main.blocks[1:]
        longer = dataclasses.replace(first, body=first.body + "\nmore" * 400, spans=[])
        with screen_layouts(app) as layouts:
            main.set_blocks([longer, *rest])
            await pilot.pause()
        lines = len(main._lines or [])
        assert main.virtual_size.height == lines
        assert main.vertical_scrollbar.window_virtual_size == lines
        assert not layouts, "\n=====\n".join(map(str, layouts))
        main.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert main.scroll_y == main.max_scroll_y > 0
        shorter = dataclasses.replace(first, body=first.body + "\nmore" * 100, spans=[])
        with screen_layouts(app) as layouts:
            main.set_blocks([shorter])
            await pilot.pause()
        assert main.size.height < main.virtual_size.height == len(main._lines or []) < lines
        assert main.vertical_scrollbar.window_virtual_size == main.virtual_size.height
        assert main.scroll_y == main.max_scroll_y  # back at the new end
        assert not layouts, "\n=====\n".join(map(str, layouts))


async def test_the_background_threads_end_with_the_app(workspace: Path) -> None:
    """Builds, checks, script runs and the stores' reads run on threads of their own; once
    the app has gone they end (each held the app: an embedding program, or a test session,
    kept every app it ever ran)."""
    app = make_app(workspace, watch=True, state=str(workspace / "no-state"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        await pilot.press("9")  # the stores read too
        await wait_for(pilot, lambda: app.runs_reads > 0, what="the stores read")
    jobs = [app._builds, app._checks, app._script_runs, app._runs_reader, app._beside_jobs]
    threads = [job._thread for job in jobs if job._thread is not None]
    assert len(threads) >= 2  # the build and the stores' read, at least
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive(), thread.name
