"""Text tables are never cut: on a terminal the last column wraps to the terminal's width,
and output to a pipe keeps each row whole on one line. Run through the installed program
with its standard output on a real pseudo-terminal of a known size."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from .conftest import SAMPLE

PROGRAM = Path(sys.executable).with_name("ctxscope")
COMMAND = [str(PROGRAM)] if PROGRAM.exists() else [sys.executable, "-m", "ctxscope"]
EXPLAIN = ["explain", str(SAMPLE), "skills", "--child-id", "t1"]


def on_terminal(args: list[str], columns: int) -> str:
    """What `ctxscope ARGS` writes to a terminal `columns` wide (no $COLUMNS set)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen(
        [*COMMAND, *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(slave)
    chunks: list[bytes] = []
    try:
        while select.select([master], [], [], 120)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # the program ended and closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait(timeout=120)
    assert proc.returncode == 0
    return b"".join(chunks).decode().replace("\r\n", "\n")


def piped(args: list[str]) -> str:
    out = subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def rules() -> list[str]:
    answers = json.loads(piped([*EXPLAIN, "--format", "json"]))["answers"]
    assert max(len(a["rule"]) for a in answers) > 140  # long enough to have been cut
    return [a["rule"] for a in answers]


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("columns", [100, 132])
def test_on_a_terminal_the_last_column_wraps_to_its_width(columns: int) -> None:
    text = on_terminal(EXPLAIN, columns)
    table = text.split("\n\nRemedies")[0].splitlines()
    assert all(len(line) <= columns for line in table), max(table, key=len)
    assert "…" not in text
    for rule in rules():
        assert words(rule) in words(text)
    # Continuation lines start under the last column.
    column = table[1].rindex(" ") + 1
    wrapped = [line for line in table[2:] if line[:column].strip() == ""]
    assert wrapped and all(line[column] != " " for line in wrapped)


def test_piped_output_keeps_every_row_whole() -> None:
    text = piped(EXPLAIN)
    assert "…" not in text
    lines = text.splitlines()
    for rule in rules():
        assert any(line.endswith(rule) for line in lines), rule
    session = json.loads(piped(["render", str(SAMPLE), "--format", "json"]))
    reasons = {f["name"]: f["reason"] for f in session["files"]}
    assert len(reasons["MEMORY.md"]) > 100
    rows = [
        line
        for line in piped(["render", str(SAMPLE)]).splitlines()
        if line.startswith("MEMORY.md ")
    ]
    assert rows == [rows[0]] and rows[0].endswith(reasons["MEMORY.md"])


def test_a_terminal_too_narrow_to_wrap_into_gets_whole_rows() -> None:
    """With under 24 columns left for the last one, rows stay whole and the terminal wraps
    them (nothing is cut)."""
    text = on_terminal(EXPLAIN, 60)
    assert "…" not in text
    for rule in rules():
        assert any(line.endswith(rule) for line in text.splitlines())
