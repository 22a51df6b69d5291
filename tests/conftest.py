"""Fixtures shared by every test: isolation from the real home, and a workspace builder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_workspace"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start installing the real runtimes the selected tests compare with, all at once, and
    run the tests that need them after the others but before the app's (which time frames
    and would share the machine with the installs)."""
    from tests import runtimes

    def needs(item: pytest.Item) -> set[str]:
        return set(getattr(item, "fixturenames", ())) & runtimes.INSTALLERS.keys()

    runtimes.start(name for item in items for name in needs(item))
    tui = REPO / "tests" / "tui"
    items.sort(key=lambda item: 1 if needs(item) else 2 if tui in item.path.parents else 0)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the real user's config or cache folder, or Rye user space."""
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path_factory.mktemp("user-config")))
    monkeypatch.setenv("CTXSCOPE_CACHE_DIR", str(tmp_path_factory.mktemp("user-cache")))
    monkeypatch.delenv("USER_SPACE", raising=False)


WorkspaceFactory = Callable[..., Path]


@pytest.fixture
def make_workspace(tmp_path: Path) -> WorkspaceFactory:
    """Write a workspace: `make_workspace({"AGENTS.md": "..."}, config={...})`.

    `config` may be a dict (written as JSON) or a string (written as-is to openclaw.json).
    """

    def make(
        files: dict[str, str | bytes] | None = None, config: Any = None, name: str = "ws"
    ) -> Path:
        ws = tmp_path / name
        ws.mkdir(parents=True, exist_ok=True)
        for rel, content in (files or {}).items():
            path = ws / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        if config is not None:
            text = config if isinstance(config, str) else json.dumps(config)
            (ws / "openclaw.json").write_text(text, encoding="utf-8")
        return ws

    return make


def pinned(factory: WorkspaceFactory, profile: str) -> WorkspaceFactory:
    """`factory`, with every workspace it makes modelled by `profile` (a ctxscope.yaml naming
    it, unless the test writes its own)."""

    def make(*args: Any, **kwargs: Any) -> Path:
        ws = factory(*args, **kwargs)
        scenario = ws / "ctxscope.yaml"
        if not scenario.exists():
            scenario.write_text(f"profile: {profile}\n", encoding="utf-8")
        return ws

    return make
