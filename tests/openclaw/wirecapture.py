"""Run the real OpenClaw gateway on a workspace against a model served on 127.0.0.1, and keep
the requests it sends: the main turn's and the subagent's it spawns.

The model answers the main turn's first request with a `sessions_spawn` call (through
`tool_call` when Tool Search is on) and everything else with text. Nothing leaves the machine:
the gateway binds to loopback, with discovery, update checks and telemetry off, in a private
HOME and state folder.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MAIN = "CTXSCOPE-WIRE-MAIN"
TASK = "WIRE-ORACLE-CHILD: review the workspace and report"
TOKEN = "ctxscope-wire-token"
TASK_2 = "WIRE-ORACLE-GRANDCHILD: check one file and report"
"""The task the child gives its own child when the capture goes two levels deep."""


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` merged into `base` key by key (objects merged, anything else replaced)."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        out[key] = (
            merged(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return out


def user_texts(body: dict[str, Any]) -> list[str]:
    out = []
    for m in body.get("messages") or []:
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append(content if isinstance(content, str) else "")
    return out


class _Model(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send(200, "application/json", json.dumps({"data": [{"id": "wire-model"}]}))

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or "{}")
        with self.server.lock:
            self.server.bodies.append(body)
        names = {(t.get("function") or {}).get("name") for t in body.get("tools") or []}
        users = user_texts(body)
        spawn = {"task": TASK, "label": "wire", **self.server.spawn_args}
        first = users and MAIN in users[0]
        tools_said = " ".join(
            json.dumps(m.get("content"))
            for m in body.get("messages") or []
            if m.get("role") == "tool"
        )
        if first and PAIRING in tools_said and self.server.retries < 2:
            # The spawn's own gateway client asked for a wider device scope (2026.2): once the
            # capture has approved it, the model asks for the spawn again.
            self.server.retries += 1
            self.server.pairing.set()
            self.server.approved.wait(90)
            self.server.approved.clear()
            first = True
            body = {**body, "messages": [m for m in body["messages"] if m.get("role") != "tool"]}
        if self.server.depth > 1 and users and TASK in users[0] and "[Subagent Task]" in users[0]:
            first, spawn = True, {"task": TASK_2, "label": "wire2"}
        if first and not any(m.get("role") == "tool" for m in body.get("messages") or []):
            call = (
                ("sessions_spawn", spawn)
                if "sessions_spawn" in names
                else ("tool_call", {"id": "sessions_spawn", "args": spawn})
            )
            delta = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": f"call_{self.server.retries + 1}",
                        "type": "function",
                        "function": {"name": call[0], "arguments": json.dumps(call[1])},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            delta, finish = {"role": "assistant", "content": "Done."}, "stop"
        chunks = [
            {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        ]
        sse = "".join(
            f"data: {json.dumps({'id': 'c', 'object': 'chat.completion.chunk', **c})}\n\n"
            for c in chunks
        )
        self._send(200, "text/event-stream", sse + "data: [DONE]\n\n")

    def _send(self, code: int, kind: str, text: str) -> None:
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True


PAIRING = "pairing required"
"""What OpenClaw 2026.2's spawn tool answers while its device scope upgrade awaits approval."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    retries: int
    pairing: threading.Event
    """Set when the spawn waits for a device pairing approval."""
    approved: threading.Event
    lock: threading.Lock
    bodies: list[dict[str, Any]]
    spawn_args: dict[str, Any]
    depth: int


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.5)
    return False


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End a process group this module started (by its own id)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        except ProcessLookupError:
            pass


def config_for(
    ws: Path, model_port: int, gateway_port: int, extra: dict[str, Any], release: str = ""
) -> dict:
    config: dict[str, Any] = {
        "gateway": {
            "mode": "local",
            "port": gateway_port,
            "bind": "loopback",
            "auth": {"mode": "token", "token": TOKEN},
        },
        "discovery": {"mdns": {"mode": "off"}},
        "update": {"checkOnStart": False},
        "telemetry": {"enabled": False},
        "agents": {
            "defaults": {
                "workspace": str(ws),
                "model": {"primary": "wire/wire-model"},
                "userTimezone": "UTC",
                "bootstrapMaxChars": 20000,
            }
        },
        "models": {
            "mode": "merge",
            "catalogRefresh": {"enabled": False},
            "providers": {
                "wire": {
                    "baseUrl": f"http://127.0.0.1:{model_port}/v1",
                    "apiKey": "wire-local",
                    "api": "openai-completions",
                    "models": [
                        {
                            "id": "wire-model",
                            "name": "Wire",
                            "reasoning": False,
                            "input": ["text"],
                            "contextWindow": 200000,
                            "maxTokens": 8192,
                        }
                    ],
                }
            },
        },
    }
    if release.startswith("2026.2."):
        # Keys 2026.2 does not know (it refuses a config that has them).
        del config["telemetry"], config["models"]["catalogRefresh"]
    return merged(config, extra)


def capture(
    node: str,
    package: Path,
    ws: Path,
    scratch: Path,
    extra: dict[str, Any],
    timeout: float = 240,
    settled: Callable[[Path], bool] | None = None,
    *,
    spawn_args: dict[str, Any] | None = None,
    depth: int = 1,
    env_vars: dict[str, str] | None = None,
    config_files: dict[str, str] | None = None,
    session_key: str | None = None,
    child: bool = True,
) -> list[dict[str, Any]]:
    """The request bodies the runtime sent until the spawned subagent's first one (with
    `depth` 2, until the first one of the child's own child). `spawn_args` go into the spawn
    call beside the task (`agentId`), `env_vars` into the gateway's environment, and
    `config_files` (name -> text) beside its config (for `$include`); `session_key` names
    the main turn's session (default: the main agent's main session). With `child` False
    (a child that cannot run here, such as a sandboxed one without Docker), until the main
    turn's request after the spawn's result. With `settled`, the gateway runs on until
    `settled(state folder)` holds (its session store, `scratch/state`, is left behind)."""
    server = _Server(("127.0.0.1", 0), _Model)
    server.lock, server.bodies = threading.Lock(), []
    server.spawn_args, server.depth = dict(spawn_args or {}), depth
    server.retries, server.pairing, server.approved = 0, threading.Event(), threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state, home, tmp = scratch / "state", scratch / "home", scratch / "tmp"
    for folder in (state, home, tmp):
        folder.mkdir(parents=True)
    port = _free_port()
    release = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    config = config_for(ws, server.server_address[1], port, extra, release)
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    for name, text in (config_files or {}).items():
        (state / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env.update(
        HOME=str(home),
        TMPDIR=str(tmp),
        TZ="UTC",
        OPENCLAW_STATE_DIR=str(state),
        OPENCLAW_CONFIG_PATH=str(state / "openclaw.json"),
        OPENCLAW_SKIP_CHANNELS="1",
        OPENCLAW_SKIP_CRON="1",
        OPENCLAW_DISABLE_BONJOUR="1",
        OPENCLAW_NO_AUTO_UPDATE="1",
        DO_NOT_TRACK="1",
        **(env_vars or {}),
    )
    entry = str(package / "openclaw.mjs")
    log = (scratch / "gateway.log").open("wb")
    gateway = subprocess.Popen(
        [node, entry, "gateway", "run"],
        cwd=ws,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    agent = None
    try:
        if not _wait(lambda: _port_open(port) or gateway.poll() is not None, timeout):
            raise RuntimeError("the gateway did not open its port")
        if gateway.poll() is not None:
            raise RuntimeError((scratch / "gateway.log").read_text(errors="replace")[-2000:])
        agent = subprocess.Popen(
            [
                node,
                entry,
                "agent",
                *(("--session-key", session_key) if session_key else ("--agent", "main")),
                "--message",
                f"{MAIN}: delegate",
                "--json",
            ],
            cwd=ws,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

        last = TASK_2 if depth > 1 else TASK

        def child_seen() -> bool:
            with server.lock:
                return any(
                    any("[Subagent Task]" in u and last in u for u in user_texts(b))
                    for b in server.bodies
                )

        def main_done() -> bool:
            with server.lock:
                return any(
                    MAIN in (user_texts(b) or [""])[0]
                    and any(m.get("role") == "tool" for m in b.get("messages") or [])
                    for b in server.bodies
                )

        def approve_pairing() -> bool:
            done = (child_seen if child else main_done)()
            if not done and server.pairing.is_set():
                server.pairing.clear()
                subprocess.run(
                    [node, entry, "devices", "approve", "--latest", "--token", TOKEN],
                    cwd=ws,
                    env=env,
                    capture_output=True,
                    timeout=60,
                    check=False,
                )
                server.approved.set()
            return done

        if not _wait(approve_pairing, timeout):
            raise RuntimeError("the subagent's request never reached the model")
        if settled is not None and not _wait(lambda: settled(state), timeout):
            raise RuntimeError("the gateway's session store never settled")
    finally:
        if agent is not None:
            _stop(agent)
        _stop(gateway)
        log.close()
        server.shutdown()
    return list(server.bodies)


def write_capture_config(ws: Path, extra: dict[str, Any], scenario_extra: str = "") -> None:
    """The capture's gateway config (a model served over `openai-completions`, UTC,
    bootstrapMaxChars 20000, with `extra` merged on top) and the spawn it makes, written into
    `ws` for ctxscope."""
    config: dict[str, Any] = {
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "agents": config_for(ws, 0, 0, {})["agents"],  # the gateway's own agent defaults
        "models": {"providers": {"wire": {"api": "openai-completions"}}},
        **extra,
    }
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    (ws / "ctxscope.yaml").write_text(
        f"task: {json.dumps(TASK)}\nlabel: wire\nprofile: openclaw-2026.9\n" + scenario_extra,
        encoding="utf-8",
    )
