"""Token estimators.

The default is the rule OpenClaw's `/context` report and Rye both use: ceil(chars / 4).
It is always labelled as an estimate. `tiktoken:<encoding>` gives exact counts when tiktoken
and the encoding are available offline; it never downloads anything.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 4


def estimate_tokens(chars: int) -> int:
    """Tokens for a text of `chars` characters by the chars/4 rule (rounded up)."""
    return math.ceil(chars / CHARS_PER_TOKEN) if chars > 0 else 0


class TokenizerError(Exception):
    """The requested tokenizer cannot be used here."""


@dataclass(frozen=True)
class Tokenizer:
    """Counts tokens in text. `exact` is False for the chars/4 estimate."""

    name: str
    exact: bool
    _count: Callable[[str], int]

    def count(self, text: str) -> int:
        return self._count(text)

    @property
    def label(self) -> str:
        """How a count from this tokenizer is shown: `≈` marks an estimate."""
        return self.name if self.exact else f"≈{self.name}"


ESTIMATE = Tokenizer("chars/4", False, lambda text: estimate_tokens(text_chars(text)))


def get_tokenizer(spec: str | None) -> Tokenizer:
    """Return the tokenizer named by `spec` (`None`/`estimate` or `tiktoken:<encoding>`)."""
    if not spec or spec in ("estimate", "chars/4"):
        return ESTIMATE
    kind, _, encoding = spec.partition(":")
    if kind != "tiktoken" or not encoding:
        raise TokenizerError(f"unknown tokenizer {spec!r}: use 'estimate' or 'tiktoken:<encoding>'")
    try:
        import tiktoken
    except ImportError as exc:
        raise TokenizerError(
            "tokenizer tiktoken is not installed: pip install 'ctxscope[tiktoken]'"
        ) from exc
    try:
        enc = _load_offline(tiktoken, encoding)
    except Exception as exc:
        raise TokenizerError(
            f"tiktoken encoding {encoding!r} is not available offline ({exc.__class__.__name__}); "
            "set TIKTOKEN_CACHE_DIR to a folder holding it"
        ) from exc
    return Tokenizer(
        f"tiktoken:{encoding}", True, lambda text: len(enc.encode(text, disallowed_special=()))
    )


def _load_offline(tiktoken: Any, encoding: str) -> Any:
    """Load an encoding from tiktoken's local cache only; a network fetch is refused."""
    import tiktoken.load as loader

    def refuse(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise TokenizerError(f"refusing to download {blobpath}")
        with open(blobpath, "rb") as fh:
            return fh.read()

    original = loader.read_file
    loader.read_file = refuse
    try:
        return tiktoken.get_encoding(encoding)
    finally:
        loader.read_file = original


def text_chars(text: str) -> int:
    """Length as the runtimes measure it: UTF-16 code units (a JavaScript string's length).

    Equal to `len(text)` unless the text holds characters outside the BMP (emoji, ...),
    which count twice.
    """
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def slice_units(text: str, start: int, end: int | None = None) -> str:
    """`text[start:end]` in UTF-16 code units (a JavaScript `slice`); a surrogate pair cut in
    half becomes U+FFFD, which keeps the length exact."""
    if text.isascii() or text_chars(text) == len(text):
        return text[start:end]
    data = text.encode("utf-16-le", "surrogatepass")
    lo = start * 2 if start >= 0 else max(0, len(data) + start * 2)
    hi = len(data) if end is None else (end * 2 if end >= 0 else len(data) + end * 2)
    return data[lo:hi].decode("utf-16-le", "replace")


def count_tokens_estimate(text: str) -> int:
    return estimate_tokens(text_chars(text))
