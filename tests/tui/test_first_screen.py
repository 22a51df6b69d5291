"""The first screen tells the story, in a real terminal (tmux) at 120×40 and 80×24: what each
session gets (a summary line per pane), what the child misses (with token figures), the
runtime's placeholders folded to a line each, and the context map without pressing `m`."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import SAMPLE
from tests.tui.tmux import Tmux, needs_tmux


def _open(tmp_path: Path, width: int, height: int) -> Tmux:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    return Tmux(tmp_path / "tmux", "tui", str(ws), "--no-watch", width=width, height=height)


@needs_tmux
def test_the_first_screen_at_120x40(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    term = _open(tmp_path, 120, 40)
    try:
        # The first screen once it has settled: the pane scrolls to the first workspace file
        # once it is laid out (on a loaded machine a frame before that can be caught).
        screen = term.wait_for(
            lambda s: (
                "MAIN" in s
                and "category" in s
                and "# AGENTS.md — how we work" in "\n".join(s.splitlines()[:22])
            ),
            "the first screen, opened at the first workspace file",
        )
        lines = screen.splitlines()
        # The lost line: persona first, with the tokens it would have cost.
        assert "Lost in the subagent" in lines[1] and "persona ≈" in lines[1]
        # A summary line per pane: main's tokens by category, what the child lacks.
        summary = next(line for line in lines if "lacks " in line)
        left, right = summary.split("││")
        assert "files " in left and "tool schemas " in left  # the whole request
        assert "lacks 6 files ≈" in right
        # The runtime's placeholders take a line each: no runtime text in the first lines,
        # and the pane opens with the first workspace file in view, folded sections above.
        pane = "\n".join(lines[:22])
        assert "▸ ## " in pane and "⟦runtime text" not in pane
        assert "/AGENTS.md" in pane and "# AGENTS.md — how we work" in pane
        # The map, without `m`: both grids' titles and a legend.
        assert any("MAIN " in line and "SUBAGENT " in line and "≈tok" in line for line in lines)
        assert any("AGENTS.md" in line and "%" in line for line in lines[-14:])
        assert "? Help" in lines[-1]
    finally:
        term.close()


@needs_tmux
def test_the_lost_line_keeps_its_figures_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    term = _open(tmp_path, 80, 24)
    try:

        def lost(screen: str) -> str:
            return " ".join(line.strip() for line in screen.splitlines()[1:3])

        screen = term.wait_for(
            lambda s: "MAIN" in s and "3 files ≈" in lost(s), "the lost line on two lines"
        )
        assert "persona ≈" in lost(screen) and "USER.md" in lost(screen)
        assert "? Help" in screen.splitlines()[-1]
    finally:
        term.close()


@needs_tmux
def test_at_120x40_a_panel_key_then_j_and_o_open_the_rows_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a real terminal, no Tab: `1` puts the focus in Files, `j` moves its row, `o` hands
    the terminal to the editor on that row's file (a stand-in `vi` that notes what it got)."""
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opened = tmp_path / "opened.txt"
    editor = bin_dir / "vi"
    editor.write_text(f'#!/bin/sh\necho "$@" >> {opened}\n', encoding="utf-8")
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    term = _open(tmp_path, 120, 40)
    try:
        term.wait_for(lambda s: "MAIN" in s and "category" in s, "the first screen")
        term.press("1")
        term.wait_for(lambda s: "status" in s and "SOUL.md" in s, "the Files panel")
        term.press("j", "o")
        deadline = time.monotonic() + 30
        while not (opened.exists() and opened.read_text().strip()):
            assert time.monotonic() < deadline, "the editor was not started"
            time.sleep(0.1)
        assert opened.read_text().split() == [str(tmp_path / "ws" / "SOUL.md")]
        term.wait_for(lambda s: "? Help" in s.splitlines()[-1], "the app back")
    finally:
        term.close()
