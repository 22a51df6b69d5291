"""An installed OpenClaw (and a Node ≥ 22 to run it) for the exact-mode tests: see
`tests/runtimes.py` for where they come from."""

from __future__ import annotations

from pathlib import Path

import pytest

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
