"""The Runs panel: the sessions the real OpenClaw 2026.9.6 gateway recorded (tests/runs/data),
as a tree; Enter puts a run beside the live prediction in its pane and the map; the stores
are watched, and a new run is said in the delta strip. Nothing in the state folder changes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.recorded import KEY
from ctxscope.tui.shorten import short_key
from ctxscope.tui.widgets.map_panel import MapColumn
from ctxscope.tui.widgets.one_line import OneLine
from ctxscope.tui.widgets.pane import PromptPane
from ctxscope.tui.widgets.runs_panel import MOST, RunsPanel
from ctxscope.tui.widgets.tables import KeyedTable
from tests.runs.stores import CHILD, INSERT, MAIN, add, listing, real_state, real_writer, writer
from tests.tui.conftest import wait_for
from tests.tui.test_tables import drawn


async def _runs(pilot, app: CtxscopeApp) -> KeyedTable:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.build is not None, what="the first build")
    await pilot.press("9")
    table = app.query_one("#runs-table", KeyedTable)
    await wait_for(pilot, lambda: table.row_count > 0, what="run rows")
    return table


async def test_runs_panel_shows_the_tree_and_puts_a_run_beside_the_prediction(
    workspace: Path, tmp_path: Path
) -> None:
    state = real_state(tmp_path)
    before = listing(state)
    app = make_app(workspace, watch=False, frozen=True, state=str(state))
    async with app.run_test(size=(160, 50)) as pilot:
        table = await _runs(pilot, app)
        assert table.keys == [MAIN, CHILD]
        cells = [str(c) for c in table.row(CHILD)]
        assert cells[1] == "└─ agent:main:subagent:d4e4a2e4" and cells[2] == "wire"
        assert cells[5] == "25,090 ch"  # the child's recorded prompt
        assert "2 recorded session(s)" in app.query_one(RunsPanel).plain
        table.focus()
        table.move_cursor(table.index(CHILD))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.recorded is not None, what="the recorded run")
        child = app.query_one("#child", PromptPane).view
        await wait_for(pilot, lambda: child.blocks[0].key == KEY, what="the recorded block")
        assert child.selected == KEY  # shown, the pane scrolled to it
        first = child.blocks[0]
        assert "agent:main:subagent:d4e4a2e4 " in first.body and "Why they differ:" in first.body
        assert "25,090" in first.body  # the recorded prompt beside the predicted one
        agents = next(b for b in child.blocks if b.key == "file:AGENTS.md")
        assert "recorded 2,032 ch" in agents.metrics
        main = app.query_one("#main", PromptPane).view
        assert all(b.key != KEY for b in main.blocks)  # a child's run goes beside the child
        assert "▶" in str(table.row(CHILD)[0])
        await pilot.press("8")  # the map: recorded vs predicted under the subagent's legend
        column = app.query_one("#map-child", MapColumn)
        legend = column.query_one(KeyedTable)
        await wait_for(
            pilot, lambda: "child:recorded:prompt" in legend.keys, what="recorded map rows"
        )
        row = [str(c) for c in legend.row("child:recorded:AGENTS.md")]
        assert row[1] == "recorded AGENTS.md" and row[2] == "2,032 ch"
        await pilot.press("9")
        table.focus()
        table.move_cursor(table.index(CHILD))
        await pilot.press("enter")  # again: away
        await wait_for(pilot, lambda: app.recorded is None, what="the run taken away")
        await wait_for(pilot, lambda: child.blocks[0].key != KEY, what="the pane as before")
    assert listing(state) == before


async def test_a_new_run_in_a_watched_store_is_said_in_the_delta_strip(
    workspace: Path, tmp_path: Path
) -> None:
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    app = make_app(workspace, watch=True, frozen=True, state=str(state))
    async with app.run_test(size=(160, 50)) as pilot:
        table = await _runs(pilot, app)
        reads = app.runs_reads
        before = listing(state)
        # a gateway's turn: a new child's entry, written in WAL mode by another connection
        con, entry = writer(db, wal=True)
        new = "agent:main:subagent:0f0f0f0f-new-run"
        entry["systemPromptReport"]["generatedAt"] += 60_000
        con.execute(INSERT, (new, "s-new", json.dumps(entry), 1, 1, MAIN, "later"))
        con.commit()
        strip = app.query_one("#deltabar", OneLine)
        await wait_for(
            pilot, lambda: f"new run of {new}" in str(strip.render()), what="the delta strip"
        )
        assert app.runs_reads > reads
        await wait_for(pilot, lambda: new in table.keys, what="the new run's row")
        assert table.keys[:2] == [MAIN, CHILD] and table.keys[2] == new
        after = listing(state)
        con.close()
    # the writer's own files aside, what ctxscope read is as the writer left it
    assert {k for k in after if not k.endswith(("-wal", "-shm"))} == {
        k for k in before if not k.endswith(("-wal", "-shm"))
    }


async def test_a_large_store_shows_its_newest_runs_in_tree_order(
    workspace: Path, tmp_path: Path
) -> None:
    state = real_state(tmp_path)
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    con, entry = writer(db)
    rows = []
    for n in range(MOST + 20):  # each older than the last, all older than the real child
        entry["systemPromptReport"]["generatedAt"] -= 1000
        written = entry["systemPromptReport"]["generatedAt"]  # as OpenClaw writes it: then
        key = f"agent:main:subagent:old-{n:04d}"
        rows.append((key, "s", json.dumps(entry), 1, written, MAIN, None))
    add(con, rows)
    app = make_app(workspace, watch=False, frozen=True, state=str(state))
    async with app.run_test(size=(160, 50)) as pilot:
        table = await _runs(pilot, app)
        assert table.row_count == MOST
        assert table.keys[0] == MAIN and table.keys[-1] == CHILD  # the newest child, last
        assert "agent:main:subagent:old-0000" in table.keys  # the newest of the old ones
        assert f"agent:main:subagent:old-{MOST + 19:04d}" not in table.keys  # the oldest
        assert f"{MOST + 22} recorded session(s)" in app.query_one(RunsPanel).plain
        assert f"the {MOST} newest shown" in app.query_one(RunsPanel).plain


async def test_the_panel_lists_the_store_the_config_names(workspace: Path, tmp_path: Path) -> None:
    """A config whose `session.store` moves the store: the panel lists that store's runs, as
    `ctxscope runs` does, not the state folder's own; an edit that moves it is followed."""
    state = real_state(tmp_path)
    moved = tmp_path / "moved" / "sessions.json"
    moved.parent.mkdir()
    db = moved.parent / "openclaw-agent.sqlite"
    shutil.copyfile(state / "agents" / "main" / "agent" / "openclaw-agent.sqlite", db)
    con = sqlite3.connect(db)
    con.execute(
        "update session_nodes set label='from-the-moved-store' where session_key=?", (CHILD,)
    )
    con.commit()
    con.close()
    app = make_app(workspace, watch=True, frozen=True, state=str(state))
    async with app.run_test(size=(160, 50)) as pilot:
        table = await _runs(pilot, app)
        assert [str(c) for c in table.row(CHILD)][2] == "wire"
        config = workspace / "openclaw.json"  # JSON5: the key goes first in its object
        text = config.read_text(encoding="utf-8")
        opening = text.index("{")
        store = json.dumps(str(moved))
        config.write_text(
            f"{text[: opening + 1]} session: {{ store: {store} }},{text[opening + 1 :]}"
        )
        await wait_for(
            pilot,
            lambda: (
                CHILD in table.keys
                and [str(c) for c in table.row(CHILD)][2] == "from-the-moved-store"
            ),
            what="the moved store's runs",
        )


async def test_a_run_goes_beside_the_session_of_its_agent_and_kind(
    workspace: Path, tmp_path: Path
) -> None:
    """The sample's subagent pane shows the coder (its target): main's own subagent run
    switches the target to main before it goes beside that pane, a coder's subagent run
    switches it back; a cron run, which no pane shows, is said so and put beside none."""
    state, _db, con, entry = real_writer(tmp_path)
    coder = "agent:coder:subagent:5e1f0c2a-0000-4000-8000-000000000001"
    cron = "agent:main:cron:nightly"
    ghost = "agent:ghost:subagent:5e1f0c2a-0000-4000-8000-000000000002"
    entry["systemPromptReport"]["generatedAt"] += 60_000
    add(
        con,
        [
            (coder, "s1", json.dumps(entry), 1, 10, MAIN, "review"),
            (cron, "s2", json.dumps(entry), 1, 11, None, None),
            (ghost, "s3", json.dumps(entry), 1, 12, MAIN, None),
        ],
    )
    app = make_app(workspace, watch=False, frozen=True, state=str(state))
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        table = await _runs(pilot, app)
        assert app.build is not None and app.build.child is not None
        assert app.build.child.agent_id == "coder"
        child = app.query_one("#child", PromptPane).view

        async def choose(key: str) -> None:
            table.focus()
            table.move_cursor(table.index(key))
            await pilot.press("enter")

        await choose(CHILD)
        await wait_for(
            pilot,
            lambda: (
                app.recorded is not None
                and app.build is not None
                and app.build.child is not None
                and app.build.child.agent_id == "main"
                and child.blocks[0].key == KEY
            ),
            what="main's subagent beside main's subagent",
        )
        assert short_key(CHILD) in child.blocks[0].body  # its id cut to 8 hex digits
        await pilot.press("9")
        await choose(coder)
        await wait_for(
            pilot,
            lambda: (
                app.recorded is not None
                and app.recorded.run.session_key == coder
                and app.build is not None
                and app.build.child is not None
                and app.build.child.agent_id == "coder"
                and child.blocks[0].key == KEY
                and short_key(coder) in child.blocks[0].body
            ),
            what="the coder's subagent beside the coder's subagent",
        )
        await pilot.press("9")
        await choose(cron)
        await wait_for(
            pilot,
            lambda: any(cron in n.message for n in app._notifications),
            what="why a cron run is beside no pane",
        )
        said = next(n.message for n in app._notifications if cron in n.message)
        assert "cron session" in said and f"ctxscope runs --session {cron}" in said
        assert app.recorded is not None and app.recorded.run.session_key == coder
        await pilot.press("9")
        await choose(ghost)  # an agent the config does not list: no pane can show it
        await wait_for(
            pilot,
            lambda: any(ghost in n.message for n in app._notifications),
            what="why a run of an unknown agent is beside no pane",
        )
        said = next(n.message for n in app._notifications if ghost in n.message)
        assert "agent ghost, which the config does not list" in said
        assert app.build is not None and app.build.child is not None
        assert app.build.child.agent_id == "coder"  # the target left as it was


async def test_a_click_on_a_run_selects_it_and_enter_puts_it_beside_once(
    workspace: Path, tmp_path: Path
) -> None:
    """A click moves the cursor (and the focus) to the run; Enter then puts it beside the
    prediction, once: the click does not choose it already, so Enter does not take it away."""
    app = make_app(workspace, watch=False, frozen=True, state=str(real_state(tmp_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _runs(pilot, app)
        asked: list[str] = []
        submit = app._beside_jobs.submit
        app._beside_jobs.submit = lambda key: (asked.append(key), submit(key))  # type: ignore[method-assign]
        await pilot.click(table, offset=(4, 1 + table.index(CHILD)))
        await pilot.pause()
        assert table.current_key == CHILD and app.focused is table
        assert asked == [] and app.recorded is None  # a click only selects
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.recorded is not None, what="the recorded run")
        await pilot.pause()
        assert asked == [CHILD] and app.recorded is not None
        assert app.recorded.run.session_key == CHILD


async def test_at_120_columns_ids_are_short_and_the_figures_stay_in_view(
    workspace: Path, tmp_path: Path
) -> None:
    """A session id is cut to its first 8 hex digits, as OpenClaw's own UIs show it: the
    Runs row keeps its prompt and files figures on screen, and the Recorded-run block's lines
    fit the pane (no id or path folded mid-word)."""
    app = make_app(workspace, watch=False, frozen=True, state=str(real_state(tmp_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _runs(pilot, app)
        await pilot.press("j", "enter")
        await wait_for(pilot, lambda: app.recorded is not None, what="the recorded run")
        await pilot.pause()
        row = drawn(table, 1 + table.index(CHILD))
        assert "agent:main:subagent:d4e4a2e4 " in row and CHILD not in row
        assert "25,090 ch" in row and row.rstrip().endswith("1")  # prompt and files in view
        view = app.query_one("#child", PromptPane).view
        block = view.blocks[0]
        assert block.key == KEY
        head, figures = block.body.split("\n\n")[:2]  # who and where; the figures
        lines = [*head.split("\n"), *figures.split("\n")]
        assert len(lines) >= 8 and view._text_width <= 58
        assert not [line for line in lines if len(line) > view._text_width]
        assert CHILD not in head
