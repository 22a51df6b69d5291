"""`spawn --trust` shows a verbose context script's command readably: each argument on its
own line and the gateway config (`cfg`) indented over as many lines as it needs, secrets
still masked; nothing of it is lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROGRAM = Path(sys.executable).with_name("ctxscope")
COMMAND = [str(PROGRAM)] if PROGRAM.exists() else [sys.executable, "-m", "ctxscope"]
SECRET = "tok-SECRET-4242"
HEAD = "[context-script] brief command: scripts/brief.sh"


def workspace(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    ws = tmp_path / "ws"
    (ws / "scripts").mkdir(parents=True)
    script = ws / "scripts" / "brief.sh"
    script.write_text("#!/bin/sh\necho 'a brief'\n")
    script.chmod(0o755)
    (ws / "AGENTS.md").write_text("# Agents\n")
    entry = {
        "id": "brief",
        "uri": "scripts/brief.sh",
        "log": "verbose",
        "argMap": {"task": "task", "config": "cfg", "missing": "label"},
    }
    config: dict[str, Any] = {
        "gateway": {"auth": {"token": SECRET}, "port": 18789},
        "agents": {
            "defaults": {"subagents": {"contextScripts": {"run": [entry]}}},
            "list": [
                {"id": f"agent{n}", "name": f"Agent number {n}", "model": "openai/gpt-5-mini"}
                for n in range(25)
            ],
        },
    }
    (ws / "openclaw.json").write_text(json.dumps(config))
    assert len(json.dumps(config, separators=(",", ":"))) > 1500
    return ws, config


def spawn(ws: Path, fmt: str) -> str:
    out = subprocess.run(
        [*COMMAND, "spawn", str(ws), "--trust", "--task", "Fix CI", "--format", fmt],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def command_block(lines: list[str]) -> list[str]:
    """The laid-out command: its head line, then every line indented deeper than it."""
    start = next(i for i, line in enumerate(lines) if line.endswith(HEAD))
    column = lines[start].index(HEAD)
    block = [lines[start][column:]]
    for line in lines[start + 1 :]:
        if len(line) - len(line.lstrip()) <= column:
            break
        block.append(line[column:])
    return block


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_verbose_command_line_is_laid_out_readably(tmp_path: Path, fmt: str) -> None:
    ws, config = workspace(tmp_path)
    text = spawn(ws, fmt)
    assert SECRET not in text
    block = command_block(text.splitlines())
    assert block[0] == HEAD
    shown_at = next(line.index(HEAD) for line in text.splitlines() if line.endswith(HEAD))
    assert len(block) > 20 and max(shown_at + len(line) for line in block) <= 100
    args = [line.strip() for line in block[1:] if line.startswith("  ") and line[2] != " "]
    assert args[0] == 'task="Fix CI"' and args[-1] == "missing=undefined"
    assert args[1] == "config={"
    # The config reads back whole from its lines, its secret masked.
    start = block.index("  config={")
    end = block.index("  }", start)
    shown = json.loads("{" + "".join(line.strip() for line in block[start + 1 : end]) + "}")
    assert shown["agents"] == config["agents"]
    assert shown["gateway"]["port"] == 18789
    assert shown["gateway"]["auth"]["token"] not in (SECRET, "")
