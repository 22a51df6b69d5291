"""What a newcomer meets on the command line: each command's own usage, a mistyped command,
an unknown option, a folder with nothing to read, and `--trust` on `render`. Run through the
installed `ctxscope` program, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.cli import COMMANDS

PROGRAM = Path(sys.executable).with_name("ctxscope")


def ctxscope(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(PROGRAM)] if PROGRAM.exists() else [sys.executable, "-m", "ctxscope"]
    return subprocess.run(
        [*command, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under `folder` with its size and mtime: a run must leave it as it was."""
    return {
        str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
    }


USAGES = {
    "tui": "usage: ctxscope [tui] [WORKSPACE] [options]",
    "render": "usage: ctxscope render [WORKSPACE] [options]",
    "spawn": "usage: ctxscope spawn [WORKSPACE] [options]",
    "thread": "usage: ctxscope thread [WORKSPACE] DIRECTIVE [options]",
    "explain": "usage: ctxscope explain [WORKSPACE] ITEM [options]",
    "check": "usage: ctxscope check [WORKSPACE] [options]",
    "diff": "usage: ctxscope diff [WORKSPACE] --from SPEC [--to SPEC] [options]",
    "runs": "usage: ctxscope runs [WORKSPACE] [options]",
    "demo": "usage: ctxscope demo [options]",
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_command_has_its_own_usage_line(command: str) -> None:
    out = ctxscope(command, "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == USAGES[command]


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("chek", "check"),
        ("rendr", "render"),
        ("spwan", "spawn"),
        ("Explain", "explain"),
        ("help", "--help"),
    ],
)
def test_a_mistyped_command_is_named_with_the_command_it_looks_like(
    tmp_path: Path, word: str, meant: str
) -> None:
    out = ctxscope(word, cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith(f"ctxscope: unknown command '{word}' — did you mean '{meant}'?")
    assert "workspace folder not found" not in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_a_folder_named_like_a_typo_is_still_a_workspace(tmp_path: Path) -> None:
    """`chek` that exists is the workspace of the inspector: no guess. (The unknown option
    stops the run before any screen.)"""
    (tmp_path / "chek").mkdir()
    out = ctxscope("chek", "--bogus", cwd=tmp_path)
    assert out.returncode == 2
    assert "did you mean" not in out.stderr
    assert out.stderr.startswith("usage: ctxscope [WORKSPACE] [options]\n")
    assert "ctxscope: error: unrecognized arguments: --bogus" in out.stderr
    assert "`ctxscope tui --help` lists the options" in out.stderr


def test_an_unknown_option_prints_the_commands_own_usage(tmp_path: Path) -> None:
    out = ctxscope("render", tmp_path, "--bogus")
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert lines[0] == "usage: ctxscope render [WORKSPACE] [options]"
    assert lines[1] == "ctxscope render: error: unrecognized arguments: --bogus"
    assert "COMMAND" not in out.stderr
    near = ctxscope("check", tmp_path, "--max-sectoin-tokens", "5")
    assert near.returncode == 2
    assert near.stderr.splitlines()[0] == "usage: ctxscope check [WORKSPACE] [options]"
    assert "(did you mean --max-section-tokens?)" in near.stderr
    bad_value = ctxscope("explain", tmp_path, "SOUL.md", "--format", "yaml")
    assert bad_value.stderr.splitlines()[0] == "usage: ctxscope explain [WORKSPACE] ITEM [options]"


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_check_on_a_folder_with_nothing_to_read_is_an_error(tmp_path: Path, fmt: str) -> None:
    """A CI job pointed at the wrong folder must not stay green."""
    empty = tmp_path / "not-the-workspace"
    empty.mkdir()
    (empty / "notes.txt").write_text("unrelated")
    before = tree(empty)
    out = ctxscope("check", empty, "--format", fmt)
    assert out.returncode == 2, out.stdout
    assert out.stdout == ""
    assert out.stderr.startswith(f"ctxscope: {empty}: nothing to check: ")
    assert "AGENTS.md" in out.stderr and "openclaw.json" in out.stderr
    assert "ctxscope.yaml" in out.stderr and ".ai/" in out.stderr
    assert tree(empty) == before


@pytest.mark.parametrize(
    "sign",
    ["SOUL.md", "TOOLS.md", "ctxscope.yaml", ".ai/directives/x.md", "../openclaw.json"],
)
def test_check_reads_a_folder_with_anything_it_knows(tmp_path: Path, sign: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    path = ws / sign
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}" if sign.endswith(".json") else "# x\n" if sign.endswith(".md") else "")
    out = ctxscope("check", ws, "--format", "json")
    assert out.returncode in (0, 1), out.stderr
    assert "nothing to check" not in out.stderr
    assert isinstance(json.loads(out.stdout)["ok"], bool)


@pytest.mark.parametrize("command", [["render"], ["spawn"], ["explain", "SOUL.md"]])
def test_other_commands_warn_about_a_folder_with_nothing_to_read(
    tmp_path: Path, command: list[str]
) -> None:
    out = ctxscope(command[0], tmp_path, *command[1:], "--format", "json")
    assert out.returncode == 0, out.stderr
    json.loads(out.stdout)  # stdout stays the answer
    assert out.stderr.startswith(f"ctxscope: warning: {tmp_path}: no OpenClaw workspace file")
    (tmp_path / "AGENTS.md").write_text("# Agents\n")
    assert ctxscope(command[0], tmp_path, *command[1:]).stderr == ""


def script_workspace(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose one context script appends a brief to the task and records that it
    ran in a file outside the workspace."""
    ws = tmp_path / "ws"
    (ws / "scripts").mkdir(parents=True)
    ran = tmp_path / "ran.log"
    script = ws / "scripts" / "brief.sh"
    script.write_text(f"#!/bin/sh\necho run >> '{ran}'\necho 'BRIEF-FROM-SCRIPT'\n")
    script.chmod(0o755)
    (ws / "AGENTS.md").write_text("# Agents\n")
    config = {
        "agents": {
            "defaults": {
                "subagents": {
                    "contextScripts": {"run": [{"id": "brief", "uri": "scripts/brief.sh"}]}
                }
            }
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config))
    return ws, ran


def test_render_takes_trust_and_a_subagent_message_gets_the_scripts_output(
    tmp_path: Path,
) -> None:
    ws, ran = script_workspace(tmp_path)
    before = tree(ws)
    child = ["--session-key", "agent:main:subagent:t1", "--task", "Fix CI", "--format", "json"]
    trusted = ctxscope("render", ws, *child, "--trust")
    assert trusted.returncode == 0, trusted.stderr
    message = json.loads(trusted.stdout)["task_message"]
    assert "Fix CI\n\nBRIEF-FROM-SCRIPT" in message
    assert ran.read_text() == "run\n"
    # The same as the child a spawn builds.
    spawn = ctxscope("spawn", ws, "--task", "Fix CI", "--trust", "--format", "json")
    assert json.loads(spawn.stdout)["child"]["task_message"] == message
    # Untrusted: nothing runs, and the render says what its message lacks.
    untrusted = ctxscope("render", ws, *child)
    data = json.loads(untrusted.stdout)
    assert "BRIEF-FROM-SCRIPT" not in data["task_message"]
    notes = [d for d in data["diagnostics"] if d["code"] == "context-scripts-untrusted"]
    assert notes and "--trust" in notes[0]["message"] and notes[0]["severity"] == "info"
    assert ran.read_text() == "run\n" * 2  # the spawn's run, none since
    # A main session's prompt does not depend on the scripts: --trust runs none.
    main = ctxscope("render", ws, "--trust")
    assert main.returncode == 0 and "BRIEF-FROM-SCRIPT" not in main.stdout
    assert ran.read_text() == "run\n" * 2
    assert tree(ws) == before
