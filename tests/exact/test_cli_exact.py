"""`--exact` on the command line: what cannot run exits 2 with the reason; `--exact=auto`
shows ctxscope's model instead, with a warning saying why."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import SAMPLE


def render(ws: Path, tmp_path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    node = tmp_path / "node"
    node.write_text("#!/bin/sh\necho v22.9.0\n")  # a Node that is never asked to run anything
    node.chmod(0o755)
    runtime = tmp_path / "openclaw"
    (runtime / "dist").mkdir(parents=True, exist_ok=True)
    (runtime / "package.json").write_text('{"name": "openclaw", "version": "2026.9.6"}')
    command = ["render", str(ws), "--format", "json", mode, "--runtime", str(runtime)]
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *command, "--node", str(node)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_config_the_runtime_refuses_is_not_run(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    (ws / "openclaw.json").write_text('{"agents": {"defaults": {"bogusKey": 1}}}')
    out = render(ws, tmp_path, "--exact")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(
        "ctxscope: exact mode unavailable: OpenClaw 2026.9.6 refuses this config: "
        'agents.defaults: Unrecognized key: "bogusKey"'
    )
    assert "Traceback" not in out.stderr and "loading" not in out.stderr
    out = render(ws, tmp_path, "--exact=auto")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["exact"] in ("", None)
    [note] = [d for d in data["diagnostics"] if d["code"] == "exact-unavailable"]
    assert note["message"].startswith("exact mode not run: OpenClaw 2026.9.6 refuses this config")
    assert note["path"] == str(ws / "openclaw.json")
    assert "refuses this config" in out.stderr and "loading" not in out.stderr


def installed_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds an `openclaw` package (never loaded here)."""
    package = tmp_path / "lib" / "openclaw"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "openclaw", "version": "2026.9.6"}')
    entry = package / "openclaw.mjs"
    entry.write_text("")
    entry.chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "openclaw").symlink_to(entry)
    import os

    return {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}


def test_the_commands_keep_the_model_and_say_an_install_would_be_asked(tmp_path: Path) -> None:
    """The commands show ctxscope's model by default, for speed; where OpenClaw is installed
    they say so, and that `--exact=auto` would ask it; `--exact=off` asks for the model and
    is not told."""
    env = installed_on_path(tmp_path)
    run = [sys.executable, "-m", "ctxscope", "render", str(SAMPLE), "--format", "json"]
    plain = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "OpenClaw 2026.9.6 is installed" in plain.stderr
    assert "--exact=auto shows its own text" in plain.stderr
    assert json.loads(plain.stdout)["exact"] is None
    off = subprocess.run(
        [*run, "--exact=off"], capture_output=True, text=True, env=env, timeout=120
    )
    assert off.returncode == 0 and "installed" not in off.stderr
