"""Fixtures shared by every test: isolation from the real home, and a workspace builder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_workspace"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "runtimes: needs a real runtime (Node >= 22, OpenClaw, ryeos), installed on first use "
        "into $CTXSCOPE_TEST_CACHE (set from the fixtures the test uses)",
    )
    config.addinivalue_line(
        "markers", "terminal: drives the app in a real terminal (a pseudo-terminal or tmux)"
    )
    config.addinivalue_line(
        "markers", "offline: needs no runtime and no registry (every test not `runtimes`)"
    )


def needs(item: pytest.Item) -> set[str]:
    """The runtimes `item` needs: the install fixtures among those it uses."""
    from tests import runtimes

    return set(getattr(item, "fixturenames", ())) & runtimes.INSTALLERS.keys()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that need a real runtime `runtimes` and the others `offline` (before
    `-m` selects), and run them after the others but before the app's (which time frames and
    would share the machine with the installs)."""
    tui = REPO / "tests" / "tui"
    for item in items:
        item.add_marker(pytest.mark.runtimes if needs(item) else pytest.mark.offline)
    items.sort(key=lambda item: 1 if needs(item) else 2 if tui in item.path.parents else 0)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start installing the runtimes the selected tests need, all at once (nothing for
    `--collect-only`, or when `-m "not runtimes"` left them all out)."""
    if session.config.option.collectonly:
        return
    from tests import runtimes

    runtimes.start(name for item in session.items for name in needs(item))


def pytest_unconfigure(config: pytest.Config) -> None:
    """The heap a worker ends with (about a million objects, mostly what the TUI tests' apps
    leave reachable) moved out of the collector's sight before pytest's own end-of-session
    collections (five full ones, to report exceptions raised in finalizers: about 0.8 s
    each). pytest-xdist's transport (execnet) grants a worker 5 s to finish once the run is
    over, then interrupts it, and exits it 10 s later."""
    import gc

    gc.freeze()


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


SKIP_BOOTSTRAP = {"agents": {"defaults": {"skipBootstrap": True}}}
"""OpenClaw reads the folder as it is: no template is written before a first run."""


def as_on_disk(factory: WorkspaceFactory) -> WorkspaceFactory:
    """`factory`, with `agents.defaults.skipBootstrap` in every config it writes (a config
    given as text is written as it is): tests of the loader on the files a folder holds."""

    def make(files: Any = None, config: Any = None, name: str = "ws") -> Path:
        if config is None or isinstance(config, dict):
            config = json.loads(json.dumps(config or {}))
            agents = config.setdefault("agents", {})
            agents.setdefault("defaults", {})["skipBootstrap"] = True
        return factory(files, config=config, name=name)

    return make


@pytest.fixture
def tuned(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tuning on, as the `ctxscope` command turns it on (`ctxscope.infra.tuning`); the collector's
    thresholds and frozen objects put back afterwards."""
    import gc

    from ctxscope.infra import tuning

    monkeypatch.setattr(tuning, "_state", {"on": True, "froze": False})
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
        gc.enable()
