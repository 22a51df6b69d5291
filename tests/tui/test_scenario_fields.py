"""The scenario editor sets the Rye profile, `continued` and the GoClaw user: applied, they
reach the scenario and the Rye thread the app builds; reopened, the editor shows them."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button, Input, Select, Switch

from ctxscope.runtimes.rye.semantics import names
from ctxscope.tui.app import make_app
from ctxscope.tui.screens.scenario import ScenarioScreen
from tests.tui.conftest import wait_for


async def test_the_editor_sets_rye_profile_continued_and_user(workspace: Path) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        assert app.build is not None and app.build.report.thread is not None
        assert app.build.report.thread.profile.name == "ryeos-0.1"
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ScenarioScreen), what="editor")
        screen = app.screen
        rye = screen.query_one("#field-rye_profile", Select)
        assert [value for _, value in rye._options if isinstance(value, str)] == names()
        assert rye.value == Select.NULL  # not given: the default
        continued = screen.query_one("#field-continued", Switch)
        assert continued.value is False
        rye.value = "rye-docs"
        continued.value = True
        user = screen.query_one("#field-user", Input)
        user.value = "  alice "
        user.focus()
        await wait_for(  # the form scrolls to the focused field; Apply stays on screen
            pilot,
            lambda: user.region.height > 0 and user.region.bottom <= 24,
            what="the user field scrolled into view",
        )
        apply = screen.query_one("#apply", Button)
        assert apply.region.height > 0 and apply.region.bottom <= 24
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: app.build is not None and app.build.report.scenario.rye_profile == "rye-docs",
            what="the edited build",
        )
        sc = app.build.report.scenario
        assert sc.continued is True and sc.user == "alice"
        assert app.builder.inspector.inputs.scenario.rye_profile == "rye-docs"
        thread = app.build.report.thread
        assert thread is not None and thread.profile.name == "rye-docs"
        assert thread.hook_event == "thread_continued"

        await pilot.press("e")  # reopened: the editor shows what applies, and off applies too
        await wait_for(pilot, lambda: isinstance(app.screen, ScenarioScreen), what="editor")
        screen = app.screen
        assert screen.query_one("#field-rye_profile", Select).value == "rye-docs"
        assert screen.query_one("#field-user", Input).value == "alice"
        switch = screen.query_one("#field-continued", Switch)
        assert switch.value is True
        switch.value = False
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: app.build is not None and not app.build.report.scenario.continued,
            what="the build with continued off",
        )
        thread = app.build.report.thread
        assert thread is not None and thread.hook_event == "thread_started"
        assert thread.profile.name == "rye-docs"  # the other edits stay


async def test_the_editor_shows_a_configured_rye_profile_and_continued(workspace: Path) -> None:
    scenario = workspace / "ctxscope.yaml"
    scenario.write_text(
        scenario.read_text(encoding="utf-8") + "rye_profile: rye-docs\ncontinued: true\n",
        encoding="utf-8",
    )
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ScenarioScreen), what="editor")
        screen = app.screen
        assert screen.query_one("#field-rye_profile", Select).value == "rye-docs"
        assert screen.query_one("#field-continued", Switch).value is True
        screen.query_one("#field-continued", Switch).value = False  # off beats the yaml's on
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: app.build is not None and not app.build.report.scenario.continued,
            what="the build with continued off",
        )
        thread = app.build.report.thread
        assert thread is not None and thread.hook_event == "thread_started"
        assert thread.profile.name == "rye-docs"
