"""The app shows values a config takes from the environment as `⟨$NAME⟩` (panes, headers,
every panel, exports) unless the variable is allowed, as the CLI does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.commands import PANELS
from ctxscope.tui.widgets.pane import PaneHeader
from ctxscope.tui.widgets.prompt_view import PromptView
from tests.test_env_secrets import CONFIG, SECRETS, leaked
from tests.tui.conftest import wait_for


@pytest.fixture
def env_ws(tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# Rules\nBe brief.\n")
    (ws / "openclaw.json").write_text(json.dumps(CONFIG))
    return ws


def app_for(ws: Path, export_dir: Path, show: tuple[str, ...] = ()) -> CtxscopeApp:
    inspector = Inspector(ws, scenario={"target": "coder", "task": "Review"}, show_env=show)
    return make_app(inspector=inspector, watch=False, frozen=True, export_dir=export_dir)


async def everything_shown(app: CtxscopeApp, pilot) -> str:  # type: ignore[no-untyped-def]
    """The panes' text, the headers, a screenshot of each panel, and the four exports."""
    await wait_for(pilot, lambda: app.build is not None, what="the first build")
    await pilot.pause()
    parts = [v.plain_text for v in app.query(PromptView)]
    parts += [str(h.render()) for h in app.query(PaneHeader)]
    for i in range(1, len(PANELS) + 1):
        await pilot.press(str(i))
        await pilot.pause()
        parts.append(app.export_screenshot())
    await pilot.press("x")  # JSON, markdown, HTML and SVG exports
    await wait_for(pilot, lambda: len(app.last_export) >= 4, what="the exports")
    parts += [path.read_text() for path in app.last_export.values()]
    return "\n".join(parts)


async def test_the_app_masks_values_from_the_environment(env_ws: Path, tmp_path: Path) -> None:
    app = app_for(env_ws, tmp_path / "exports")
    async with app.run_test(size=(200, 50)) as pilot:
        shown = await everything_shown(app, pilot)
        main, child = (
            app.query_one("#main-view", PromptView),
            app.query_one("#child-view", PromptView),
        )
        assert "from your owner: ⟨$GITHUB_TOKEN⟩" in main.plain_text
        assert "model=p/⟨$OPENAI_API_KEY⟩" in main.plain_text
        assert "model=p/⟨$DB_PASSWORD⟩" in child.plain_text
        assert "p/⟨$OPENAI_API_KEY⟩" in str(app.query_one("#main-header", PaneHeader).render())
        build = app.build
        assert build is not None and build.built is not None and build.built.child is not None
        assert build.built.child.model == f"p/{SECRETS['DB_PASSWORD']}"  # what the child runs on
        assert build.report.requester.tokens == build.built.requester.tokens
    assert leaked(shown) == []


async def test_an_allowed_variable_is_shown_in_the_app(env_ws: Path, tmp_path: Path) -> None:
    app = app_for(env_ws, tmp_path / "exports", show=("OPENAI_API_KEY",))
    async with app.run_test(size=(200, 50)) as pilot:
        shown = await everything_shown(app, pilot)
        main = app.query_one("#main-view", PromptView)
        assert f"model=p/{SECRETS['OPENAI_API_KEY']}" in main.plain_text
        assert "⟨$GITHUB_TOKEN⟩" in main.plain_text
    assert leaked(shown) == ["OPENAI_API_KEY"]


async def test_a_masked_path_still_opens_and_shows_the_real_file(
    tmp_path: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's workspace comes from `${WSROOT}`: the pane shows `⟨$WSROOT⟩/ws/...`, and
    `v` (what a truncation cut) and `o` (the editor) still read the real file; the trust
    question shows the script's path masked."""
    from ctxscope.tui.screens.cut import CutScreen
    from ctxscope.tui.screens.trust import TrustScreen

    monkeypatch.setenv("WSROOT", str(tmp_path))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("# Rules\n" + "".join(f"rule {i}\n" for i in range(400)))
    config = {
        "agents": {
            "defaults": {
                "bootstrapMaxChars": 300,
                "subagents": {"contextScripts": {"run": [{"id": "s", "uri": "${WSROOT}/s.sh"}]}},
            },
            "list": [{"id": "main", "workspace": "${WSROOT}/ws"}],
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config))
    app = make_app(ws, watch=False, frozen=True, export_dir=tmp_path / "exports")
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        main = app.query_one("#main-view", PromptView)
        assert "## ⟨$WSROOT⟩/ws/AGENTS.md" in main.plain_text
        assert str(tmp_path) not in main.plain_text
        main.focus()
        main.select("file:AGENTS.md")
        await pilot.pause()
        assert app._source_path() == (ws / "AGENTS.md", 1)  # what `o` opens
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, CutScreen), what="the cut text")
        cut = app.screen
        assert isinstance(cut, CutScreen) and "rule 200\n" in cut.text
        await pilot.press("escape")
        await pilot.press("ctrl+t")  # the trust question names the scripts, masked too
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen), what="the question")
        question = app.screen
        assert isinstance(question, TrustScreen)
        assert "⟨$WSROOT⟩/s.sh" in question.listed and question.workspace == "⟨$WSROOT⟩/ws"
        assert str(tmp_path) not in question.listed
