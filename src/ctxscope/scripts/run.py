"""Running one local script file as a child process (URL scripts: `scripts/url.py`).

File scripts run as an argv list (never through a shell) in a new session, so that a timeout
or an oversized output kills the whole process group, grandchildren included. Output is read
with a 1 MiB cap. URL scripts get a timeout and a redirect limit.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ctxscope.core.record import record
from ctxscope.infra import processes
from ctxscope.scripts import reaper
from ctxscope.scripts.entries import MAX_OUTPUT_BYTES, ScriptEntry

if TYPE_CHECKING:
    import subprocess

MAX_STDERR_BYTES = 64 * 1024


@record
class RawRun:
    """What a script printed, before the JSON pipeline."""

    output: str = ""
    """Stripped of surrounding whitespace."""
    error: str | None = None
    timed_out: bool = False
    truncated: bool = False
    duration_ms: float = 0.0


def script_args(entry: ScriptEntry, variables: dict[str, Any]) -> dict[str, Any]:
    """The argMap resolved against the spawn variables (None = undefined)."""
    return {arg: variables.get(var) if var else None for arg, var in entry.arg_map}


def arg_text(value: Any) -> str:
    """A variable as one argv word's value: strings as-is, undefined as "", others as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_input(args: dict[str, Any]) -> str:
    """The stdin document of a `format: "json"` script (undefined variables left out)."""
    return json.dumps({k: v for k, v in args.items() if v is not None}, ensure_ascii=False)


def seconds_text(seconds: float) -> str:
    """`10 seconds`, `1 second`, `0.3 seconds` (no trailing zeros)."""
    return f"{seconds:g} second" + ("" if seconds == 1 else "s")


def run_file(
    path: Path, argv: list[str], stdin_text: str | None, timeout_s: float, cwd: Path
) -> RawRun:
    """Run `path argv...`; never longer than `timeout_s` (plus the time to kill it)."""
    token = uuid.uuid4().hex
    reaper.enable_subreaper()
    reaper.started(token)
    try:
        return _run(path, argv, stdin_text, timeout_s, cwd, token)
    finally:
        reaper.finished(token)


def _run(
    path: Path, argv: list[str], stdin_text: str | None, timeout_s: float, cwd: Path, token: str
) -> RawRun:
    start = time.monotonic()
    since = reaper.boot_ticks()
    try:
        proc = processes.popen(
            reaper.ROLE,
            [str(path), *argv],
            env={**os.environ, reaper.RUN_ENV: token},
            stdin=processes.PIPE if stdin_text is not None else processes.DEVNULL,
            stdout=processes.PIPE,
            stderr=processes.PIPE,
            cwd=cwd if cwd.is_dir() else None,
            start_new_session=True,
            close_fds=True,
        )
    except FileNotFoundError:
        return RawRun(error=f"Script not found: {path}")
    except PermissionError:
        what = "a folder" if path.is_dir() else "not executable (chmod +x it)"
        return RawRun(error=f"Script is {what}: {path}")
    except OSError as exc:
        return RawRun(error=f"Cannot run script {path}: {exc.strerror or exc}")

    def kill() -> None:
        """The script's process group, then whatever escaped it (see `reaper`)."""
        processes.stop(proc.pid, group=True, reap=False)  # `_wait` waits for it
        reaper.sweep(token, since, proc.pid)

    try:
        return _wait(proc, stdin_text, timeout_s, start, kill)
    finally:
        processes.discard(proc.pid)


def _wait(
    proc: subprocess.Popen[bytes],
    stdin_text: str | None,
    timeout_s: float,
    start: float,
    kill: Callable[[], None],
) -> RawRun:
    assert proc.stdout is not None and proc.stderr is not None
    out = _Reader(proc.stdout, MAX_OUTPUT_BYTES, on_overflow=kill)
    err = _Reader(proc.stderr, MAX_STDERR_BYTES)
    if stdin_text is not None and proc.stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin_text), daemon=True).start()
    timed_out = False
    try:
        proc.wait(timeout=timeout_s)
    except processes.TimeoutExpired:
        timed_out = not out.overflowed
        kill()
        proc.wait()
    kill()  # background children left behind would keep the pipes open
    out.join(1.0)
    err.join(0.2)
    run = RawRun(duration_ms=(time.monotonic() - start) * 1000, truncated=out.overflowed)
    if out.overflowed:
        run.output = out.text().strip()
    elif timed_out:
        run.timed_out = True
        run.error = f"Script execution timed out after {seconds_text(timeout_s)}"
    elif proc.returncode < 0:
        name = _signal_name(-proc.returncode)
        run.error = f"Script was killed by signal {name}" + _tail(err.text())
    elif proc.returncode != 0:
        run.error = f"Script exited with code {proc.returncode}" + _tail(err.text())
    else:
        run.output = out.text().strip()
    return run


class _Reader:
    """Drains a pipe in a thread, keeping at most `cap` bytes."""

    def __init__(self, stream: IO[bytes], cap: int, on_overflow: Any = None) -> None:
        self.stream = stream
        self.cap = cap
        self.on_overflow = on_overflow
        self.data = bytearray()
        self.overflowed = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        fd = self.stream.fileno()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                room = self.cap - len(self.data)
                if len(chunk) > room:
                    self.data += chunk[: max(room, 0)]
                    if not self.overflowed:
                        self.overflowed = True
                        if self.on_overflow is not None:
                            self.on_overflow()
                            break
                else:
                    self.data += chunk
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                self.stream.close()

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)

    def text(self) -> str:
        return decode_capped(bytes(self.data), self.overflowed)


def decode_capped(data: bytes, capped: bool) -> str:
    """UTF-8 with replacement; a character the cap cut in half is dropped, not replaced."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if capped and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", errors="replace")
        return data.decode("utf-8", errors="replace")


def _feed(stdin: IO[bytes], text: str) -> None:
    try:
        stdin.write(text.encode("utf-8"))
        stdin.close()
    except OSError:  # the script exited without reading its input
        with contextlib.suppress(OSError):
            stdin.close()


def _tail(stderr: str) -> str:
    stderr = stderr.strip()
    return f": {stderr}" if stderr else ""


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return str(num)
