"""A name from input (a file name, a Rye tool name, a session key, a label, an agent folder)
holding a newline or tab is shown on its one line in text and markdown (⏎, ⇥), so it cannot
start a forged table row or diagnostic; JSON keeps it as it is."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ctxscope.core.safetext import line_safe
from tests.conftest import SAMPLE
from tests.runs.stores import INSERT, MAIN, real_writer, workspace
from tests.test_cli import ctxscope

FORGED = re.compile(r"^\W{0,4}FORGED.*$", re.M)
"""A line that starts with a name's second line (a tree lead or a table edge at most)."""
KEY = "agent:main:subagent:x\nFORGED-KEY"


def forged(text: str) -> list[str]:
    return FORGED.findall(text)


def test_line_safe_marks_breaks_and_leaves_the_rest() -> None:
    assert line_safe("a\nb\tc\u2028d") == "a⏎b⇥c⏎d"
    plain = "agent:main:main"
    assert line_safe(plain) is plain
    assert line_safe("é ✓") == "é ✓"


@pytest.fixture
def state(tmp_path: Path) -> tuple[Path, Path]:
    """A state folder whose sessions have keys, labels, tool names and an agent folder with
    newlines and tabs in them, and the workspace."""
    state, _, con, entry = real_writer(tmp_path)
    entry["systemPromptReport"]["tools"]["entries"] = [
        {"name": "to\nFORGED-TOOL", "summaryChars": 1, "schemaChars": 2, "propertiesCount": 1}
    ]
    con.execute(INSERT, (KEY, "s", json.dumps(entry), 1, 5, MAIN, "la\nFORGED-LABEL"))
    con.commit()
    con.close()
    odd = state / "agents" / "od\nFORGED-AGENT" / "sessions"
    odd.mkdir(parents=True)
    (odd / "sessions.json").write_text(
        json.dumps(
            {"agent:od\nFORGED-AGENT:main": {"label": "l\tFORGED-TAB", "updatedAt": 3}, "k": 1}
        )
    )
    return state, workspace(tmp_path)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_runs_names_stay_on_their_line(state: tuple[Path, Path], fmt: str) -> None:
    folder, ws = state
    listed = ctxscope("runs", ws, "--state", folder, "--format", fmt)
    assert listed.returncode == 0, listed.stderr
    assert forged(listed.stdout) == []
    assert "x⏎FORGED-KEY" in listed.stdout and "od⏎FORGED-AGENT" in listed.stdout
    if fmt == "text":  # markdown tables show the label's tab too, as ⇥
        assert "l⇥FORGED-TAB" in listed.stdout
    one = ctxscope("runs", ws, "--state", folder, "--session", KEY, "--format", fmt)
    assert one.returncode == 0, one.stderr
    assert forged(one.stdout) == [] and "la⏎FORGED-LABEL" in one.stdout
    diff = ctxscope("diff", ws, "--state", folder, "--from", f"run:{KEY}", "--format", fmt)
    assert diff.returncode == 0, diff.stderr
    assert forged(diff.stdout) == [] and "x⏎FORGED-KEY" in diff.stdout


def test_json_keeps_the_names_as_they_are(state: tuple[Path, Path]) -> None:
    folder, ws = state
    out = ctxscope("runs", ws, "--state", folder, "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert KEY in {s["session_key"] for s in data["sessions"]}
    assert "⏎" not in out.stdout


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_file_and_tool_names_stay_on_their_line(tmp_path: Path, fmt: str) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    (ws / "memory").mkdir(exist_ok=True)
    (ws / "memory" / "2026-01-01\nFORGED-MEM.md").write_text("note")
    tools = ws / ".ai" / "tools" / "project" / "deploy"
    shutil.copy(tools / "helm.py", tools / "x\nFORGED-TOOL.py")
    for args in (["render"], ["spawn"], ["thread", "project/deploy/deploy_staging"]):
        out = ctxscope(args[0], ws, *args[1:], "--format", fmt)
        assert out.returncode == 0, out.stderr
        lines = [line for line in forged(out.stdout) if "</location>" not in line]
        assert lines == [], args
    thread = ctxscope("thread", ws, "project/deploy/deploy_staging", "--format", fmt)
    assert "x⏎FORGED_TOOL" in thread.stdout
