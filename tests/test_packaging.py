"""The built wheel carries the data files the engine and the app read at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from .conftest import REPO


def test_wheel_ships_profiles_system_space_and_themes(tmp_path: Path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(tmp_path.glob("ctxscope-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "ctxscope/runtimes/profiles/openclaw-2026.2.yaml",
        "ctxscope/runtimes/profiles/openclaw-2026.9.yaml",
        "ctxscope/runtimes/profiles/goclaw.yaml",
        "ctxscope/runtimes/profiles/goclaw-plan.yaml",
        "ctxscope/runtimes/profiles/openclaw-2026.9.parsed.json",  # read instead of its YAML
        "ctxscope/runtimes/rye/system/.ai/directives/rye/agent/core/base.md",
        "ctxscope/runtimes/rye/system/.ai/knowledge/rye/agent/core/Identity.md",
        "ctxscope/themes/ctxscope-dark.yaml",
        "ctxscope/themes/ctxscope-light.yaml",
        "ctxscope/tui/app.tcss",
        "ctxscope/runtimes/openclaw/exact/helper.mjs",
        "ctxscope/runtimes/openclaw/exact/reads.mjs",  # the helper imports it
        # `ctxscope demo` copies it (a pipx install has no sample_workspace/ of its own).
        "ctxscope/sample_workspace/openclaw.json",
        "ctxscope/sample_workspace/SOUL.md",
        "ctxscope/sample_workspace/ctxscope.yaml",
    ):
        assert required in names, required
