"""The tests say what they need: those that use a real runtime are marked `runtimes` (so
`-m "not runtimes"` runs offline), nothing is installed to collect them, and an install that
fails skips them with one line instead of erroring. Checked on a tiny suite run by a real
pytest, with a failing `npm` first on PATH and an empty cache folder."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from tests import runtimes
from tests.conftest import REPO

NODE_PACKAGE = runtimes.NODE_PACKAGES.get((platform.system(), platform.machine()))

CONFTEST = """\
from tests.conftest import *  # the suite's own hooks
from tests.exact.conftest import node22, openclaw_package, openclaw_package_2
from tests.rye.conftest import ryeos
"""

TESTS = """\
import pytest


def test_offline():
    pass


def test_node(node22):
    pass


def test_openclaw(openclaw_package):
    pass


def test_openclaw_2(openclaw_package_2):
    pass


def test_rye(ryeos):
    pass


@pytest.mark.terminal
def test_in_a_terminal():
    pass
"""


class Suite:
    """The tiny suite in a folder of its own, run as `pytest ARGS` in a new interpreter."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / "cache"
        self.calls = root / "npm-calls"
        suite = root / "suite"
        suite.mkdir()
        (suite / "conftest.py").write_text(CONFTEST)
        (suite / "test_tiny.py").write_text(TESTS)
        self.cache.mkdir()
        bin_dir = root / "bin"
        bin_dir.mkdir()
        fakes = {
            # A registry that cannot be reached, as npm reports it.
            "npm": f'echo "$@" >> {self.calls}\n'
            "echo 'npm error code ENOTFOUND' >&2\n"
            "echo 'npm error network request to https://registry.npmjs.org failed' >&2\n"
            "exit 1",
            "node": "echo v20.0.0",  # too old: Node 22 would come from npm
        }
        for name, body in fakes.items():
            fake = bin_dir / name
            fake.write_text(f"#!/bin/sh\n{body}\n")
            fake.chmod(0o755)
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("PIP_", "CTXSCOPE_", "PYTEST_", "NPM_", "npm_"))
        }
        self.env.update(
            PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            PYTHONPATH=str(REPO),
            CTXSCOPE_TEST_CACHE=str(self.cache),
            PIP_CONFIG_FILE=os.devnull,  # no index at all: ryeos cannot be found
            PIP_NO_INDEX="1",
        )

    def run(self, *args: str) -> str:
        pytest_args = ["-p", "no:cacheprovider", "--strict-markers", "-rs", "-q", *args]
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *pytest_args],
            cwd=self.root / "suite",
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return done.stdout + done.stderr

    def installed_nothing(self) -> bool:
        return not self.calls.exists() and not any(self.cache.iterdir())


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    return Suite(tmp_path)


def test_leaving_out_the_runtimes_runs_offline_and_installs_nothing(suite: Suite) -> None:
    out = suite.run("-m", "not runtimes")
    assert "2 passed, 4 deselected" in out, out
    assert suite.installed_nothing()


def test_the_offline_marker_is_every_test_but_the_runtime_ones(suite: Suite) -> None:
    """`-m offline`, which CI runs first, selects what `-m "not runtimes"` does."""
    out = suite.run("-m", "offline")
    assert "2 passed, 4 deselected" in out, out
    assert suite.installed_nothing()


def test_collecting_installs_nothing(suite: Suite) -> None:
    out = suite.run("--collect-only")
    assert "6 tests collected" in out, out
    assert suite.installed_nothing()
    only = suite.run("--collect-only", "-m", "runtimes")
    assert "4/6 tests collected (2 deselected)" in only, only
    assert suite.installed_nothing()


@pytest.mark.skipif(NODE_PACKAGE is None, reason="npm has no build of Node for this machine")
def test_an_install_that_fails_skips_the_tests_that_need_it(suite: Suite) -> None:
    out = suite.run("-m", "not terminal")
    assert "1 passed, 4 skipped, 1 deselected" in out, out
    assert "error" not in out.splitlines()[-1]
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert len(skips) == 4, out
    npm_failed = "(npm exited 1): npm error network request to https://registry.npmjs.org failed"
    assert sorted(line.split(": ", 1)[1] for line in skips) == sorted(
        [
            f"{NODE_PACKAGE}@22 cannot be installed {npm_failed}",
            f"openclaw@2026.9.6 cannot be installed {npm_failed}",
            f"openclaw@2026.2.19 cannot be installed {npm_failed}",
            "ryeos==0.1.30 cannot be installed (python exited 1): ERROR: No matching "
            "distribution found for ryeos==0.1.30",
        ]
    )
    commands = sorted(line.split()[0] for line in suite.calls.read_text().splitlines())
    assert commands == ["install", "install", "pack"]  # each tried once, not once a test


@pytest.mark.skipif(NODE_PACKAGE is None, reason="npm has no build of Node for this machine")
def test_worker_processes_install_a_runtime_once(tmp_path: Path) -> None:
    """The suite's two worker processes (pytest-xdist) each start the installs their tests
    need: one installs while the other waits on its lock, then finds it installed."""
    bin_dir, cache, calls = tmp_path / "bin", tmp_path / "cache", tmp_path / "npm-calls"
    bin_dir.mkdir()
    built = f"node_modules/{NODE_PACKAGE}/bin/node"
    fakes = {
        # an install that takes a moment, writing the program last, as npm does
        "npm": f'echo "$@" >> {calls}\nsleep 1\nprefix="$3"\n'
        f'mkdir -p "$(dirname "$prefix/{built}")"\nprintf "#!/bin/sh\\necho v22.0.0\\n" '
        f'> "$prefix/{built}"\nchmod +x "$prefix/{built}"',
        "node": "echo v20.0.0",  # too old: Node 22 comes from npm
    }
    for name, body in fakes.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXSCOPE_")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=str(REPO),
        CTXSCOPE_TEST_CACHE=str(cache),
    )
    code = "from tests import runtimes; print(runtimes.get('node22'))"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True, cwd=REPO
        )
        for _ in range(2)
    ]
    said = [worker.communicate(timeout=120)[0].strip() for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0]
    assert said == [str(cache / "node22" / built)] * 2
    assert len(calls.read_text().splitlines()) == 1  # installed once


def test_where_runtimes_are_required_an_install_that_fails_fails_the_tests(suite: Suite) -> None:
    """`.ci/run` sets `CTXSCOPE_RUNTIMES=required`: CI never passes by skipping."""
    suite.env["CTXSCOPE_RUNTIMES"] = "required"
    out = suite.run("-m", "not terminal")
    assert "1 passed, 1 deselected, 4 errors" in out, out  # each fails at its fixture
    assert "SKIPPED" not in out
    assert f"{NODE_PACKAGE}@22 cannot be installed (npm exited 1)" in out


def test_installing_the_runtimes_first_tries_each_again_and_says_which_failed(
    suite: Suite,
) -> None:
    """`python -m tests.runtimes` (what `.ci/run` runs before the tests, for every runtime)
    exits 1 naming each runtime it could not install after its tries."""
    suite.env["CTXSCOPE_RUNTIMES"] = "required"
    done = subprocess.run(
        [sys.executable, "-m", "tests.runtimes", "node22", "openclaw_package_2"],
        cwd=suite.root,
        env=suite.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr
    for name in ("node22", "openclaw_package_2"):
        assert f"{name}: NOT INSTALLED:" in done.stderr, done.stderr
        assert f"{name}: try 2 failed:" in done.stderr
    tries = [line.split()[0] for line in suite.calls.read_text().splitlines()]
    assert sorted(tries) == ["install"] * 3 + ["pack"] * 3, suite.calls.read_text()
