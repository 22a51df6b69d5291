"""What the script reaper kills: what a script left behind, never a process ctxscope or the
program it runs in started meanwhile."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

import ctxscope
from ctxscope.infra import processes
from ctxscope.scripts import ScriptResult, ScriptsOutcome, reaper

from .helpers import config_with, process_alive, py_script, write_script

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the reaper's sweep reads /proc (Linux)"
)


def wait_until(seen: Callable[[], bool], what: str, limit: float = 20.0) -> None:
    """Poll `seen` until it holds (fails after `limit` seconds: a hang guard, not a timing)."""
    deadline = time.monotonic() + limit
    while not seen():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=4) as executor:
        yield executor


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts itself; killed and waited for at its end."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def inspector(ws: Path, script: str) -> ctxscope.Inspector:
    """An Inspector on a workspace whose one context script is `script` (trusted)."""
    (ws / "openclaw.json").write_text(json.dumps(config_with([{"id": "s", "uri": script}])))
    return ctxscope.Inspector(ws, scenario={"target": "coder"}, trusted=True)


def leaves_an_orphan(ws: Path, go: Path) -> Path:
    """A script (run under `env -i`: no run token) whose grandchild calls setsid(),
    double-forks and sleeps; the script then waits for `go` before it ends. Returns the file
    the orphan writes its pid to."""
    pidfile = ws / "orphan.pid"
    py_script(
        ws,
        "escape.py",
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.closerange(0, 3)\n"
        f"        open({str(pidfile) + '.tmp'!r}, 'w').write(str(os.getpid()))\n"
        f"        os.rename({str(pidfile) + '.tmp'!r}, {str(pidfile)!r})\n"
        "        time.sleep(60)\n"
        "    os._exit(0)\n"
        "deadline = time.monotonic() + 20\n"  # a hang guard
        f"while not os.path.exists({str(go)!r}) and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        "print('done')\n",
    )
    write_script(ws, "run.sh", f"/usr/bin/env -i {sys.executable} {ws / 'escape.py'}")
    return pidfile


def script_result(outcome: Future[ScriptsOutcome]) -> ScriptResult:
    (result,) = outcome.result(timeout=30).results
    return result


def test_children_started_during_a_script_run_survive_its_sweep(
    tmp_path: Path, pool: ThreadPoolExecutor, children: list[subprocess.Popen[bytes]]
) -> None:
    """A program using the Python API runs the scripts on one thread and starts processes of
    its own meanwhile (from another thread and from the main thread, in its session and in a
    new one), as ctxscope starts its Node helper: the script's orphan is killed, and every one
    of those runs on (`poll()` says so: none was reaped behind its back)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    go = tmp_path / "go"
    pidfile = leaves_an_orphan(ws, go)
    ins = inspector(ws, "run.sh")
    run = pool.submit(ins.run_scripts)
    wait_until(pidfile.exists, "the orphan to start")

    def start(**kw: object) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["sleep", "30"], **kw)  # type: ignore[call-overload]
        children.append(proc)
        return proc

    from_thread = pool.submit(start).result()
    own_session = pool.submit(lambda: start(start_new_session=True)).result()
    from_main = start()
    helper = processes.popen("exact helper", ["sleep", "30"], start_new_session=True)
    children.append(helper)
    go.touch()
    result = script_result(run)
    assert (result.status, result.output) == ("ok", "done")
    orphan = int(pidfile.read_text())
    wait_until(lambda: not process_alive(orphan), "the orphan to be killed")
    for proc in (from_thread, own_session, from_main, helper):
        assert proc.poll() is None and process_alive(proc.pid)


def test_a_scripts_background_process_survives_another_script_ending(
    tmp_path: Path, pool: ThreadPoolExecutor
) -> None:
    """Two runs at once: the first run's background process (its parent exited, so ctxscope
    adopted it), started while the second runs, still runs when the second ends and sweeps;
    it is killed when its own run ends."""
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    pidfile, second_began, go = tmp_path / "bg.pid", tmp_path / "second-began", tmp_path / "go"

    def wait_for_file(path: Path) -> str:  # with a hang guard
        return f"for _ in $(seq 1000); do [ -e {path} ] && break; sleep 0.02; done\n"

    write_script(
        first_dir,
        "bg.sh",
        wait_for_file(second_began)
        + f"( sleep 60 & echo $! > {pidfile}.tmp; mv {pidfile}.tmp {pidfile} )\n"
        + wait_for_file(go)
        + f'if kill -0 "$(cat {pidfile})" 2>/dev/null; then echo alive; else echo gone; fi',
    )
    write_script(second_dir, "second.sh", f"touch {second_began}\n" + wait_for_file(pidfile))
    first = pool.submit(reaper_run, first_dir / "bg.sh")
    assert reaper_run(second_dir / "second.sh") == ""
    go.touch()
    assert first.result(timeout=30) == "alive"
    background = int(pidfile.read_text())
    wait_until(lambda: not process_alive(background), "the first run's leftover to be killed")


def reaper_run(path: Path) -> str:
    from ctxscope.scripts.run import run_file

    run = run_file(path, [], None, 30.0, path.parent)
    assert run.error is None, run.error
    return run.output


def test_quitting_kills_the_scripts_still_running(tmp_path: Path, pool: ThreadPoolExecutor) -> None:
    started = tmp_path / "started"
    write_script(tmp_path, "hang.sh", f"touch {started}\nsleep 60")
    from ctxscope.scripts.run import run_file

    run = pool.submit(run_file, tmp_path / "hang.sh", [], None, 60.0, tmp_path)
    wait_until(lambda: started.exists() and processes.running(reaper.ROLE), "the script")
    reaper.kill_running()
    assert run.result(timeout=30).error == "Script was killed by signal SIGKILL"
    assert processes.running(reaper.ROLE) == []


def test_the_registry_forgets_processes_once_they_are_gone() -> None:
    done = processes.run("probe", ["echo", "hi"], capture_output=True, text=True, check=True)
    assert (done.returncode, done.stdout) == (0, "hi\n") and processes.running("probe") == []
    first = processes.popen("probe", ["true"])
    first.wait()
    second = processes.popen("probe", ["sleep", "30"])
    try:
        assert processes.running("probe") == [second.pid]  # the first, gone, is dropped
        assert processes.owns(second.pid, None)
        start = processes.stat(second.pid)
        assert start is not None and processes.owns(second.pid, start.start)
        assert not processes.owns(second.pid, start.start + 1)  # the pid, handed out again
    finally:
        second.kill()
        second.wait()


def test_a_timed_out_run_through_processes_is_killed(tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run("probe", ["sleep", "30"], timeout=0.2)
    assert processes.running("probe") == []


def test_every_process_ctxscope_starts_goes_through_the_registry() -> None:
    """No module starts a process but `ctxscope.infra.processes` (so the reaper knows them all)."""
    src = Path(processes.__file__).parent
    starts = re.compile(
        r"\bsubprocess\.(Popen|run|call|check_call|check_output)\(|\bos\.(fork|forkpty|"
        r"posix_spawnp?|spawn\w*|system|popen)\(|create_subprocess_\w+\(|\bpty\.fork\("
    )
    found = [
        f"{path.relative_to(src)}:{n}: {line.strip()}"
        for path in sorted(src.rglob("*.py"))
        if path.name != "processes.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if starts.search(line)
    ]
    assert found == []
