"""One total deadline for a URL script's request.

httpx's timeouts bound each socket operation, so a server that sends its headers one byte at
a time never trips them. This network backend clamps every connect, TLS handshake, read and
write to the time left before one deadline, so the whole request (redirects included) ends by
`timeoutMs` whatever the server does. Name resolution is the one step it cannot bound.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx


class DeadlineBackend(httpcore.NetworkBackend):
    """`httpcore.SyncBackend` with every operation's timeout cut to the deadline."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self._inner = httpcore.SyncBackend()

    def clamp(self, timeout: float | None) -> float:
        """`timeout` cut to the time left; raises a timeout once the deadline has passed."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the script's timeout passed")
        return left if timeout is None else min(timeout, left)

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(
            host, port, self.clamp(timeout), local_address, socket_options
        )
        return DeadlineStream(stream, self)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(path, self.clamp(timeout), socket_options)
        return DeadlineStream(stream, self)

    def sleep(self, seconds: float) -> None:
        time.sleep(min(seconds, max(0.0, self.deadline - time.monotonic())))


class DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, backend: DeadlineBackend) -> None:
        self._inner = inner
        self._backend = backend

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._backend.clamp(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._backend.clamp(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, self._backend.clamp(timeout))
        return DeadlineStream(tls, self._backend)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport on a `DeadlineBackend` (HTTP/1.1, no retries)."""

    def __init__(self, deadline: float, ssl_context: ssl.SSLContext) -> None:
        super().__init__(verify=ssl_context)
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context, network_backend=DeadlineBackend(deadline)
        )
