"""Bootstrap files: which workspace files reach a session, and how much of each.

Follows OpenClaw's loader (SPEC §3.1–3.2) step by step: load the candidates in order, filter
them for the session kind, then spend the per-file and total character budgets in load order.
Lengths are UTF-16 code units, as the runtime measures them.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from ctxscope.model import Diagnostic, FileEntry, FileStatus, Marker
from ctxscope.openclaw.profiles import Profile
from ctxscope.snapshot import Snapshot
from ctxscope.tokens import slice_units, text_chars

HEAD_RATIO = 0.7
TAIL_RATIO = 0.2
# JavaScript's String.prototype.trimEnd: WhiteSpace and LineTerminator code points.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


@dataclass
class Candidate:
    name: str
    path: str
    missing: bool
    content: str = ""
    raw_chars: int = 0
    note: str = ""
    """Set for a second name of a file already loaded (it is injected once)."""
    unread: str = ""
    """Why a file that exists could not be read (permission, not a file, a link loop)."""


@dataclass
class BootstrapResult:
    files: list[FileEntry]
    """Every candidate in load order, with status and reason."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def injected(self) -> list[FileEntry]:
        return [f for f in self.files if f.body]

    @property
    def has_soul(self) -> bool:
        return any(os.path.basename(f.path).lower() == "soul.md" for f in self.injected)


def js_trim_end(text: str) -> str:
    return text.rstrip(JS_WHITESPACE)


def truncation_marker(name: str, head: int, tail: int, length: int) -> str:
    return (
        f"\n\n[...truncated, read {name} for full content...]\n"
        f"…(truncated {name}: kept {head}+{tail} chars of {length})…\n\n"
    )


def trim_to_limit(content: str, name: str, limit: int) -> tuple[str, Marker | None]:
    """Head (70 %) + marker + tail (20 %) when `content` is longer than `limit`; the marker's
    span (None when nothing was cut)."""
    length = text_chars(content)
    if length <= limit:
        return content, None
    head_n = int(limit * HEAD_RATIO)
    tail_n = int(limit * TAIL_RATIO)
    head = slice_units(content, 0, head_n)
    tail = slice_units(content, length - tail_n) if tail_n > 0 else ""
    marker = truncation_marker(name, head_n, tail_n, length)
    span = Marker(len(head) + 2, len(head) + len(marker) - 2, "truncation")
    return head + marker + tail, span


def _clip(markers: list[Marker], body: str) -> list[Marker]:
    """Markers cut to `body` (after a budget cut), empty ones dropped."""
    n = len(body)
    return [Marker(m.start, min(m.end, n), m.kind) for m in markers if m.start < n]


def clamp_to_budget(content: str, budget: int) -> str:
    """Cut `content` to `budget` chars: `budget-1` chars plus `…` (plain cut for budget ≤ 3)."""
    if budget <= 0:
        return ""
    if text_chars(content) <= budget:
        return content
    if budget <= 3:
        return _safe_cut(content, budget)
    return _safe_cut(content, budget - 1) + "…"


def _safe_cut(content: str, units: int) -> str:
    """The first `units` UTF-16 units, never ending inside a surrogate pair (the half is
    dropped, as OpenClaw's truncateUtf16Safe does)."""
    if text_chars(content) == len(content):
        return content[:units]
    data = content.encode("utf-16-le", "surrogatepass")[: units * 2]
    if len(data) >= 2 and 0xD8 <= data[-1] <= 0xDB:
        data = data[:-2]
    return data.decode("utf-16-le", "replace")


def load_candidates(
    workspace: Path, profile: Profile, snapshot: Snapshot, diagnostics: list[Diagnostic]
) -> list[Candidate]:
    out: list[Candidate] = []
    seen_real: dict[str, str] = {}
    names = list(profile.files) + list(profile.optional_files)
    for name in names:
        path = str(workspace / name)
        fr = snapshot.read(path)
        diagnostics.extend(fr.diagnostics)
        optional = name in profile.optional_files
        if not fr.exists:
            if not optional:
                # Why it could not be read (permission, not a file, a loop), when it exists.
                why = fr.diagnostics[0].message if fr.diagnostics else ""
                out.append(Candidate(name, path, True, unread=why))
            continue
        if profile.dedupe_same_file and fr.realpath in seen_real:
            out.append(Candidate(name, path, False, note=f"same file as {seen_real[fr.realpath]}"))
            continue
        seen_real[fr.realpath] = name
        content = js_trim_end(fr.text)
        out.append(Candidate(name, path, False, content, text_chars(content)))
    return out


def memory_notes(workspace: Path, profile: Profile, snapshot: Snapshot) -> list[FileEntry]:
    """Files matching the profile's never-injected globs (`memory/*.md`), sorted."""
    out: list[FileEntry] = []
    for pattern in profile.not_injected_globs:
        folder, _, glob = pattern.rpartition("/")
        base = workspace / folder if folder else workspace
        for name in snapshot.listdir(base).files:
            if not fnmatch.fnmatch(name, glob):
                continue
            path = base / name
            fr = snapshot.read(path)
            if not fr.exists:
                continue
            rel = f"{folder}/{name}" if folder else name
            out.append(
                FileEntry(
                    rel,
                    str(path),
                    "not-injected",
                    text_chars(js_trim_end(fr.text)),
                    0,
                    "never injected: memory notes are reached only through the memory tools "
                    "(memory_search / memory_get)",
                )
            )
    return out


def build_bootstrap(
    workspace: Path,
    profile: Profile,
    snapshot: Snapshot,
    *,
    session_kind: str,
    max_chars: int | None,
    total_max_chars: int | None,
) -> BootstrapResult:
    diags: list[Diagnostic] = []
    candidates = load_candidates(workspace, profile, snapshot, diags)
    filtered = session_kind in profile.minimal_kinds
    allow = set(profile.minimal_allowlist)
    entries: list[FileEntry] = []
    remaining = total_max_chars
    exhausted = False
    for cand in candidates:
        if cand.note:
            entries.append(
                FileEntry(
                    cand.name,
                    cand.path,
                    "not-injected",
                    cand.raw_chars,
                    0,
                    f"{cand.note}: injected once",
                )
            )
            continue
        if filtered and cand.name not in allow:
            absent = "; the file is absent anyway" if cand.missing else ""
            entries.append(
                FileEntry(
                    cand.name,
                    cand.path,
                    "excluded",
                    cand.raw_chars,
                    0,
                    f"{session_kind} sessions get only {', '.join(profile.minimal_allowlist)} "
                    f"(the minimal-mode allowlist of profile {profile.name}){absent}",
                )
            )
            continue
        if exhausted or (remaining is not None and remaining <= 0):
            exhausted = True
            entries.append(_dropped(cand, total_max_chars))
            continue
        if cand.missing:
            marker = profile.missing_body.format(path=cand.path, name=cand.name)
            body = marker if remaining is None else clamp_to_budget(marker, remaining)
            if not body:
                exhausted = True
                entries.append(_dropped(cand, total_max_chars))
                continue
            if remaining is not None:
                remaining = max(0, remaining - text_chars(body))
            entries.append(
                FileEntry(
                    cand.name,
                    cand.path,
                    "missing",
                    0,
                    text_chars(body),
                    f"{cand.unread}: read as missing, a [MISSING] marker is injected"
                    if cand.unread
                    else "file not found: a [MISSING] marker is injected",
                    body,
                    [Marker(0, len(body), "missing")],
                )
            )
            continue
        if remaining is not None and remaining < profile.min_remaining:
            exhausted = True
            entries.append(_dropped(cand, total_max_chars, remaining, profile.min_remaining))
            continue
        if not cand.content:
            entries.append(
                FileEntry(
                    cand.name,
                    cand.path,
                    "empty",
                    0,
                    0,
                    "empty or whitespace-only: skipped silently",
                )
            )
            continue
        limit = _file_limit(max_chars, remaining)
        body, span = (
            (cand.content, None) if limit is None else trim_to_limit(cand.content, cand.name, limit)
        )
        cut = span is not None
        markers = [span] if span is not None else []
        reason = "injected whole"
        if cut and limit is not None:
            which = (
                "bootstrapMaxChars"
                if limit == max_chars
                else ("what was left of bootstrapTotalMaxChars")
            )
            reason = (
                f"{cand.raw_chars} chars exceed the {limit}-char limit ({which}): "
                f"kept the first {int(limit * HEAD_RATIO)} and last "
                f"{int(limit * TAIL_RATIO)} chars"
            )
        if remaining is not None:
            clamped = clamp_to_budget(body, remaining)
            if clamped != body:
                reason += f"; then cut to the {remaining} chars left of the total budget"
                cut = True
            body = clamped
            remaining = max(0, remaining - text_chars(body))
        if not body:
            continue
        entries.append(
            FileEntry(
                cand.name,
                cand.path,
                "truncated" if cut else "injected",
                cand.raw_chars,
                text_chars(body),
                reason,
                body,
                _clip(markers, body),
            )
        )
    entries.extend(memory_notes(workspace, profile, snapshot))
    return BootstrapResult(entries, diags)


def _file_limit(max_chars: int | None, remaining: int | None) -> int | None:
    """`min(maxChars, remaining)` (at least 1), or None when the profile does not truncate."""
    if max_chars is None and remaining is None:
        return None
    return max(1, min(x for x in (max_chars, remaining) if x is not None))


def _dropped(
    cand: Candidate, total: int | None, remaining: int | None = None, minimum: int = 0
) -> FileEntry:
    if remaining is not None:
        why = (
            f"dropped: only {remaining} chars of the {total}-char total budget "
            f"(bootstrapTotalMaxChars) remained, under the {minimum}-char minimum"
        )
    else:
        why = f"dropped: the {total}-char total budget (bootstrapTotalMaxChars) is spent"
    status: FileStatus = "missing" if cand.missing else "truncated"
    return FileEntry(cand.name, cand.path, status, cand.raw_chars, 0, why)
