"""Find the user's installed OpenClaw and Node, and talk to a long-lived helper process that
asks that runtime for the prompts it builds (`helper.mjs`, one JSON line per request).

The helper is started once per command or app and killed with its process group on exit, on
a timeout, or when it stops answering. It runs with a private, empty home and state folder
in a scratch folder, so the runtime has nowhere of the user's to write; it only calls the
runtime's prompt builders (no gateway, no listener, no model call).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ctxscope.core.record import record
from ctxscope.infra import processes
from ctxscope.infra.filememo import read_json
from ctxscope.infra.paths import home, on_path, programs_on_path, search_path
from ctxscope.runtimes.openclaw.config import GatewayConfig
from ctxscope.runtimes.openclaw.versions import openclaw_installs

HELPER = Path(__file__).with_name("helper.mjs")
MIN_NODE = 22
START_TIMEOUT = 60.0
"""Seconds the runtime may take to load (reading a bundle of thousands of modules)."""
FIRST_TIMEOUT = 300.0
"""Seconds the helper's first answer may take: the runtime loads the modules its builders
use on their first call, and compiles the TypeScript ones into a cache in the temporary
folder when that cache is cold (OpenClaw 2026.2.19: about 45 s on two cores, later answers
about 3 s)."""
CALL_TIMEOUT = 20.0
"""Seconds each later answer may take."""


class ExactError(Exception):
    """Exact mode cannot run; the message says why, and ctxscope falls back to its model."""


@record(frozen=True)
class Install:
    """An installed OpenClaw package and the Node that runs it."""

    package: Path
    dist: Path
    version: str
    node: str
    node_version: str
    search_path: str = ""
    """The `PATH` the helper runs with: the absolute entries of ctxscope's own that lie in
    no untrusted folder."""

    @property
    def label(self) -> str:
        return f"OpenClaw {self.version} at {self.package}"


Untrusted = Sequence[tuple[Path, str]]
"""Folders nothing is run or loaded from, each with its name for messages ("the workspace
/w"): the workspace and the folders the config names (see `untrusted_folders`)."""


def untrusted_folders(
    workspace: Path, config: GatewayConfig | None = None
) -> list[tuple[Path, str]]:
    """The inspected workspace, the config file's folder and every agent's workspace: what
    a workspace's author may have written. A folder other than the workspace that is the
    home folder or holds it (a config in `~`, an agent workspace `~`) is left out, or no
    program installed under the home folder could run."""
    out = [(workspace, f"the workspace {workspace}")]
    if config is not None:
        if config.folder is not None:
            out.append((config.folder, f"the config's folder {config.folder}"))
        for agent in config.agent_ids():
            folder, _ = config.agent_workspace(agent, workspace)
            out.append((folder, f"agent {agent}'s workspace {folder}"))
    mine = home().resolve()
    seen: set[Path] = set()
    kept: list[tuple[Path, str]] = []
    for i, (folder, name) in enumerate(out):
        real = folder.resolve()
        if real in seen or (i and (real == mine or real in mine.parents)):
            continue
        seen.add(real)
        kept.append((real, name))
    return kept


def lies_in(path: str | Path, untrusted: Untrusted) -> str | None:
    """The name of the untrusted folder `path` lies in once links and `..` are resolved,
    or None."""
    real = Path(os.path.realpath(path))
    for folder, name in untrusted:
        if real == folder or folder in real.parents:
            return name
    return None


def runnable(given: str, what: str) -> str:
    """A program typed as `given` (`--node`, `$CTXSCOPE_NODE`): a path, made absolute from
    the current folder (`~` expanded), or a bare name looked up on PATH's absolute entries."""
    if os.sep not in given and not given.startswith("~"):
        found = on_path(given)
        if found is None:
            raise ExactError(f"exact mode: {what} {given}: no such program on PATH")
        return found
    return os.path.abspath(os.path.expanduser(given))


def find_node(explicit: str | None = None, untrusted: Untrusted = ()) -> tuple[str, str]:
    """(path, version) of the Node to run the helper with: `explicit`, else `$CTXSCOPE_NODE`,
    else `node` on PATH (absolute entries only); it must be Node ≥ 22 and lie in no
    `untrusted` folder (a `node` on PATH that does is passed over; one named is refused
    before it is run)."""
    env = os.environ.get("CTXSCOPE_NODE")
    skipped: list[str] = []
    if explicit or env:
        what = "--node" if explicit else "CTXSCOPE_NODE"
        named = runnable(explicit or env or "", what)
        where = lies_in(named, untrusted)
        if where is not None:
            raise ExactError(
                f"exact mode: {what} {named} lies inside {where}; ctxscope never runs a "
                "program from a workspace"
            )
        candidate: str | None = named
    else:
        candidate = None
        for found in programs_on_path("node"):
            where = lies_in(found, untrusted)
            if where is None:
                candidate = found
                break
            skipped.append(f"{found} (inside {where})")
    if not candidate:
        passed = f"; passed over {', '.join(skipped)}" if skipped else ""
        raise ExactError(
            f"exact mode needs Node ≥ {MIN_NODE}: no `node` on PATH (or set CTXSCOPE_NODE)" + passed
        )
    try:
        out = processes.run(
            "node", [candidate, "--version"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise ExactError(f"exact mode: cannot run Node at {candidate}: {exc}") from None
    major = out.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < MIN_NODE:
        raise ExactError(
            f"exact mode needs Node ≥ {MIN_NODE}; {candidate} is {out or 'unknown'} "
            "(set CTXSCOPE_NODE to a newer one)"
        )
    return candidate, out


def package_folder(runtime: str | None, untrusted: Untrusted = ()) -> Path:
    """The `openclaw` package folder: from `runtime` (the package, its `dist`, a
    `node_modules` or an npm prefix holding it), else the first installed one on PATH /
    in npm's global folder that lies in no `untrusted` folder. Neither the package nor
    its `dist` may lie in one."""
    if runtime:
        given = Path(os.path.abspath(os.path.expanduser(runtime)))
        _refuse_runtime(given, untrusted)
        for sub in ("", "..", "openclaw", "node_modules/openclaw", "lib/node_modules/openclaw"):
            folder = (given / sub).resolve()
            if _is_openclaw(folder):
                _refuse_runtime(folder, untrusted)
                _refuse_runtime(folder / "dist", untrusted)
                return folder
        why = _unreadable(given / "package.json")
        raise ExactError(
            f"--runtime {runtime}: no `openclaw` package (package.json + dist) there"
            + (f" ({given / 'package.json'}: {why})" if why else "")
        )
    skipped: list[str] = []
    for _, installed in openclaw_installs():
        where = lies_in(installed, untrusted) or lies_in(Path(installed, "dist"), untrusted)
        if where is None:
            return Path(installed)
        skipped.append(f"{installed} (inside {where})")
    passed = f"; passed over {', '.join(skipped)}" if skipped else ""
    raise ExactError(
        "exact mode: no OpenClaw installed (none on PATH or in npm's global folder); "
        "install it or name its folder with --runtime DIR" + passed
    )


def _refuse_runtime(path: Path, untrusted: Untrusted) -> None:
    where = lies_in(path, untrusted)
    if where is not None:
        raise ExactError(
            f"exact mode: --runtime {path} lies inside {where}; ctxscope never loads a "
            "runtime from a workspace"
        )


def _is_openclaw(folder: Path) -> bool:
    try:
        data = read_json(folder / "package.json")
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("name") == "openclaw" and (folder / "dist").is_dir()


def _unreadable(path: Path) -> str | None:
    """Why `path`, when it is there, cannot be read as JSON (None: it can, or is absent)."""
    if not os.path.lexists(path):
        return None
    try:
        read_json(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    except ValueError as exc:
        return f"not JSON: {exc}"
    return None


def find_install(
    runtime: str | None = None, node: str | None = None, untrusted: Untrusted = ()
) -> Install:
    """The OpenClaw and Node exact mode would use; raises `ExactError` saying what is
    missing. Nothing is run or loaded from an `untrusted` folder (`untrusted_folders`);
    PATH's relative entries (the current folder) are never searched."""
    package = package_folder(runtime, untrusted)
    where = package / "package.json"
    try:
        data = read_json(where)
    except (OSError, ValueError) as exc:
        raise ExactError(f"exact mode: {where}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise ExactError(f"exact mode: {where} is not a JSON object")
    node_path, node_version = find_node(node, untrusted)
    search = os.pathsep.join(d for d in search_path() if lies_in(d, untrusted) is None)
    return Install(
        package, package / "dist", str(data.get("version", "?")), node_path, node_version, search
    )


class RuntimeHelper:
    """One running `helper.mjs` for an install. `start()` waits for the runtime to load;
    `ask()` sends one request and waits for its answer. Thread-safe (one request at a time).
    """

    def __init__(
        self,
        install: Install,
        *,
        start_timeout: float = START_TIMEOUT,
        first_timeout: float = FIRST_TIMEOUT,
        call_timeout: float = CALL_TIMEOUT,
    ) -> None:
        self.install = install
        self.start_timeout = start_timeout
        self.first_timeout = first_timeout
        self.call_timeout = call_timeout
        self.ready: dict[str, Any] | None = None
        self.answered = False
        """The helper has answered a request: the runtime's modules are loaded."""
        self.on_slow: Callable[[str], None] | None = None
        """Told once when the first answer takes longer than a later one may (the runtime is
        still loading its modules): for a status line."""
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 0
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self.stderr_tail: list[str] = []

    @property
    def loading(self) -> bool:
        """The runtime is still loading: the helper has not started, or has not yet given
        its first answer (which loads the modules the runtime's builders use)."""
        return self.ready is None or not self.answered

    # -- process ------------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        """Start the helper and wait until the runtime is loaded; returns its ready line
        (version, the functions found, the ones missing)."""
        with self._lock:
            if self.ready is not None:
                return self.ready
            self._scratch = tempfile.TemporaryDirectory(prefix="ctxscope-exact-")
            home = self._scratch.name
            env = {
                "PATH": self.install.search_path,
                "HOME": home,
                "OPENCLAW_STATE_DIR": os.path.join(home, "state"),
                "OPENCLAW_HOME": home,
                "NO_COLOR": "1",
                "LANG": os.environ.get("LANG", "C.UTF-8"),
            }
            if "TZ" in os.environ:  # the host's time zone, which the runtime falls back to
                env["TZ"] = os.environ["TZ"]
            if "TMPDIR" in os.environ:  # where the runtime keeps its compiled modules
                env["TMPDIR"] = os.environ["TMPDIR"]
            try:
                self._proc = processes.popen(
                    "exact helper",
                    [self.install.node, str(HELPER), str(self.install.dist)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    encoding="utf-8",
                    errors="surrogateescape",
                    cwd=home,
                    env=env,
                    start_new_session=True,
                )
            except OSError as exc:
                raise ExactError(f"exact mode: cannot start {self.install.node}: {exc}") from None
            threading.Thread(target=self._read_stdout, daemon=True).start()
            threading.Thread(target=self._read_stderr, daemon=True).start()
            first = self._next_line(self.start_timeout, "loading the runtime")
            if not first.get("ready"):
                self._kill()
                raise ExactError(f"exact mode: {first.get('error', 'the helper did not start')}")
            self.ready = first
            return first

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; the answer's `ok` is false with an `error` when the runtime
        threw. Raises `ExactError` when the helper is gone or does not answer in time."""
        return self.ask_all([request])[0]

    def ask_all(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send `requests` at once (the helper answers them in turn, with no round trip
        between them) and return their answers in the same order; as `ask`, each within
        the call timeout."""
        self.start()
        with self._lock:
            proc = self._proc
            if proc is None or proc.poll() is not None or proc.stdin is None:
                raise ExactError(f"exact mode: the {self.install.label} helper has stopped")
            idents = list(range(self._next_id + 1, self._next_id + 1 + len(requests)))
            self._next_id += len(requests)
            try:
                proc.stdin.write(
                    "".join(
                        json.dumps({**request, "id": ident}) + "\n"
                        for ident, request in zip(idents, requests, strict=True)
                    )
                )
                proc.stdin.flush()
            except OSError as exc:
                self._kill()
                raise ExactError(f"exact mode: the helper stopped ({exc})") from None
            answers: dict[int, dict[str, Any]] = {}
            while len(answers) < len(idents):
                answer = self._next_answer()
                if "ok" not in answer:  # not an answer: a line something else printed
                    continue
                ident = answer.get("id")
                if ident is None:  # an answer that names no request: the next one's
                    ident = next(i for i in idents if i not in answers)
                if ident in idents:
                    answers[ident] = answer
            self.answered = True
            return [answers[i] for i in idents]

    def _next_answer(self) -> dict[str, Any]:
        """The next line, within the call timeout, or within the first answer's budget while
        the runtime still loads its modules (saying so once the call timeout has passed)."""
        if self.answered:
            return self._next_line(self.call_timeout, "answering")
        try:
            return self._next_line(self.call_timeout, "answering", stop=False)
        except TimeoutError:
            told, self.on_slow = self.on_slow, None  # told once
            if told is not None:
                told(
                    f"{self.install.label} is still loading: its first answer loads and "
                    "compiles the modules it builds prompts with "
                    f"(allowing {self.first_timeout:g} s)"
                )
        return self._next_line(
            max(self.first_timeout - self.call_timeout, 0.0),
            "loading its modules for its first answer",
            waited=self.call_timeout,
        )

    def close(self) -> None:
        with self._lock:
            self._kill()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            processes.stop(proc, group=True)
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None
        self.ready = None
        self.answered = False

    def _next_line(
        self, timeout: float, doing: str, *, stop: bool = True, waited: float = 0.0
    ) -> dict[str, Any]:
        """The helper's next line, read as JSON. When none comes within `timeout` (after
        `waited` seconds spent already): `TimeoutError` unless `stop`, else the helper is
        stopped and `ExactError` says so."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            if not stop:
                raise TimeoutError(doing) from None
            self._kill()
            raise ExactError(
                f"exact mode: {self.install.label} took more than {timeout + waited:g} s "
                f"{doing}; the helper was stopped"
            ) from None
        if line is None:
            tail = " | ".join(self.stderr_tail[-3:])
            self._kill()
            raise ExactError(
                f"exact mode: the {self.install.label} helper exited while {doing}"
                + (f": {tail}" if tail else "")
            )
        try:
            value = json.loads(line)
        except ValueError:
            return {"id": None, "ok": False, "error": f"unreadable answer: {line[:200]}"}
        return value if isinstance(value, dict) else {"id": None, "ok": False, "error": line}

    def _read_stdout(self) -> None:
        proc = self._proc
        if proc is None or proc.stdout is None:
            return
        for line in proc.stdout:
            if line.strip():
                self._lines.put(line)
        self._lines.put(None)

    def _read_stderr(self) -> None:
        proc = self._proc
        if proc is None or proc.stderr is None:
            return
        for line in proc.stderr:
            if line.strip():
                self.stderr_tail = [*self.stderr_tail[-9:], line.strip()]
