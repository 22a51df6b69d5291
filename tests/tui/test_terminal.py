"""The app in a real terminal (a pseudo-terminal), as a person runs it."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.scripts.helpers import process_alive, write_script

pytestmark = pytest.mark.terminal


class Terminal:
    """`ctxscope ARGS` on a 120×40 pseudo-terminal."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.master, slave = pty.openpty()
        os.set_blocking(self.master, False)
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLUMNS": "120",
            "LINES": "40",
            **(env or {}),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctxscope", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.screen = b""

    def read_until(self, needle: bytes, seconds: float = 30) -> bool:
        deadline = time.monotonic() + seconds
        while needle not in self.screen and time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.screen += os.read(self.master, 65536)
                except OSError:
                    break
        return needle in self.screen

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait(self, seconds: float) -> int | None:
        """The exit code, or None when still running after `seconds` (then it is killed)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.read_until(b"\0", 0.1)  # keep draining so the app never blocks on output
            if self.proc.poll() is not None:
                return self.proc.returncode
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        return None

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


def test_q_quits_while_a_context_script_is_still_running(make_workspace, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pidfile = tmp_path / "script.pid"
    ws = make_workspace(
        {"AGENTS.md": "agents here"},
        config={
            "agents": {
                "list": [{"id": "main"}, {"id": "coder"}],
                "defaults": {
                    "subagents": {
                        "contextScripts": {
                            "run": [{"id": "slow", "uri": "slow.sh", "timeoutMs": 120000}]
                        }
                    }
                },
            }
        },
    )
    write_script(ws, "slow.sh", f"echo $$ > {pidfile}\nsleep 120")
    term = Terminal("tui", str(ws), "--trust", "--no-watch")
    try:
        for _ in range(300):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            term.read_until(b"\0", 0.1)
        script = int(pidfile.read_text())
        assert process_alive(script)
        term.press("q")
        assert term.wait(20) == 0
        for _ in range(100):
            if not process_alive(script):
                break
            time.sleep(0.02)
        assert not process_alive(script)
    finally:
        term.close()


def test_demo_opens_a_scratch_copy_and_removes_it_on_quit() -> None:
    scratch = set(Path(tempfile.gettempdir()).glob("ctxscope-demo-*"))
    term = Terminal("demo", "--no-watch")
    try:
        assert term.read_until(b"MAIN")
        assert term.read_until(b"sample_workspace")  # a notice on the screen names the copy
        text = term.screen.decode("utf-8", "replace")
        before = text.split("\x1b[?1049h", 1)[0]  # what was printed before the full screen
        assert "ctxscope" not in before and "sample" not in before, before
        made = set(Path(tempfile.gettempdir()).glob("ctxscope-demo-*")) - scratch
        named = [m for m in made if m.name in text]  # others may run a demo meanwhile
        (folder,) = [m / "sample_workspace" for m in (named if named else made)]
        assert (folder / "SOUL.md").is_file()  # the copy, open in the app
        term.press("q")
        assert term.wait(20) == 0
        assert not folder.exists()  # nothing left behind
    finally:
        term.close()


def test_o_hands_the_terminal_to_the_editor_and_comes_back(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_workspace"
    opened = tmp_path / "opened.txt"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\necho "$@" > {opened}\n')
    editor.chmod(0o755)
    term = Terminal("tui", str(sample), "--no-watch", env={"EDITOR": str(editor), "VISUAL": ""})
    try:
        assert term.read_until(b"MAIN")
        assert term.read_until(b"Lost in the subagent")
        term.press("/")
        assert term.read_until(b"Find in the main pane")
        term.press("nightly restic\r")  # a line of MEMORY.md
        assert term.read_until(b"1 match(es)")
        term.press("o")
        for _ in range(100):
            if opened.exists():
                break
            term.read_until(b"\0", 0.1)
        line = 1 + (sample / "MEMORY.md").read_text().split("nightly restic")[0].count("\n")
        assert opened.read_text().strip() == f"+{line} {sample / 'MEMORY.md'}"  # at the hit
        term.screen = b""
        term.press("/")  # the app is back and answers keys
        assert term.read_until(b"Find in the main pane")
        term.press("\x1b")
        term.read_until(b"\0", 0.5)  # a lone Esc, not the start of Alt+q
        term.press("q")
        assert term.wait(20) == 0
    finally:
        term.close()
