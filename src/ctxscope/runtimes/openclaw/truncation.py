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

from typing import TYPE_CHECKING

from ctxscope.core.model import Marker
from ctxscope.core.record import record
from ctxscope.core.tokens import safe_slice, slice_units, text_chars
from ctxscope.runtimes.openclaw.policylines import policy_lines

if TYPE_CHECKING:
    from ctxscope.runtimes.openclaw.policylines import PolicyLine

HEAD_RATIO = 0.7
TAIL_RATIO = 0.2
FIT_HEAD_RATIO = 0.75
FIT_TAIL_RATIO = 0.25
MIN_TRIMMED_CONTENT = 16
DIGEST_HEAD, DIGEST_BODY, DIGEST_TAIL = 0.45, 0.35, 0.15


@record(frozen=True)
class Cut:
    """A file cut to its limit: the text, where the runtime's marker lines sit, and how."""

    text: str
    markers: list[Marker]
    how: str


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


def _digest(lines: tuple[PolicyLine, ...], budget: int) -> tuple[str, int]:
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

    lines = policy_lines(content) if budget > 0 else ()
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
