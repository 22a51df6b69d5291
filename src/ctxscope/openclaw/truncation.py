"""Cutting a bootstrap file down to its limit, one strategy per runtime version.

- `head70-tail20` (2026.2): head 70 % and tail 20 % of the limit around a two-line marker; the
  result can exceed the limit.
- `fit75-25` (2026.9): the marker is taken out of the limit first and what is left is split
  75/25, iterated until it fits; a compact one-line marker when the full one would leave
  fewer than 16 content chars.
- `policy-digest` (2026.9, AGENTS.md): head 45 %, the file's policy lines (headings, list items,
  must/never/security/...) up to 35 %, tail 15 %.

Lengths are UTF-16 code units, as the runtime counts them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from types import SimpleNamespace

from ctxscope.model import Marker
from ctxscope.tokens import slice_units, text_chars

HEAD_RATIO = 0.7
TAIL_RATIO = 0.2
FIT_HEAD_RATIO = 0.75
FIT_TAIL_RATIO = 0.25
MIN_TRIMMED_CONTENT = 16
DIGEST_HEAD, DIGEST_BODY, DIGEST_TAIL = 0.45, 0.35, 0.15
DIGEST_MAX_LINE = 240

_POLICY_WORDS = (
    r"AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|security|secret|"
    r"credential"
)
_POLICY_CJK_HIGH = "🔴|禁止|嚴禁|不得|絕不|絕對不|切勿"


@dataclass(frozen=True)
class Cut:
    """A file cut to its limit: the text, where the runtime's marker lines sit, and how."""

    text: str
    markers: list[Marker]
    how: str


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


def truncation_marker(name: str, head: int, tail: int, length: int) -> str:
    """2026.2's marker, with the blank lines that join it to head and tail."""
    return (
        f"\n\n[...truncated, read {name} for full content...]\n"
        f"…(truncated {name}: kept {head}+{tail} chars of {length})…\n\n"
    )


def head70_tail20(content: str, name: str, limit: int) -> Cut:
    length = text_chars(content)
    head_n = int(limit * HEAD_RATIO)
    tail_n = int(limit * TAIL_RATIO)
    head = slice_units(content, 0, head_n)
    tail = slice_units(content, length - tail_n) if tail_n > 0 else ""
    marker = truncation_marker(name, head_n, tail_n, length)
    span = Marker(len(head) + 2, len(head) + len(marker) - 2, "truncation")
    return Cut(
        head + marker + tail,
        [span],
        f"kept the first {head_n} and last {tail_n} chars",
    )


def fit75_25(content: str, name: str, limit: int) -> Cut:
    """The 2026.9 cut: the result never exceeds `limit`."""
    length = text_chars(content)

    def full(h: int, t: int) -> str:
        return (
            f"\n[...truncated, read {name} for full content...]\n"
            f"…(truncated {name}: kept {h}+{t} chars of {length})…\n"
        )

    def compact(h: int, t: int) -> str:
        return f"[…truncated {h}+{t}/{length}]"

    def seps(h: int, t: int, marker: str) -> int:
        return (int(h > 0) + int(t > 0)) if "\n" in marker else 0

    probe = full(0, 0)
    template = full if limit - len(probe) - seps(1, 1, probe) >= MIN_TRIMMED_CONTENT else compact
    head_n = tail_n = 0
    marker = template(0, 0)
    for _ in range(3):
        budget = max(0, limit - len(marker) - seps(head_n, tail_n, marker))
        nh, nt = int(budget * FIT_HEAD_RATIO), int(budget * FIT_TAIL_RATIO)
        nm = template(nh, nt)
        if (nh, nt, len(nm)) == (head_n, tail_n, len(marker)):
            break
        head_n, tail_n, marker = nh, nt, nm
    size = head_n + tail_n + len(marker) + seps(head_n, tail_n, marker)
    while size > limit and (tail_n > 0 or head_n > 0):
        over = size - limit
        if tail_n > 0:
            tail_n = max(0, tail_n - over)
        else:
            head_n = max(0, head_n - over)
        marker = template(head_n, tail_n)
        size = head_n + tail_n + len(marker) + seps(head_n, tail_n, marker)
    if head_n == 0 and tail_n == 0 and length > 0:
        single = template(1, 0)
        if 1 + len(single) + seps(1, 0, single) <= limit:
            head_n, marker = 1, single
    head = safe_slice(content, 0, head_n)
    tail = safe_slice(content, -tail_n) if tail_n > 0 else ""
    joiner = "\n" if "\n" in marker else ""
    parts = [p for p in (head, marker, tail) if p]
    text = joiner.join(parts)
    at = text.find(marker)
    markers = [
        Marker(at + (1 if joiner else 0), at + len(marker) - (1 if joiner else 0), "truncation")
    ]
    if text_chars(text) > limit:
        text = safe_slice(text, 0, limit)
    kind = "compact marker" if template is compact else "marker"
    return Cut(
        text, _clip(markers, text), f"kept the first {head_n} and last {tail_n} chars ({kind})"
    )


@dataclass(frozen=True)
class _Line:
    text: str
    high: bool


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
        maybe_structural=re.compile(r"(?m)^[^\S\n]*(?:#{1,6}|[-*+]|\d+[.)])\s"),
        # The words, matched in the text with ASCII letters lowered (`_ASCII_LOWER` keeps
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


@functools.lru_cache(maxsize=8)
def _policy_lines(content: str) -> tuple[_Line, ...]:
    """Lines worth keeping from AGENTS.md, each with the line just before it when that is
    plain prose. Only the lines a quick pass flags are examined (a 2 MiB file has tens of
    thousands of lines); the result is remembered per content."""
    rx = _rx()
    hits = [m.start() for m in rx.maybe_structural.finditer(content)]
    hits += [m.start() for m in rx.maybe_words.finditer(content.translate(_ASCII_LOWER))]
    if not content.isascii():
        hits += [m.start() for m in rx.maybe_cjk.finditer(content)]
    out: list[_Line] = []
    for start in sorted({content.rfind("\n", 0, at) + 1 for at in hits}):
        line = _normalized(_line_at(content, start))
        if not _is_policy(line):
            continue
        before = (
            _normalized(_line_at(content, content.rfind("\n", 0, start - 1) + 1)) if start else ""
        )
        prose = (
            before if before and not _rx().fence.match(before) and not _is_policy(before) else None
        )
        out.append(
            _Line(
                line if prose is None else f"{prose}\n{line}", bool(_rx().policy_high.search(line))
            )
        )
    return tuple(out)


def _line_at(content: str, start: int) -> str:
    """The line that begins at offset `start` (its `\\r\\n` or `\\n` left out)."""
    end = content.find("\n", start)
    line = content[start:] if end < 0 else content[start:end]
    return line[:-1] if end >= 0 and line.endswith("\r") else line


def _digest(lines: tuple[_Line, ...], budget: int) -> tuple[str, int]:
    """High-priority lines first, then the rest, while they fit; in file order."""
    if budget <= 0:
        return "", 0
    chosen: set[int] = set()
    used = 0
    for wanted_high in (True, False):
        for i, line in enumerate(lines):
            if i in chosen or (wanted_high and not line.high):
                continue
            cost = (1 if chosen else 0) + text_chars(line.text)
            if used + cost <= budget:
                chosen.add(i)
                used += cost
    text = "\n".join(line.text for i, line in enumerate(lines) if i in chosen)
    return text, len(lines) - len(chosen)


def policy_digest(content: str, name: str, limit: int) -> Cut:
    length = text_chars(content)
    head_n, tail_n = int(limit * DIGEST_HEAD), int(limit * DIGEST_TAIL)
    budget = int(limit * DIGEST_BODY)
    lines = _policy_lines(content) if budget > 0 else ()
    digest, omitted = _digest(lines, budget)

    def render() -> tuple[str, list[str]]:
        labels = [
            f"[...truncated, read {name} for full content...]",
            "[Policy digest from AGENTS.md]" if digest else "",
            f"[...{omitted} more policy lines omitted...]" if omitted > 0 else "",
            f"…(truncated {name}: kept {head_n}+policy {text_chars(digest)}+{tail_n} chars "
            f"of {length})…",
        ]
        parts = [
            safe_slice(content, 0, head_n),
            labels[0],
            labels[1],
            digest,
            labels[2],
            labels[3],
            safe_slice(content, -tail_n) if tail_n > 0 else "",
        ]
        return "\n".join(p for p in parts if p), [label for label in labels if label]

    text, labels = render()
    while text_chars(text) > limit and (tail_n > 0 or head_n > 1 or budget > 0):
        over = text_chars(text) - limit
        if tail_n > 0:
            tail_n = max(0, tail_n - over)
        elif head_n > 1:
            head_n = max(1, head_n - over)
        else:
            budget = max(0, budget - over)
            digest, omitted = _digest(lines, budget)
        text, labels = render()
    if text_chars(text) > limit:
        text = safe_slice(text, 0, limit)
    markers: list[Marker] = []
    at = 0
    for label in labels:
        found = text.find(label, at)
        if found >= 0:
            markers.append(Marker(found, found + len(label), "truncation"))
            at = found + len(label)
    return Cut(
        text,
        markers,
        f"kept the first {head_n} chars, {text_chars(digest)} chars of policy lines"
        f"{f' ({omitted} more omitted)' if omitted else ''} and the last {tail_n} chars",
    )


STRATEGIES = {"head70-tail20": head70_tail20, "fit75-25": fit75_25}


def cut(strategy: str, content: str, name: str, limit: int, *, digest: bool = False) -> Cut | None:
    """`content` cut to `limit` by the named strategy (`digest`: AGENTS.md's policy digest),
    or None when it fits."""
    if text_chars(content) <= limit:
        return None
    if digest:
        return policy_digest(content, name, limit)
    return STRATEGIES[strategy](content, name, limit)


def _clip(markers: list[Marker], body: str) -> list[Marker]:
    n = len(body)
    return [Marker(m.start, min(m.end, n), m.kind) for m in markers if m.start < n]
