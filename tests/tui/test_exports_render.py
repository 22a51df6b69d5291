"""The app's exports (x) are `output.render`'s renderings of the build shown, as the CLI
writes them: JSON, markdown and HTML each through it once, the SVG from the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxscope import output
from ctxscope.report import Report
from ctxscope.tui.app import make_app
from tests.tui.conftest import wait_for


async def test_the_exports_are_the_renderings_of_the_build(
    workspace: Path, export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Any, str, str]] = []
    real = output.render

    def spy(obj: object, fmt: str) -> str:
        text = real(obj, fmt)
        calls.append((obj, fmt, text))
        return text

    monkeypatch.setattr(output, "render", spy)
    app = make_app(workspace, watch=False, frozen=True, export_dir=export_dir)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for(pilot, lambda: app.build is not None, what="first build")
        await pilot.press("x")
        await wait_for(pilot, lambda: len(app.last_export) == 4, what="the exports")
        report = app.build.report if app.build else None
    assert [(type(o), f) for o, f, _ in calls] == [
        (Report, "json"),
        (Report, "markdown"),
        (Report, "html"),
    ]
    assert all(o is report for o, _, _ in calls)
    for (_, fmt, text), kind in zip(calls, ("json", "md", "html"), strict=True):
        assert app.last_export[kind].read_text(encoding="utf-8") == text, kind
        assert real(report, fmt) == text
    assert app.last_export["svg"].read_text(encoding="utf-8").startswith("<svg")
