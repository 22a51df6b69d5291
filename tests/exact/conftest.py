"""An installed OpenClaw (and a Node ≥ 22 to run it) for the exact-mode tests: see
`tests/runtimes.py` for where they come from."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxscope.core.model import Session
from ctxscope.runtimes.openclaw.exact import ExactMode, find_install
from ctxscope.runtimes.openclaw.exact.runtime import Install
from tests import runtimes


@pytest.fixture(scope="session")
def node22() -> str:
    return str(runtimes.get("node22"))


@pytest.fixture(scope="session")
def openclaw_package() -> Path:
    return Path(runtimes.get("openclaw_package"))


@pytest.fixture(scope="session")
def openclaw_package_2() -> Path:
    return Path(runtimes.get("openclaw_package_2"))


class KeptExact(ExactMode):
    """Exact mode whose helper outlives the inspectors that use it (the runtime takes seconds
    to load; the helper answers each request from the request alone, as in the app, where
    one helper serves every rebuild)."""

    def close(self) -> None:
        pass  # stopped at the end of the test session


@pytest.fixture(scope="session")
def node24() -> str:
    return str(runtimes.get("node24"))


@pytest.fixture(scope="session")
def kept_exact(node22: str) -> Iterator[Callable[..., ExactMode]]:
    """Exact mode for an OpenClaw package folder (run by Node 22, or the Node given), one
    running helper per install: folder, Node and the PATH the runtime is given (a test that
    sets PATH gets a helper of its own, whichever test asked first)."""
    modes: dict[Install, KeptExact] = {}

    def mode(package: Path, node: str = node22) -> ExactMode:
        install = find_install(str(package), node)
        if install not in modes:
            modes[install] = KeptExact(install)
        return modes[install]

    yield mode
    for kept in modes.values():
        ExactMode.close(kept)


_FILE_DRIFT = re.compile(
    r"\): (?:[^:']+: (?:the runtime injects|ctxscope's model injects|injected text differs)"
    r"|prompt mode:|first user message:)"
)


def unexpected_drift(session: Session) -> list[str]:
    """The drift a session must not show: all of it where the runtime's builders were given
    ctxscope's inputs; where the runtime's runner prepared the session (its own text, its own
    runtime-added sections), what ctxscope's model must still match exactly: each context
    file's text, the prompt mode and the first user message."""
    drift = [d.message for d in session.diagnostics if d.code in ("drift", "exact-unavailable")]
    runner = any("the runtime's runner prepared this session" in m for m in drift)
    if runner:
        return [m for m in drift if _FILE_DRIFT.search(m) or "exact mode" in m]
    return drift
