"""Calling a URL script through httpx (imported only when a URL script runs: httpx costs
tens of milliseconds to import)."""

from __future__ import annotations

import contextlib
import ssl
import threading
import time
from typing import Any

import certifi
import httpx

from ctxscope.scripts.deadline import DeadlineTransport
from ctxscope.scripts.entries import MAX_OUTPUT_BYTES, ScriptEntry
from ctxscope.scripts.run import (
    RawRun,
    arg_text,
    decode_capped,
    seconds_text,
)

MAX_REDIRECTS = 10
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
"""Methods that send the argMap as a JSON body; every other method uses the query string."""


def run_url(entry: ScriptEntry, args: dict[str, Any], timeout_s: float) -> RawRun:
    """Call a URL script: query string for GET and the like, JSON body for POST/PUT/PATCH."""
    start = time.monotonic()
    run = RawRun()
    method = entry.method
    kwargs: dict[str, Any] = {}
    url: httpx.URL | str = entry.uri
    present = {k: v for k, v in args.items() if v is not None}
    params: dict[str, str] = {}
    if method in BODY_METHODS:
        if entry.arg_map:
            kwargs["json"] = present
    elif present:
        params = {k: arg_text(v) for k, v in present.items()}
    try:
        if params:  # added to any query string the URI already has
            url = httpx.URL(entry.uri).copy_merge_params(params)
        with (
            httpx.Client(
                transport=DeadlineTransport(start + timeout_s, _ssl_context()),
                timeout=timeout_s,
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
            ) as client,
            client.stream(method, url, **kwargs) as response,
        ):
            if not response.is_success:
                run.error = f"HTTP {response.status_code}: {response.reason_phrase}"
            else:
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > MAX_OUTPUT_BYTES:
                        run.truncated = True
                        del data[MAX_OUTPUT_BYTES:]
                        break
                encoding = (response.charset_encoding or "utf-8").lower()
                if encoding in ("utf-8", "utf8"):
                    run.output = decode_capped(bytes(data), run.truncated).strip()
                else:
                    try:
                        run.output = bytes(data).decode(encoding, errors="replace").strip()
                    except LookupError:
                        run.output = decode_capped(bytes(data), run.truncated).strip()
    except httpx.TimeoutException:
        run.timed_out = True
        run.error = f"Request to {entry.shown_uri} timed out after {seconds_text(timeout_s)}"
    except httpx.TooManyRedirects:
        run.error = f"Too many redirects (more than {MAX_REDIRECTS}) from {entry.shown_uri}"
    except httpx.ConnectError as exc:
        run.error = f"Cannot connect to {entry.shown_uri}: {exc}"
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        run.error = f"Invalid URL {entry.shown_uri}: {exc}"
    except httpx.HTTPError as exc:
        run.error = f"Request to {entry.shown_uri} failed: {exc}"
    run.duration_ms = (time.monotonic() - start) * 1000
    return run


_SSL_LOCK = threading.Lock()
_SSL_CONTEXT: ssl.SSLContext | None = None


def _ssl_context() -> ssl.SSLContext:
    """One TLS context for every request (building one costs tens of milliseconds)."""
    global _SSL_CONTEXT
    with _SSL_LOCK:
        if _SSL_CONTEXT is None:
            _SSL_CONTEXT = ssl.create_default_context()
            with contextlib.suppress(ImportError, OSError):
                _SSL_CONTEXT.load_verify_locations(certifi.where())
        return _SSL_CONTEXT
