"""`ctxscope` in tmux, a real terminal emulator: keys in, the screen out, and what the app
wrote to the terminal (every byte, through `pipe-pane`), the clipboard (tmux's paste buffers,
which OSC 52 fills under `set-clipboard on`) and the pane's title (which OSC 0 and 2 set).

The server is the test's own (`-S` a socket in its folder, no user config), so nothing
outside the test is read or changed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

_skip_without_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def needs_tmux(test: Any) -> Any:
    """A test that drives the app in tmux: marked `terminal`, skipped where tmux is missing."""
    return pytest.mark.terminal(_skip_without_tmux(test))


class Tmux:
    """`ctxscope ARGS` (ARGS may hold any bytes: they reach the app through a file) in a
    WIDTH×HEIGHT tmux pane whose output is recorded from the first byte."""

    def __init__(self, folder: Path, *args: str, width: int = 200, height: int = 50) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.socket = folder / "tmux.sock"
        self.output = folder / "pane-output.bin"
        (folder / "args").write_bytes(b"\0".join(os.fsencode(a) for a in args))
        go = folder / "go"
        env = {k: os.environ[k] for k in ("CTXSCOPE_CONFIG_DIR", "CTXSCOPE_CACHE_DIR", "PATH")}
        launcher = folder / "launch.py"
        launcher.write_text(
            "import os, sys, time\n"
            f"while not os.path.exists({str(go)!r}): time.sleep(0.02)\n"
            f"args = open({str(folder / 'args')!r}, 'rb').read().split(b'\\0')\n"
            f"os.environ.update({env!r})\n"
            "os.environ['TERM'] = 'xterm-256color'\n"
            "for name in ('COLUMNS', 'LINES'): os.environ.pop(name, None)  # the pane's size\n"
            f"os.execv({sys.executable!r}, [{sys.executable!r}, '-m', 'ctxscope', *args])\n",
            encoding="utf-8",
        )
        conf = folder / "tmux.conf"
        conf.write_text(
            "set -s set-clipboard on\nset -s escape-time 0\n"
            f"set -g default-size {width}x{height}\n",
            encoding="utf-8",
        )
        self.tmux(
            "-f", str(conf), "new-session", "-d", "-s", "app", "-x", str(width), "-y",
            str(height), f"{shlex.quote(sys.executable)} {shlex.quote(str(launcher))}",
        )  # fmt: skip
        self.title_before = self.title()
        self.tmux("pipe-pane", "-o", "-t", "app", f"cat > {shlex.quote(str(self.output))}")
        go.touch()

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout

    @property
    def running(self) -> bool:
        return (
            subprocess.run(
                ["tmux", "-S", str(self.socket), "has-session", "-t", "app"],
                capture_output=True,
                timeout=30,
            ).returncode
            == 0
        )

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def wait_for(self, test: Callable[[str], bool], what: str, seconds: float = 60) -> str:
        """The screen once `test(screen)` holds (fails after `seconds`: a hang guard)."""
        deadline = time.monotonic() + seconds
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")
            time.sleep(0.1)

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def buffers(self) -> str:
        """tmux's paste buffers: what the app put on the clipboard."""
        return self.tmux("list-buffers")

    def title(self) -> str:
        return self.tmux("display-message", "-p", "-t", "app", "#{pane_title}")

    def wait_closed(self, seconds: float = 30) -> bool:
        deadline = time.monotonic() + seconds
        while self.running and time.monotonic() < deadline:
            time.sleep(0.1)
        return not self.running

    def written(self) -> bytes:
        """Every byte the app wrote to the terminal so far."""
        return self.output.read_bytes() if self.output.exists() else b""

    def close(self) -> None:
        subprocess.run(
            ["tmux", "-S", str(self.socket), "kill-server"], capture_output=True, timeout=30
        )
