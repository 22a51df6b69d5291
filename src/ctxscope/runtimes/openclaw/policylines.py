"""The lines of AGENTS.md that 2026.9's policy digest keeps (headings, list items, lines with
must/never/security/...), each with the plain-prose line just before it.

A 2 MiB AGENTS.md has tens of thousands of lines, so a quick pass over the whole text flags the
lines that could be policy lines and only those are examined. A file being edited changes in
one place: the lines of the last text scanned are reused outside the changed lines (a line's
entry depends on itself and on the line before it, nothing else), so a save rescans a few
lines instead of the whole file.
"""

from __future__ import annotations

import bisect
import functools
import re
from types import SimpleNamespace

from ctxscope.core.record import record
from ctxscope.core.tokens import safe_slice, text_chars

DIGEST_MAX_LINE = 240

_POLICY_WORDS = (
    r"AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|security|secret|"
    r"credential"
)
_POLICY_CJK_HIGH = "🔴|禁止|嚴禁|不得|絕不|絕對不|切勿"


@record(frozen=True)
class PolicyLine:
    text: str
    """The line, normalised, after its plain-prose predecessor when it has one."""
    high: bool
    """A high-priority line (must/never/security/...): kept before the others."""


_STRUCTURAL = r"[^\S\n]*(?:#{1,6}|[-*+]|\d+[.)])(?=\s)"
"""The start of a heading or list item (the quick pass). The space after it is looked at, not
taken: taken, a newline there (`-` alone on its line) would hide the next line's start."""

# Whitespace as JavaScript's `\s` sees it (the quick pass matches words across it).
_ANY_WS = r"[\s\x1c-\x1f\x85\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+"


@functools.cache
def _rx() -> SimpleNamespace:
    """The digest's patterns, compiled on the first digest (most builds cut nothing)."""
    return SimpleNamespace(
        policy_candidate=re.compile(
            rf"\b(?:{_POLICY_WORDS}|owner|test|validation|command|commit|push|github|pr)\b"
            rf"|(?:{_POLICY_CJK_HIGH}|必須|務必|一律|紅線)",
            re.IGNORECASE | re.ASCII,  # JavaScript's \b: ASCII word characters only
        ),
        policy_high=re.compile(
            rf"\b(?:{_POLICY_WORDS})\b|(?:{_POLICY_CJK_HIGH})", re.IGNORECASE | re.ASCII
        ),
        structural=re.compile(r"^(?:#{1,6}|\s*[-*+]|\s*\d+[.)])\s+\S"),
        fence=re.compile(r"^\s*(?:`{3,}|~{3,})"),
        # The quick pass: every line that could be a policy line matches one of these.
        # Led by the newline before the line (a literal the matcher skips to quickly; the
        # first line is tried on its own): `(?m)^` would be tried at every character.
        maybe_structural=re.compile(rf"\n{_STRUCTURAL}"),
        first_structural=re.compile(_STRUCTURAL),
        # The words, matched in the text with ASCII letters lowered (`_ascii_lower` keeps
        # every offset): a case-sensitive search led by the words' first letters is several
        # times faster than an IGNORECASE one on a 2 MiB file.
        maybe_words=re.compile(
            rf"\b(?=[abcdegmnoprstv])(?:agents\.md|scoped|required|must|never|do{_ANY_WS}not|"
            rf"before{_ANY_WS}subtree|read{_ANY_WS}scoped|owner|security|secret|credential|"
            rf"test|validation|command|commit|push|github|pr)\b",
            re.ASCII,
        ),
        maybe_cjk=re.compile(rf"{_POLICY_CJK_HIGH}|必須|務必|一律|紅線"),
    )


def _normalized(source: str) -> str:
    line = " ".join(source.split())
    if text_chars(line) > DIGEST_MAX_LINE:
        line = safe_slice(line, 0, DIGEST_MAX_LINE - 1) + "…"
    return line


def _is_policy(line: str) -> bool:
    return (
        bool(line)
        and not _rx().fence.match(line)
        and bool(_rx().structural.match(line) or _rx().policy_candidate.search(line))
    )


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ascii_lower(text: str) -> str:
    """`text` with only ASCII letters lowered (every offset kept)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def _line_at(content: str, start: int) -> str:
    """The line that begins at offset `start` (its `\\r\\n` or `\\n` left out)."""
    end = content.find("\n", start)
    line = content[start:] if end < 0 else content[start:end]
    return line[:-1] if end >= 0 and line.endswith("\r") else line


@record(frozen=True)
class _Scan:
    content: str
    starts: tuple[int, ...]
    """Where each entry's line begins in `content`."""
    lines: tuple[PolicyLine, ...]


def _scan(content: str, lo: int, hi: int) -> tuple[list[int], list[PolicyLine]]:
    """The entries of the lines that begin in [lo, hi) (`lo` a line start; `hi` a line start
    or the end)."""
    rx = _rx()
    part = content[lo:hi]
    hits = [m.start() + 1 for m in rx.maybe_structural.finditer(part)]
    if rx.first_structural.match(part):
        hits.append(0)
    hits += [m.start() for m in rx.maybe_words.finditer(_ascii_lower(part))]
    if not part.isascii():
        hits += [m.start() for m in rx.maybe_cjk.finditer(part)]
    starts: list[int] = []
    out: list[PolicyLine] = []
    for start in sorted({lo + part.rfind("\n", 0, at) + 1 for at in hits}):
        line = _normalized(_line_at(content, start))
        if not _is_policy(line):
            continue
        before = (
            _normalized(_line_at(content, content.rfind("\n", 0, start - 1) + 1)) if start else ""
        )
        prose = before if before and not rx.fence.match(before) and not _is_policy(before) else None
        starts.append(start)
        out.append(
            PolicyLine(
                line if prose is None else f"{prose}\n{line}", bool(rx.policy_high.search(line))
            )
        )
    return starts, out


_CHUNK = 1 << 16


def _common_prefix(a: str, b: str) -> int:
    """How many characters `a` and `b` share at their start (compared a chunk at a time)."""
    n = min(len(a), len(b))
    lo = 0  # a[:lo] == b[:lo]
    while lo < n and a[lo : lo + _CHUNK] == b[lo : lo + _CHUNK]:
        lo += _CHUNK
    if lo >= n:
        return n
    hi = min(lo + _CHUNK, n) + 1  # they differ before hi (a[:hi] != b[:hi])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    """How many characters `a` and `b` share at their end, at most `limit`."""
    la, lb = len(a), len(b)
    lo = 0  # the last lo characters agree
    while lo < limit:
        step = min(_CHUNK, limit - lo)
        if a[la - lo - step : la - lo] != b[lb - lo - step : lb - lo]:
            break
        lo += step
    else:
        return limit
    hi = lo + step  # the last hi do not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo


def _rescan(last: _Scan, content: str) -> _Scan | None:
    """`content`'s entries, from `last` where the text is the same: only the lines holding a
    change and the line after them are scanned. None when most of the text changed."""
    old = last.content
    p = _common_prefix(old, content)
    s = _common_suffix(old, content, min(len(old), len(content)) - p)
    first = content.rfind("\n", 0, p) + 1  # the first line holding a change
    end = content.find("\n", len(content) - s)  # where the last changed line ends
    after = content.find("\n", end + 1) if end >= 0 else -1  # ... and the line after it
    hi = len(content) if after < 0 else after + 1
    if hi - first > len(content) // 2:
        return None
    starts, lines = _scan(content, first, hi)
    delta = len(content) - len(old)
    keep_before = bisect.bisect_left(last.starts, first)
    keep_after = bisect.bisect_left(last.starts, hi - delta)
    return _Scan(
        content,
        last.starts[:keep_before]
        + tuple(starts)
        + tuple(x + delta for x in last.starts[keep_after:]),
        last.lines[:keep_before] + tuple(lines) + last.lines[keep_after:],
    )


_last: list[_Scan] = []
"""The last text scanned (one entry): an edit of it is scanned from there."""


@functools.lru_cache(maxsize=8)
def policy_lines(content: str) -> tuple[PolicyLine, ...]:
    """The candidate lines of `content`, in order; remembered per content."""
    last = _last[0] if _last else None
    scan = _rescan(last, content) if last is not None else None
    if scan is None:
        starts, lines = _scan(content, 0, len(content))
        scan = _Scan(content, tuple(starts), tuple(lines))
    _last[:] = [scan]
    return scan.lines
