#!/usr/bin/env python3
"""context_server.py — a tiny local endpoint for the sample's URL context script.

    python sample_workspace/scripts/context_server.py            # 127.0.0.1:8765
    python sample_workspace/scripts/context_server.py --port 9000

`GET /context?agent=<id>&label=<label>` answers with JSON: the team's house rules under
`text` (injected into the task) and `escalateTo: "reviewer"`, an agent the gateway does not
know, so the override candidates show a rejected proposal. Standard library only; it listens
on the loopback interface only. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HOST = "127.0.0.1"
PORT = 8765

HOUSE_RULES = """## House rules (from the context server)

- Work on a branch; never push to `main` directly.
- Every change ships with a test, or a note saying why it cannot have one.
- Keep replies to the requester under 300 words; link to files instead of pasting them."""


class ContextHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path != "/context":
            self._reply(404, {"error": f"no route {url.path}; try /context"})
            return
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        agent = query.get("agent", "")
        text = HOUSE_RULES + (
            f"\n\nThese rules apply to `{agent}` as to everyone." if agent else ""
        )
        self._reply(200, {"text": text, "escalateTo": "reviewer"})

    def _reply(self, code: int, doc: dict) -> None:
        body = json.dumps(doc).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        if not getattr(self.server, "quiet", False):
            super().log_message(format, *args)


def make_server(host: str = HOST, port: int = PORT, quiet: bool = False) -> ThreadingHTTPServer:
    """The server, bound but not yet serving (call `serve_forever`)."""
    server = ThreadingHTTPServer((host, port), ContextHandler)
    server.daemon_threads = True
    server.quiet = quiet  # type: ignore[attr-defined]
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description="Demo endpoint for ctxscope's URL script.")
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    server = make_server(HOST, args.port)
    print(f"serving context on http://{HOST}:{server.server_address[1]}/context (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
