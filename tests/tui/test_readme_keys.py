"""The help screen names every key as it is typed and explains every mark the panes draw;
the inspector's page (docs/tui.md) has its whole key table, the README a few of its rows."""

from __future__ import annotations

import re
from pathlib import Path

from ctxscope.tui.app import CtxscopeApp, make_app
from ctxscope.tui.screens.help import HelpScreen, key_rows, keys_markdown
from tests.tui.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_the_inspector_page_s_key_table_is_the_help_screens() -> None:
    text = (ROOT / "docs" / "tui.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- keys:[^>]*-->\n(.*?)\n<!-- /keys -->", text, re.S)
    assert found is not None, "docs/tui.md has no key table"
    wanted = keys_markdown(CtxscopeApp.BINDINGS)
    assert found.group(1) == wanted, "docs/tui.md's key table is out of date; it is:\n" + wanted


def test_the_readme_s_keys_are_rows_of_the_help_screen() -> None:
    """The README shows a few keys; each row is the help screen's, word for word."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- some keys:[^>]*-->\n(.*?)\n<!-- /some keys -->", text, re.S)
    assert found is not None, "README.md has no key table"
    rows = found.group(1).splitlines()
    assert len(rows) > 5
    assert set(rows) <= set(keys_markdown(CtxscopeApp.BINDINGS).splitlines())


def test_keys_are_named_as_typed_and_each_action_has_one_key_of_its_own() -> None:
    rows = dict(key_rows(CtxscopeApp.BINDINGS))
    assert "/" in rows and "slash" not in " ".join(rows)
    assert "? / f1" in rows
    assert not any(re.search(r"(^|[ ,/])b($|[ ,/])", key) for key in rows)  # no b beside B
    assert "N / [" in rows and "previous section" in rows["N / ["]


async def test_help_names_the_find_key_slash_as_typed_and_explains_the_fold_marks(
    workspace: Path,
) -> None:
    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        assert "slash" not in text
        assert re.search(r"^\s*/\s+find in the focused pane", text, re.M)
        assert re.search(r"^\s*▸ / ▾\s+runtime text folded", text, re.M)


async def test_capital_n_steps_back_a_section_without_a_search_and_b_is_free(
    workspace: Path,
) -> None:
    """`n`/`N` are next/previous section (or match), as `]`/`[`; `b`, unrelated to `B`
    (pin a before side), no longer moves."""
    from ctxscope.tui.widgets.prompt_view import PromptView

    app = make_app(workspace, watch=False, frozen=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="the first build")
        view = app.query_one("#main-view", PromptView)
        view.focus()
        await pilot.press("n", "n", "n")
        await pilot.pause()
        keys = view.block_keys()
        third = view.selected
        assert third is not None
        await pilot.press("b")
        await pilot.pause()
        assert view.selected == third
        await pilot.press("N")
        await pilot.pause()
        assert view.selected == keys[keys.index(third) - 1]
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.selected == keys[keys.index(third) - 2]
