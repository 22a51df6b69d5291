"""The exact-mode helper keeps the runner's tool stages (setup, skills, tool base, bundle
tools, tool catalog) between requests: a save of a context file reuses them, and a change of
anything they read (a workspace skill, a program a bundled skill needs on PATH, the config)
is in the next answer. One real helper on the installed OpenClaw 2026.9.6."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.exact.runtime import RuntimeHelper
from ctxscope.runtimes.openclaw.runtimeskills import _read

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"


def absent_bins_skill(package: Path, path: str) -> tuple[str, list[str]]:
    """A skill bundled with `package` that needs programs none of `path`'s folders holds:
    its name and those programs."""
    folders = [f for f in path.split(os.pathsep) if f]
    for skill_md in sorted((package / "skills").glob("*/SKILL.md")):
        read = _read(skill_md)
        if read is None:
            continue
        name, _, meta = read
        requires = meta.get("requires") or {}
        bins = [str(b) for b in requires.get("bins") or ()]
        if meta.get("os") or requires.get("anyBins") or requires.get("env") or not bins:
            continue
        if not any(os.path.exists(os.path.join(f, b)) for f in folders for b in bins):
            return name, bins
    pytest.skip("every bundled skill that needs a program finds it on this PATH")


def test_tool_stages_are_kept_until_what_they_read_changes(
    tmp_path: Path, openclaw_package: Path, node22: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    programs = tmp_path / "bin"
    programs.mkdir()
    path = f"{programs}{os.pathsep}{os.environ.get('PATH') or os.defpath}"
    monkeypatch.setenv("PATH", path)
    skill, bins = absent_bins_skill(openclaw_package, path)

    ins = Inspector(ws, exact=True, runtime=openclaw_package, node=node22)
    assert ins.exact is not None
    answers: list[dict[str, Any]] = []
    ask_all = RuntimeHelper.ask_all

    def noted(self: RuntimeHelper, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        said = ask_all(self, requests)
        answers.extend(said)
        return said

    monkeypatch.setattr(ins.exact.helper, "ask_all", noted.__get__(ins.exact.helper))

    def prompt() -> tuple[str, str]:
        """The requester's system prompt as the runtime wrote it, and whether its tool
        stages were run or kept."""
        answers.clear()
        ins.reload()
        session = ins.session()
        assert session.exact, [d.message for d in session.diagnostics]
        return session.system_prompt, answers[-1]["toolStages"]

    try:
        first, stages = prompt()
        assert stages == "run"
        assert f"<name>{skill}</name>" not in first

        # A context file saved: the tool stages are kept, the file's new text is there.
        soul = ws / "SOUL.md"
        soul.write_text(soul.read_text(encoding="utf-8") + "\nA line saved now.\n", "utf-8")
        text, stages = prompt()
        assert stages == "kept"
        assert "A line saved now." in text

        # A workspace skill added, then its description edited: both are seen.
        folder = ws / "skills" / "weather-brief"
        folder.mkdir()

        def weather_skill(description: str) -> None:
            (folder / "SKILL.md").write_text(
                f"---\nname: weather-brief\ndescription: {description}\n---\n# Weather\n",
                encoding="utf-8",
            )

        weather_skill("Summarise the forecast in one line.")
        text, stages = prompt()
        assert stages == "run"
        assert "Summarise the forecast in one line." in text
        weather_skill("Give the forecast for the week as a table.")
        text, stages = prompt()
        assert stages == "run"
        assert "Give the forecast for the week as a table." in text
        assert "Summarise the forecast in one line." not in text

        # A program a bundled skill needs put on PATH: the skill is listed.
        for name in bins:
            program = programs / name
            program.write_text("#!/bin/sh\n", encoding="utf-8")
            program.chmod(0o755)
        text, stages = prompt()
        assert stages == "run"
        assert f"<name>{skill}</name>" in text

        # The config turns the workspace skill off: it is gone.
        config = ws / "openclaw.json"
        config.write_text(
            config.read_text(encoding="utf-8").replace(
                "  agents: {",
                '  skills: { entries: { "weather-brief": { enabled: false } } },\n  agents: {',
                1,
            ),
            encoding="utf-8",
        )
        text, stages = prompt()
        assert stages == "run"
        assert "weather-brief" not in text
        assert f"<name>{skill}</name>" in text

        # Nothing changed: kept again.
        again, stages = prompt()
        assert stages == "kept"
        assert again == text
    finally:
        ins.close()
