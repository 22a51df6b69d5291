"""The trust dialog lists exactly what trusting vouches for: every agent's context scripts
(not only the requester's), grouped by agent, and every config file, included ones too; `y`
trusts that, and a script of another agent then runs from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from textual.widgets import Static

from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import load_inputs
from ctxscope.scripts import TrustStore
from ctxscope.tui.app import make_app
from ctxscope.tui.screens.trust import TrustScreen
from tests.scripts.helpers import write_script
from tests.tui.conftest import wait_for

SIZE = (160, 60)


def run_block(*entries: dict[str, str]) -> dict[str, object]:
    return {"subagents": {"contextScripts": {"run": list(entries)}}}


def three_agents(root: Path) -> Path:
    ws = root / "ws"
    (ws / "agents").mkdir(parents=True)
    (ws / "AGENTS.md").write_text("agents\n")
    for name in ("shared", "coder", "reviewer"):
        write_script(ws / "scripts", f"{name}.sh", f"echo {name} context")
    (ws / "openclaw.json").write_text(
        json.dumps(
            {
                "agents": {
                    "defaults": run_block({"id": "shared", "uri": "scripts/shared.sh"}),
                    "$include": "agents/list.json5",
                }
            }
        )
    )
    (ws / "agents" / "list.json5").write_text(
        json.dumps(
            {
                "list": [
                    {"id": "main"},
                    {"id": "coder", **run_block({"id": "coder-ctx", "uri": "scripts/coder.sh"})},
                    {
                        "id": "reviewer",
                        **run_block({"id": "review-url", "uri": "http://127.0.0.1:9/review"}),
                    },
                ]
            }
        )
    )
    return ws


def dialog_text(screen: TrustScreen) -> str:
    return "\n".join(str(s.render()) for s in screen.query(Static))


async def test_the_dialog_lists_every_agents_scripts_and_trusts_exactly_that(
    tmp_path: Path, config_dir: Path
) -> None:
    ws = three_agents(tmp_path)
    scripts = ws / "scripts"
    app = make_app(ws, watch=False, frozen=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        assert app.builder.inspector.inputs.scenario.requester == "main"
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="the dialog")
        assert isinstance(app.screen, TrustScreen)
        text = dialog_text(app.screen)
        assert (
            f"Agents main, any other agent:\n  • shared: {scripts / 'shared.sh'} (file)\n"
            f"Agent coder:\n  • shared: {scripts / 'shared.sh'} (file)\n"
            f"  • coder-ctx: {scripts / 'coder.sh'} (file)\n"
            f"Agent reviewer:\n  • shared: {scripts / 'shared.sh'} (file)\n"
            "  • review-url: http://127.0.0.1:9/review (URL)\n"
            f"Config files:\n  • {ws / 'openclaw.json'}\n  • {ws / 'agents' / 'list.json5'}"
        ) in text
        await pilot.press("y")
        await wait_for(pilot, lambda: TrustStore().knows(ws), what="the trust saved")
    assert TrustStore().is_trusted(ws, load_inputs(ws, Snapshot()).trust_key)

    # The other agent's own script, shown in the dialog, now runs for it.
    spawn = ["spawn", str(ws), "--requester", "coder", "--format", "json"]
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", *spawn],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    ran = {s["id"]: s["status"] for s in json.loads(out.stdout)["scripts"]}
    assert ran == {"shared": "ok", "coder-ctx": "ok"}


async def test_on_80x24_the_list_scrolls_and_the_buttons_stay_in_view(
    tmp_path: Path, config_dir: Path
) -> None:
    from textual.containers import VerticalScroll
    from textual.widgets import Button

    ws = three_agents(tmp_path)
    app = make_app(ws, watch=False, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.build is not None)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="the dialog")
        listing = app.screen.query_one("#trust-list", VerticalScroll)
        await wait_for(pilot, lambda: listing.max_scroll_y > 0, what="a scrolling list")
        for button in app.screen.query(Button):
            region = button.region
            assert region.height > 0 and region.y + region.height <= 24, button.id
        await pilot.press("y")
        await wait_for(pilot, lambda: TrustStore().knows(ws), what="the trust saved")
