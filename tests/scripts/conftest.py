"""Fixtures for the context-scripts tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import Handler, Server


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may read or write the real user's config folder."""
    monkeypatch.setenv("CTXSCOPE_CONFIG_DIR", str(tmp_path / "user-config"))


@pytest.fixture
def http_server() -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 (random port); yields its base URL."""
    server = Server(("127.0.0.1", 0), Handler)
    server.requests = []
    server.release = threading.Event()
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port that was bound and closed again: connecting to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home folder (for `~` expansion)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder
