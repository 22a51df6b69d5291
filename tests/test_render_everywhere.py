"""Every command, in every format it offers, prints `output.render(obj, fmt)` of the object
it built, and nothing else: no command renders on its own. In-process (`cli.main`), with
the sample workspace."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxscope import output
from ctxscope.cli import command_parser, main
from ctxscope.core.safetext import terminal_safe
from tests.conftest import SAMPLE

COMMANDS: dict[str, list[str]] = {
    "render": ["render", "{ws}"],
    "spawn": ["spawn", "{ws}"],
    "thread": ["thread", "{ws}", "project/deploy/deploy_staging"],
    "explain": ["explain", "{ws}", "SOUL.md"],
    "explain-unknown": ["explain", "{ws}", "no-such-item"],
    "check": ["check", "{ws}"],
    "check-allowed": ["check", "{ws}", "--allow", "truncated,budget"],
    "check-against": ["check", "{ws}", "--against", "openclaw-2026.2"],
    "diff": ["diff", "{ws}", "--from", "openclaw-2026.2"],
    "runs": ["runs", "{ws}", "--state", "{ws}"],
}


def test_every_headless_command_is_held_to_it() -> None:
    from ctxscope.cli import HEADLESS

    assert set(HEADLESS) <= {argv[0] for argv in COMMANDS.values()}


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("sample") / "ws"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    return dest


@pytest.fixture(autouse=True)
def user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CTXSCOPE_CACHE_DIR", str(tmp_path / "cache"))


def offered(argv: list[str]) -> tuple[str, ...]:
    """The formats the command's `--format` accepts."""
    parser = command_parser(argv[0])
    action = next(a for a in parser._actions if "--format" in a.option_strings)
    return tuple(action.choices or ())


def cases() -> list[tuple[str, str]]:
    return [
        (name, fmt)
        for name, argv in COMMANDS.items()
        for fmt in output.FORMATS
        if fmt in offered([a.replace("{ws}", str(SAMPLE)) for a in argv])
    ]


@pytest.mark.parametrize(("name", "fmt"), cases())
def test_each_command_prints_the_rendering_of_what_it_built(
    name: str,
    fmt: str,
    sample: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[Any, str, str]] = []
    real = output.render

    def spy(obj: object, fmt: str) -> str:
        text = real(obj, fmt)
        calls.append((obj, fmt, text))
        return text

    monkeypatch.setattr(output, "render", spy)
    argv = [a.replace("{ws}", str(sample)) for a in COMMANDS[name]]
    code = main([*argv, "--format", fmt])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert len(calls) == 1, f"{name} --format {fmt} rendered {len(calls)} time(s) through render"
    obj, asked, text = calls[0]
    assert asked == fmt
    assert fmt in output.formats(obj)
    written = terminal_safe(text)
    assert out == (written if written.endswith("\n") else written + "\n")
    # The same object renders the same again: the output is a function of it alone.
    assert real(obj, fmt) == text


def test_every_command_offers_exactly_the_formats_its_object_renders_in(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, tuple[str, ...]] = {}
    real = output.render

    def spy(obj: object, fmt: str) -> str:
        seen[name] = output.formats(obj)
        return real(obj, fmt)

    monkeypatch.setattr(output, "render", spy)
    for name, argv in COMMANDS.items():
        real_argv = [a.replace("{ws}", str(sample)) for a in argv]
        main([*real_argv, "--format", "json"])
        capsys.readouterr()
        assert set(seen[name]) == set(offered(real_argv)), name


def test_each_registered_kind_is_rendered_by_the_module_named_for_it() -> None:
    for qualified, module in output.RENDERERS.items():
        owner, _, name = qualified.rpartition(".")
        cls = getattr(importlib.import_module(owner), name)
        importlib.import_module(module)
        assert output.formats(object.__new__(cls)), qualified


def test_render_refuses_what_it_does_not_know() -> None:
    with pytest.raises(TypeError, match="nothing renders a dict"):
        output.render({}, "json")
    from ctxscope.output.explain import Explained

    with pytest.raises(ValueError, match="Explained has no html rendering"):
        output.render(Explained("SOUL.md", []), "html")
    with pytest.raises(ValueError, match="unknown format"):
        output.renders(Explained, pdf=str)
