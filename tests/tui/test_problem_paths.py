"""The Problems panel's "where" column says every path one way: relative to the workspace
where the file is inside it (named through a link or not, written relative or absolute),
absolute with `~` for the home folder elsewhere; `o` gets the file's absolute path."""

from __future__ import annotations

from pathlib import Path

from ctxscope.tui.app import make_app
from ctxscope.tui.widgets.problems_panel import ProblemsPanel, on_disk, where
from ctxscope.tui.widgets.tables import KeyedTable
from tests.tui.conftest import wait_for


def test_where_is_relative_inside_the_workspace_and_absolute_outside(tmp_path: Path) -> None:
    real = tmp_path / "real-ws"
    (real / "scripts").mkdir(parents=True)
    (real / "MEMORY.md").write_text("x")
    link = tmp_path / "ws"
    link.symlink_to(real)
    home = tmp_path / "home"
    base = str(link)
    assert where(str(link / "MEMORY.md"), None, base) == "MEMORY.md"
    assert where(str(real / "MEMORY.md"), 3, base) == "MEMORY.md:3"  # through the link
    assert where("scripts/ticket.sh", None, base) == "scripts/ticket.sh"
    assert where(str(home / "conf" / "openclaw.json"), 2, base, str(home)) == (
        "~/conf/openclaw.json:2"
    )
    assert where("/etc/openclaw.json", None, base, str(home)) == "/etc/openclaw.json"
    assert where(base, None, base, str(home)) == base  # the workspace itself: whole
    assert where("http://127.0.0.1:8765/context", None, base) == "http://127.0.0.1:8765/context"
    assert on_disk("scripts/ticket.sh", base) == str(link / "scripts" / "ticket.sh")


async def test_a_failing_scripts_row_and_a_files_row_say_where_alike(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True, trusted=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot,
            lambda: (
                app.build is not None
                and not app.build.check_pending
                and any(f.kind == "script" for f in app.build.findings)
            ),
            what="the failing script's finding",
        )
        await pilot.press("7")
        table = app.query_one("#problems-table", KeyedTable)
        await wait_for(pilot, lambda: table.row_count > 0, what="problem rows")
        wheres = {str(table.row(k)[2]): k for k in table.keys}
        assert "MEMORY.md" in wheres and "scripts/ticket-context.sh" in wheres
        assert not [w for w in wheres if w.startswith(str(workspace))]
        panel = app.query_one(ProblemsPanel)
        script = wheres["scripts/ticket-context.sh"]
        assert panel.targets[script].path == str(workspace / "scripts" / "ticket-context.sh")
