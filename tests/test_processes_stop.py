"""Every process ctxscope ends, it ends through `processes.stop`: a child started through the
registry is killed (with its process group where asked), reaped and dropped from the
registry; nothing else in ctxscope sends a signal."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from ctxscope.infra import processes

SRC = Path(__file__).resolve().parent.parent / "src" / "ctxscope"


def gone(pid: int) -> bool:
    """Whether `pid` no longer exists (reaped, not a zombie)."""
    return processes.stat(pid) is None


def test_a_child_and_its_group_are_stopped_reaped_and_forgotten() -> None:
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(1, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = processes.popen(
        "test", [sys.executable, "-c", code], stdout=processes.PIPE, start_new_session=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"1"
    members = [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and (s := processes.stat(int(p))) and s.session == proc.pid
    ]
    assert len(members) == 2 and proc.pid in processes.running("test")
    assert processes.stop(proc, group=True)
    assert proc.returncode is not None and proc.pid not in processes.running("test")
    deadline = time.monotonic() + 5
    while not all(gone(p) or processes.stat(p).state == "Z" for p in members):  # type: ignore[union-attr]
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert not processes.stop(proc)  # already ended: nothing sent


def test_a_forked_child_is_stopped_by_its_pid_and_reaped() -> None:
    pid = processes.fork("test")
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    assert processes.stop(pid)
    assert gone(pid) and pid not in processes.running("test")


def test_no_other_module_sends_a_signal() -> None:
    signals = re.compile(r"\bos\.kill(pg)?\(|\.kill\(\)|\.terminate\(\)|\.send_signal\(")
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in SRC.rglob("*.py")
        if path.name != "processes.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if signals.search(line)
    ]
    assert found == []
