"""Exact mode in the inspector: `E` turns it on and off, with a real installed OpenClaw."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Static

from ctxscope import Inspector
from ctxscope.tui.app import CtxscopeApp, make_app
from tests.tui.conftest import wait_for

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"


def top(app: CtxscopeApp) -> str:
    return str(app.query_one("#topbar", Static).render())


async def test_e_turns_exact_mode_on_and_off(
    tmp_path: Path, openclaw_package: Path, node22: str
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    ins = Inspector(ws, runtime=openclaw_package, node=node22)
    app = make_app(inspector=ins, watch=False, frozen=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        assert "exact mode" not in top(app)
        assert app.build is not None and not app.build.report.requester.exact
        await pilot.press("ctrl+e")
        await wait_for(
            pilot,
            lambda: app.build is not None and bool(app.build.report.requester.exact),
            timeout=60,
            what="the exact build",
        )
        await pilot.pause()
        assert "exact mode on" in top(app)
        assert "OpenClaw 2026.9" in top(app)  # the profile follows the runtime it asks
        requester = app.build.report.requester
        assert not any(s.placeholder for s in requester.sections)
        # The config says 2026.2.19: the text is the installed 2026.9's, and that is said.
        assert any(
            d.code == "runtime-version" and "exact mode runs" in d.message
            for d in app.build.diagnostics
        )
        await pilot.press("ctrl+e")
        await wait_for(
            pilot,
            lambda: app.build is not None and not app.build.report.requester.exact,
            what="the model build",
        )
        await pilot.pause()
        assert "exact mode" not in top(app)
        assert "OpenClaw 2026.2.19" in top(app)
    ins.close()


def program(path: Path, version: str) -> str:
    """A `node` that only reports `version`."""
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return str(path)


def package(root: Path, version: str) -> Path:
    """An `openclaw` package folder of `version` (never loaded in these cases)."""
    folder = root / "openclaw"
    (folder / "dist").mkdir(parents=True)
    (folder / "package.json").write_text(f'{{"name": "openclaw", "version": "{version}"}}')
    return folder


@pytest.mark.parametrize(
    ("node", "config", "why"),
    [
        ("v20.11.0", None, "exact unavailable: exact mode needs Node ≥ 22; "),
        (
            "v22.9.0",
            '{"agents": {"defaults": {"bogusKey": 1}}}',
            "exact unavailable: OpenClaw 2026.9.6 refuses this config: agents.defaults: "
            'Unrecognized key: "bogusKey"',
        ),
    ],
    ids=["old-node", "refused-config"],
)
async def test_the_top_bar_says_why_exact_mode_is_unavailable(
    tmp_path: Path, node: str, config: str | None, why: str
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    if config is not None:
        (ws / "openclaw.json").write_text(config)
    runtime = package(tmp_path, "2026.9.6")
    ins = Inspector(ws, exact=True, runtime=runtime, node=program(tmp_path / "node", node))
    app = make_app(inspector=ins, watch=False, frozen=True)
    async with app.run_test(size=(400, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await wait_for(pilot, lambda: why in top(app), what="the reason in the top bar")
        assert app.build is not None and not app.build.report.requester.exact
        assert ins.exact is None or ins.exact.helper.ready is None  # nothing was run
    ins.close()


async def test_the_app_shows_the_model_first_then_the_installed_runtimes_text(
    tmp_path: Path, openclaw_package: Path, node22: str
) -> None:
    """Exact mode is the app's default where OpenClaw is installed: the first frame is the
    model's (the runtime has not loaded yet), the top bar says the runtime is loading, and
    the runtime's own text replaces the model once it has loaded, with the drift counted."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    ins = Inspector(ws, runtime=openclaw_package, node=node22)
    app = make_app(inspector=ins, watch=False, frozen=True, exact="auto")
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        assert app.build is not None and not app.build.report.requester.exact
        await wait_for(
            pilot, lambda: "model shown · loading OpenClaw…" in top(app), what="the loading"
        )
        assert not app.build.report.requester.exact  # the model stays while it loads
        await wait_for(
            pilot,
            lambda: app.build is not None and bool(app.build.report.requester.exact),
            timeout=90,
            what="the runtime's text",
        )
        await pilot.pause()
        assert "exact mode on · model drift:" in top(app)
        assert "loading" not in top(app)
    ins.close()


async def test_off_in_the_scenario_file_keeps_the_model(
    tmp_path: Path, openclaw_package: Path, node22: str
) -> None:
    """`exact: off` in ctxscope.yaml: the app never loads the installed runtime."""
    from ctxscope.cli.common import exact_mode

    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    scenario = ws / "ctxscope.yaml"
    scenario.write_text(scenario.read_text() + "\nexact: off\n")
    ins = Inspector(ws, runtime=openclaw_package, node=node22)
    mode = exact_mode(None, ins, default="auto")
    assert mode == "off"
    app = make_app(inspector=ins, watch=False, frozen=True, exact=mode)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.pause(0.5)
        assert "exact mode" not in top(app) and "loading" not in top(app)
        assert ins.exact is None


async def test_without_an_install_nothing_is_said_about_exact_mode(tmp_path: Path) -> None:
    """Exact mode is the app's default, but where no OpenClaw is installed the top bar never
    says it loads: the model is what there is."""
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    ins = Inspector(ws, runtime=tmp_path / "no-such-install")
    app = make_app(inspector=ins, watch=False, frozen=True, exact="auto")
    seen: list[str] = []
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        for _ in range(20):
            seen.append(top(app))
            await pilot.pause(0.05)
    assert not any("loading" in t or "exact" in t for t in seen), seen
