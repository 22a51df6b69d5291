"""Escape sequences in a workspace never reach the terminal from the app.

The workspace of `tests.tui.hostile` carries an OSC 52 ("write the clipboard") sequence in
its folder name, a memory note's name, a context script's id and uri, a hook's name and a
trusted script's stdout, stderr and JSON error; and OSC 0 ("set the window title") in its
folder name. In a real terminal (tmux, with `set-clipboard on`) the app must leave the
clipboard and the title alone with every panel drawn, and show each sequence as visible
stand-ins. The Pilot tests check the same for each panel and dialog, on exactly what the app
would write to the terminal for its screen."""

from __future__ import annotations

import re
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.widgets import Static

from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.screens.trust import TrustScreen
from ctxscope.tui.screens.why import WhyScreen
from ctxscope.tui.widgets.chain_panel import ChainTree
from ctxscope.tui.widgets.prompt_view import PromptView
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for
from tests.tui.hostile import TITLE, WAYS_IN, hostile_workspace, osc52, shown
from tests.tui.tmux import Tmux, needs_tmux

SIZE = (200, 50)
RAW = re.compile("\x1b[^\\[]|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]")
"""What Textual itself never writes: an escape that does not start a CSI sequence (colours,
cursor moves), and any other control character."""


def drawn(app: App[None]) -> str:
    """What the app writes to the terminal to draw its whole screen (dialogs over it)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    assert update is not None
    return str(update.render_segments(app.console))  # type: ignore[attr-defined]


def views_text(app: CtxscopeApp) -> str:
    return "\n".join(view.plain_text for view in app.query(PromptView))


def assert_safe(out: str, *ways_in: str) -> None:
    """`out` carries no raw control sequence, and shows each way in's stand-ins."""
    leak = RAW.search(out)
    assert leak is None, f"raw control character in the output: {out[leak.start() - 40 :][:80]!r}"
    for way_in in ways_in:
        assert shown(way_in) in out, f"{way_in}: no visible stand-in"


async def settled(pilot, app: CtxscopeApp) -> None:  # type: ignore[no-untyped-def]
    """The first build shown, and the trusted scripts' results in it."""
    await wait_for(pilot, lambda: app.build is not None, what="the first build")
    await wait_for(pilot, lambda: not app.scripts_running, what="the context scripts")
    await pilot.pause()


@needs_tmux
def test_no_clipboard_write_nor_title_in_a_real_terminal(tmp_path: Path) -> None:
    ws = hostile_workspace(tmp_path)
    term = Tmux(tmp_path / "tmux", "tui", str(ws), "--trust", "--no-watch")
    try:
        term.wait_for(lambda s: "MAIN" in s, "the first screen")
        term.press("1")  # the Files panel (the Map comes first)
        term.wait_for(lambda s: shown("file") in s, "the Files panel")
        term.wait_for(lambda s: "scripts running" not in s and "build #" in s, "the scripts")
        screens = [term.screen()]
        term.press("/")  # find the hostile line of AGENTS.md in the main pane
        term.wait_for(lambda s: "Find in the main pane" in s, "the search box")
        term.press("-l", "Really")
        term.press("Enter")
        screens.append(
            term.wait_for(
                lambda s: shown("text") in s and "Find in the main pane" not in s,
                "AGENTS.md in the pane, the search box closed",
            )
        )
        term.press("m")  # the panels take the screen: every row and line is drawn
        term.press("2")  # Scripts: ids, outputs and errors
        scripts = ("scriptid", "scripturi", "stdout", "stderr", "jsonerr")
        screens.append(  # the table fills row by row: every script's row drawn
            term.wait_for(lambda s: all(shown(w) in s for w in scripts), "the Scripts panel")
        )
        term.press("7")  # Problems: the hook's name
        screens.append(term.wait_for(lambda s: shown("hook") in s, "the Problems panel"))
        term.press("C-t")  # trusted: the dialog offers to revoke, listing the scripts
        screens.append(term.wait_for(lambda s: "Stop trusting" in s, "the trust dialog"))
        term.press("n")
        term.wait_for(lambda s: "Stop trusting" not in s, "the dialog to close")
        seen = "\n".join(screens)
        for way_in in WAYS_IN:
            assert shown(way_in) in seen, f"{way_in}: no visible stand-in on screen"
        assert term.buffers() == ""  # nothing reached the clipboard
        assert term.title() == term.title_before
        assert TITLE not in term.title()
        term.press("q")
        assert term.wait_closed(), "q did not quit"
        written = term.written()
        assert b"\x1b]52" not in written
        assert b"\x1b]0;" not in written and b"\x1b]2;" not in written
        for way_in in WAYS_IN:
            assert osc52(way_in).encode() not in written
    finally:
        term.close()


async def test_files_panel_shows_stand_ins(tmp_path: Path) -> None:
    app = make_app(hostile_workspace(tmp_path, ("file",)), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("1")  # the Files panel (the Map comes first)
        await pilot.pause()
        assert_safe(drawn(app), "file")
        table = app.query_one("#files-table", KeyedTable)
        name = next(k for k in table.keys if k.startswith("main:memory/n"))
        assert str(table.row(name)[1]) == f"memory/n{shown('file')}␇.md"


async def test_folder_name_shows_stand_ins_in_the_bars_panes_and_trust_dialog(
    tmp_path: Path,
) -> None:
    app = make_app(hostile_workspace(tmp_path, ("folder",)), watch=False, frozen=True)
    async with app.run_test(size=(400, 50)) as pilot:  # wide: the top bar ends with the path
        await settled(pilot, app)
        assert_safe(drawn(app), "folder")
        assert shown("folder") in str(app.query_one("#topbar").render())
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="the dialog")
        await pilot.pause()
        assert_safe(drawn(app), "folder")
    assert app.title == "ctxscope"  # what a terminal title would be set from


async def test_pane_text_shows_stand_ins(tmp_path: Path) -> None:
    app = make_app(hostile_workspace(tmp_path, ("text",)), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        assert f"Be careful.{shown('text')}␇ Really." in views_text(app)
        app.query_one("#main-view", PromptView).select("file:AGENTS.md", scroll=True)
        await pilot.pause()
        assert_safe(drawn(app), "text")


async def test_scripts_panel_shows_stand_ins_untrusted(tmp_path: Path) -> None:
    ways_in = ("scriptid", "scripturi")
    app = make_app(hostile_workspace(tmp_path, ways_in), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("m", "2")
        await pilot.pause()
        assert_safe(drawn(app), "scriptid")
        table = app.query_one("#scripts-table", KeyedTable)
        table.move_cursor(table.index("uri"))
        await pilot.pause()
        assert_safe(drawn(app), "scripturi")  # the detail below names the uri


async def test_scripts_panel_shows_stand_ins_for_script_output(tmp_path: Path) -> None:
    ws = hostile_workspace(tmp_path, ("stdout", "stderr", "jsonerr"))
    app = make_app(ws, watch=False, frozen=True, trusted=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("m", "2")
        await pilot.pause()
        assert_safe(drawn(app), "stdout", "stderr", "jsonerr")
        table = app.query_one("#scripts-table", KeyedTable)
        for key in ("out", "err", "jsonerr"):  # each script's detail: output, error, log
            table.move_cursor(table.index(key))
            await pilot.pause()
            assert_safe(drawn(app))


async def test_problems_panel_shows_the_hook_name_with_stand_ins(tmp_path: Path) -> None:
    app = make_app(hostile_workspace(tmp_path, ("hook",)), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("m", "7")
        await pilot.pause()
        assert_safe(drawn(app), "hook")


async def test_trust_dialog_shows_stand_ins_for_the_scripts(tmp_path: Path) -> None:
    ways_in = ("scriptid", "scripturi")
    app = make_app(hostile_workspace(tmp_path, ways_in), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="the dialog")
        await pilot.pause()
        assert_safe(drawn(app), "scriptid", "scripturi")


async def test_why_dialog_shows_stand_ins(tmp_path: Path) -> None:
    app = make_app(hostile_workspace(tmp_path, ("file",)), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("1")  # the Files panel (the Map comes first)
        table = app.query_one("#files-table", KeyedTable)
        table.focus()
        table.move_cursor(table.index(f"main:memory/n{osc52('file')}.md"))
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the dialog")
        await pilot.pause()
        out = drawn(app)
        assert_safe(out, "file")
        assert "Nothing named" not in out  # the raw name still finds the file


async def test_notifications_show_stand_ins(tmp_path: Path) -> None:
    app = make_app(hostile_workspace(tmp_path, ()), watch=False, frozen=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settled(pilot, app)
        app.notify(f"could not read {osc52('file')}", title=osc52("folder"), markup=False)
        await pilot.pause(0.3)
        assert_safe(drawn(app), "file", "folder")


async def test_markup_in_workspace_names_shows_literally(tmp_path: Path) -> None:
    ws = hostile_workspace(tmp_path, ())
    (ws / "memory" / "[red]x[link=ssh:evil]y.md").write_text("n", "utf-8")
    app = make_app(ws, watch=False, frozen=True, overrides={"target": "[b]boss[/b]"})
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("1")  # the Files panel (the Map comes first)
        await pilot.pause()
        out = drawn(app)
        assert "[red]x[link=ssh:evil]y.md" in out
        assert "\x1b]8;" not in out  # no hyperlink made from the name
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"boss")
        await pilot.pause(0.5)
        out = drawn(app)
        assert_safe(out)
        assert "Target agent: [b]boss[/b]" in re.sub("\x1b\\[[0-9;]*m", "", out)


async def test_a_widget_given_raw_text_still_draws_no_escape(tmp_path: Path) -> None:
    """The guarantee holds for any widget, even one handed workspace text unsanitised: the
    app's line filter shows what it draws with stand-ins, and drops a link holding one."""
    app = make_app(hostile_workspace(tmp_path, ()), watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        raw = Text(f"raw{osc52('file')} ")
        raw.append("link", style=Style(link=f"https://x{osc52('folder')}"))
        widget = Static(raw, markup=False)
        widget.styles.dock = "top"
        await app.screen.mount(widget)
        await pilot.pause()
        out = drawn(app)
        assert_safe(out, "file")
        assert "\x1b]8;" not in out


async def test_chain_panel_labels_show_stand_ins(workspace: Path) -> None:
    """A directive named with an escape sequence (from `ctxscope.yaml` or the scenario
    editor): the Chain tree's own lines carry stand-ins, before any filter."""
    directive = f"project/x{osc52('chain')}"
    app = make_app(workspace, watch=False, frozen=True, overrides={"directive": directive})
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        await pilot.press("m", "6")
        await pilot.pause()
        tree = app.query_one(ChainTree)
        lines = "\n".join(
            "".join(s.text for s in tree.render_line(y)) for y in range(tree.size.height)
        )
        assert_safe(lines, "chain")
        assert_safe(drawn(app), "chain")
