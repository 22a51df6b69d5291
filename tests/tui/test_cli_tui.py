"""`ctxscope [WORKSPACE]`: unusable input exits 2 with a message, before any screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.cli import tui
from ctxscope.tui.themes import load_themes, theme_from_mapping


def test_missing_workspace_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tui.main([str(tmp_path / "nope")]) == 2
    assert "workspace folder not found" in capsys.readouterr().err


def test_broken_config_exits_2_with_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "openclaw.json").write_text("{\n  agents: {,\n}\n")
    assert tui.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'openclaw.json'}:2" in err


def test_bundled_themes_load() -> None:
    loaded = load_themes()
    names = {t.name for t in loaded.themes}
    assert {"ctxscope-dark", "ctxscope-light"} <= names
    dark = next(t for t in loaded.themes if t.name == "ctxscope-dark")
    light = next(t for t in loaded.themes if t.name == "ctxscope-light")
    assert dark.dark and not light.dark
    assert dark.variables["ctx-truncated"]


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "mapping"),
        ({"primary": "#fff"}, "`name`"),
        ({"name": "x"}, "`primary`"),
        ({"name": "x", "primary": "#fff", "colour": "red"}, "unknown key"),
        ({"name": "x", "primary": "#fff", "dark": "yes"}, "`dark`"),
        ({"name": "x", "primary": "#fff", "variables": []}, "`variables`"),
    ],
)
def test_theme_validation(data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        theme_from_mapping(data)
