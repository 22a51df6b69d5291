"""Helpers for the context-scripts tests: real scripts in tmp folders, a real HTTP server."""

from __future__ import annotations

import json
import stat
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ctxscope.scripts import ScriptCache, ScriptsOutcome, SpawnVariables, run_context_scripts


def write_script(folder: Path, name: str, body: str, shebang: str = "#!/usr/bin/env bash") -> Path:
    """Write an executable script file and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"{shebang}\n{body.strip()}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def py_script(folder: Path, name: str, body: str) -> Path:
    return write_script(folder, name, body, shebang=f"#!{sys.executable}")


def json_script(folder: Path, name: str, document: Any) -> Path:
    """A bash script that prints `document` (a str is printed verbatim, else as JSON)."""
    text = document if isinstance(document, str) else json.dumps(document)
    return write_script(folder, name, f"cat <<'CTXSCOPE_EOF'\n{text}\nCTXSCOPE_EOF")


def config_with(
    defaults: list[Any] | None = None, agents: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "agents": {"list": agents if agents is not None else [{"id": "main"}, {"id": "coder"}]}
    }
    if defaults is not None:
        cfg["agents"]["defaults"] = {"subagents": {"contextScripts": {"run": defaults}}}
    return cfg


def spawn_vars(cfg: dict[str, Any] | None = None, **overrides: Any) -> SpawnVariables:
    values: dict[str, Any] = {
        "targetAgentId": "steward",
        "task": "Review the architecture",
        "label": "arch",
        "requesterAgentId": "main",
        "requesterSessionKey": "agent:main:main",
        "cleanup": "keep",
        "cfg": cfg if cfg is not None else {},
    }
    values.update(overrides)
    return SpawnVariables(**values)


def run_cfg(
    cfg: dict[str, Any],
    config_dir: Path,
    *,
    trusted: bool = True,
    requester: str = "main",
    agents: set[str] | None = None,
    cache: ScriptCache | None = None,
    **var_overrides: Any,
) -> ScriptsOutcome:
    return run_context_scripts(
        cfg,
        config_dir,
        requester,
        spawn_vars(cfg, requesterAgentId=requester, **var_overrides),
        trusted=trusted,
        configured_agents=agents if agents is not None else {"main", "coder"},
        cache=cache,
        config_path=str(config_dir / "openclaw.json"),
    )


def process_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(
        self,
        code: int,
        body: bytes,
        ctype: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _route(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.requests.append((self.command, self.path, body))
        if url.path == "/json":
            self._send(200, json.dumps({"message": "from json", "agent": "coder"}).encode())
        elif url.path == "/text":
            self._send(200, b"  plain text from the server  \n", "text/plain; charset=utf-8")
        elif url.path == "/500":
            self._send(500, b"oops", "text/plain")
        elif url.path == "/loop":
            self._send(302, b"", headers={"Location": "/loop"})
        elif url.path == "/slow":
            self.server.release.wait(5)
            self._send(200, b"too late", "text/plain")
        elif url.path == "/trickle":  # a status line and headers one byte at a time
            for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Pad: " + b"x" * 200:
                if self.server.release.wait(0.05):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            self.wfile.write(b"\r\nContent-Length: 9\r\n\r\ntoo late!")
        elif url.path == "/big":
            self._send(200, b"y" * (3 * 1024 * 1024), "text/plain")
        elif url.path == "/api-error":
            self._send(200, json.dumps({"error": {"message": "rate limited"}}).encode())
        elif url.path == "/echo":
            doc = {
                "method": self.command,
                "query": {k: v[0] for k, v in parse_qs(url.query).items()},
                "body": json.loads(body) if body else None,
                "content_type": self.headers.get("Content-Type"),
            }
            self._send(200, json.dumps(doc).encode())
        else:
            self._send(404, b"no such route", "text/plain")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _route


class Server(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[tuple[str, str, bytes]]
    release: threading.Event
