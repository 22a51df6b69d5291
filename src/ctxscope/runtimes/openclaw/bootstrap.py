"""Bootstrap files: which workspace files reach a session, and how much of each.

Follows OpenClaw's loader step by step: load the candidates in order, filter
them for the session kind, then spend the per-file and total character budgets in load order.
Lengths are UTF-16 code units, as the runtime measures them.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import stat
from dataclasses import field
from pathlib import Path

from ctxscope.core.model import Diagnostic, FileEntry, FileStatus, Marker
from ctxscope.core.record import record
from ctxscope.core.tokens import safe_slice, text_chars
from ctxscope.infra.snapshot import JS_WHITESPACE, FileRead, Snapshot
from ctxscope.runtimes.openclaw.hooks import hook_files
from ctxscope.runtimes.openclaw.truncation import Cut, cut
from ctxscope.runtimes.profiles import Profile


@record
class Candidate:
    """A bootstrap file the runtime looks for, as found: missing, unreadable or its content."""

    name: str
    path: str
    missing: bool
    content: str = ""
    raw_chars: int = 0
    note: str = ""
    """Set for a second name of a file already loaded (it is injected once)."""
    unread: str = ""
    """Why a file that exists could not be read (permission, not a file, a link loop)."""
    first_run: bool = False
    """Absent on disk: the runtime writes its template here before its first run."""
    stand_in: str = ""
    """For a first-run file whose template could not be read: the release its measured size
    (`raw_chars`) comes from; `content` is empty."""


@record
class BootstrapResult:
    """What a session's bootstrap files came to."""

    files: list[FileEntry]
    """Every candidate in load order, with status and reason."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


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
        return safe_slice(content, 0, budget)
    return safe_slice(content, 0, budget - 1) + "…"


# The runtime's reasons for a file it found but would not read (2026.9 quotes them).
NOT_A_FILE = "path does not have the required file type"
SYMLINK_REFUSED = "symlink path component not allowed"
HARDLINK_REFUSED = "path must not be hardlinked"
_NODE_ERRNO_TEXT = {
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "EIO": "i/o error",
    "ELOOP": "too many symbolic links encountered",
    "ENXIO": "no such device or address",
}


def _refused_link(path: str, profile: Profile) -> str | None:
    """The reason a guarded loader refuses `path` for being a link, if it does."""
    if profile.symlinks == "follow" and profile.hardlinks == "allow":
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if profile.symlinks == "reject" and stat.S_ISLNK(st.st_mode):
        return SYMLINK_REFUSED
    if profile.hardlinks == "reject" and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return HARDLINK_REFUSED
    return None


def _unread_reason(fr: FileRead, cap: int) -> str:
    """What the runtime says about a file it could not read, in its own words."""
    if fr.capped:
        return f"File exceeds {cap} bytes"
    if fr.error == "not-regular":
        return NOT_A_FILE
    text = _NODE_ERRNO_TEXT.get(fr.error) or (fr.diagnostics[0].message if fr.diagnostics else "")
    return f"{fr.error}: {text}, open '{fr.path}'" if fr.error else text


def load_candidates(
    workspace: Path,
    profile: Profile,
    snapshot: Snapshot,
    diagnostics: list[Diagnostic],
    templates: dict[str, str] | None = None,
    stand_ins: tuple[str, dict[str, int]] = ("", {}),
) -> list[Candidate]:
    out: list[Candidate] = []
    seen_real: dict[str, str] = {}
    for name in profile.load_order():
        path = str(workspace / name)
        optional = name in profile.optional_files
        refused = _refused_link(path, profile)
        fr = snapshot.read(path) if refused is None else None
        if fr is not None:
            diagnostics.extend(fr.diagnostics)
        if templates and name in templates and fr is not None and not fr.exists:
            content = templates[name].rstrip(JS_WHITESPACE)
            out.append(Candidate(name, path, False, content, text_chars(content), first_run=True))
            continue
        release, sizes = stand_ins
        if name in sizes and fr is not None and not fr.exists:
            size = sizes[name]
            out.append(Candidate(name, path, False, "", size, first_run=True, stand_in=release))
            continue
        if fr is not None and not fr.exists and not fr.error:
            if not optional:
                out.append(Candidate(name, path, True))
            continue
        unreadable = refused or (
            _unread_reason(fr, snapshot.cap)
            if fr is not None and (not fr.exists or (fr.capped and profile.unreadable_body))
            else None
        )
        if unreadable is not None:
            if profile.unreadable_body is None:
                # 2026.2: a read error counts as a missing file.
                why = fr.diagnostics[0].message if fr is not None and fr.diagnostics else ""
                out.append(Candidate(name, path, True, unread=why or unreadable))
            else:
                body = profile.unreadable_body.format(reason=unreadable[:300])
                out.append(Candidate(name, path, False, body, text_chars(body), unread=unreadable))
            continue
        assert fr is not None
        if profile.dedupe_same_file and fr.realpath in seen_real:
            out.append(Candidate(name, path, False, note=f"same file as {seen_real[fr.realpath]}"))
            continue
        seen_real[fr.realpath] = name
        content = fr.as_loaded
        out.append(Candidate(name, path, False, content, text_chars(content)))
    return out


def retired_files(workspace: Path, profile: Profile, snapshot: Snapshot) -> list[FileEntry]:
    """Files an older version of the runtime loaded and this one ignores, when present."""
    out: list[FileEntry] = []
    listing = set(snapshot.listdir(workspace).files)
    for name in profile.retired_files:
        if name not in listing:
            continue
        fr = snapshot.read(workspace / name)
        out.append(
            FileEntry(
                name,
                str(workspace / name),
                "not-injected",
                text_chars(fr.trimmed_end),
                0,
                f"not loaded by {profile.runtime_name} {profile.version or profile.name}: "
                f"it reads only {', '.join(profile.load_order())}",
            )
        )
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
                    text_chars(fr.trimmed_end),
                    0,
                    "never injected: memory notes are reached only through the memory tools "
                    "(memory_search / memory_get)",
                )
            )
    return out


_USER_OVERLAY = re.compile(r"users/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}/USER\.md")


def memory_origin(workspace: Path, path: str) -> str | None:
    """Why the runtime's memory-provenance check (2026.9, memory-core's path classifier)
    would not let this memory file reach the prompt, or None when it would: its real path
    must lie inside the workspace's and be a memory path there (`MEMORY.md`, `memory.md` or
    `USER.md` at the root, `users/<id>/USER.md`, `memory/**/*.md` outside the dreaming
    folders)."""
    try:
        root = os.path.realpath(workspace, strict=True)
        real = os.path.realpath(path, strict=True)
    except (OSError, RuntimeError):
        return "its real path cannot be resolved"
    rel = os.path.relpath(real, root).replace(os.sep, "/")
    if rel == "." or rel.startswith("../") or rel == "..":
        return f"its real path {real} is outside the workspace"
    parts = rel.split("/")
    curated = len(parts) == 1 and parts[0] in ("MEMORY.md", "memory.md", "USER.md")
    dreams = (len(parts) == 1 and parts[0] in ("DREAMS.md", "dreams.md")) or (
        parts[0] == "memory" and len(parts) > 1 and parts[1] in ("dreaming", ".dreams")
    )
    notes = parts[0] == "memory" and parts[-1].endswith(".md")
    if dreams or not (curated or _USER_OVERLAY.fullmatch(rel) or notes):
        return f"its real path {rel} is not a workspace memory file"
    return None


def _exclusion(
    cand: Candidate,
    profile: Profile,
    kind: str,
    chat_type: str,
    bootstrap_mode: str,
    workspace: Path,
) -> str | None:
    """Why the session does not get this file (None: it does), before any budget."""
    allow = profile.allowlist(kind)
    absent = "; the file is absent anyway" if cand.missing else ""
    if allow is not None and cand.name not in allow:
        return (
            f"{kind} sessions get only {', '.join(allow)} "
            f"(the {kind} allowlist of profile {profile.name}){absent}"
        )
    if cand.name in profile.private_files and chat_type in profile.private_chat_types:
        return f"kept out of {chat_type} chats (private to direct sessions){absent}"
    if cand.name in profile.unreadable_dropped and not cand.missing and not cand.first_run:
        why = memory_origin(workspace, cand.path)
        if why is not None:
            read = f"could not be read ({cand.unread}); " if cand.unread else ""
            return f"{read}the runtime's memory-provenance check leaves it out: {why}"
    if cand.name in profile.setup_files and bootstrap_mode == "completed":
        return "workspace setup is completed (scenario `setup_completed`): filtered out"
    return None


def _setup_dropped(entry: FileEntry, bootstrap_mode: str) -> FileEntry:
    """A setup file outside bootstrap mode `full`: its chars were spent from the total
    budget, then it is left out of the prompt."""
    why = (
        "setup is not pending (the file is absent): no [MISSING] marker in the prompt"
        if entry.status == "missing"
        else f"bootstrap mode is {bootstrap_mode}: only a primary interactive session gets it"
    )
    spent = f"; its {entry.injected_chars} chars still count against bootstrapTotalMaxChars"
    return FileEntry(
        entry.name,
        entry.path,
        # An absent setup file is missing (no marker reaches the prompt), not excluded.
        "missing" if entry.status == "missing" else "excluded",
        entry.raw_chars,
        0,
        f"injected only while workspace setup is pending; {why}{spent}",
    )


@record
class _Budget:
    """The total budget (`bootstrapTotalMaxChars`) as the files spend it in load order."""

    total: int | None
    remaining: int | None
    exhausted: bool = False
    """Set once a file found nothing left: every later file is dropped."""

    def spent(self) -> bool:
        """Whether nothing is left for the next file."""
        if self.remaining is not None and self.remaining <= 0:
            self.exhausted = True
        return self.exhausted

    def spend(self, chars: int) -> None:
        """Take `chars` from what is left."""
        if self.remaining is not None:
            self.remaining = max(0, self.remaining - chars)


def build_bootstrap(
    workspace: Path,
    profile: Profile,
    snapshot: Snapshot,
    *,
    session_kind: str,
    max_chars: int | None,
    total_max_chars: int | None,
    chat_type: str = "unknown",
    bootstrap_mode: str = "none",
    extra_patterns: list[str] | None = None,
    templates: dict[str, str] | None = None,
    stand_ins: tuple[str, dict[str, int]] = ("", {}),
) -> BootstrapResult:
    """`templates`: files absent on disk the runtime writes before its first run;
    `stand_ins`: (release, name -> chars) of those whose template text is not known."""
    diags: list[Diagnostic] = []
    candidates = load_candidates(workspace, profile, snapshot, diags, templates, stand_ins)
    entries: list[FileEntry] = []
    budget = _Budget(total_max_chars, total_max_chars)
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
        excluded = _exclusion(cand, profile, session_kind, chat_type, bootstrap_mode, workspace)
        if excluded is not None:
            entries.append(FileEntry(cand.name, cand.path, "excluded", cand.raw_chars, 0, excluded))
            continue
        entry = _budgeted(cand, profile, max_chars, budget)
        if entry is not None:
            entries.append(entry)
    entries = [
        _setup_dropped(e, bootstrap_mode)
        if e.name in profile.setup_files and e.body and bootstrap_mode not in ("full", "completed")
        else e
        for e in entries
    ]
    entries.extend(retired_files(workspace, profile, snapshot))
    if extra_patterns:
        entries.extend(hook_files(workspace, profile, extra_patterns))
    entries.extend(memory_notes(workspace, profile, snapshot))
    return BootstrapResult(entries, diags)


def _budgeted(
    cand: Candidate, profile: Profile, max_chars: int | None, budget: _Budget
) -> FileEntry | None:
    """A file the session gets, as the budgets leave it: dropped once the total is spent, a
    [MISSING] marker, skipped when empty, else cut to its limits (None: nothing was left of
    it)."""
    if budget.spent():
        return _dropped(cand, budget.total)
    if cand.missing:
        return _missing(cand, profile, budget)
    remaining = budget.remaining
    if remaining is not None and remaining < profile.min_remaining:
        budget.exhausted = True
        return _dropped(cand, budget.total, remaining, profile.min_remaining)
    if not cand.content and not cand.stand_in:
        return FileEntry(
            cand.name, cand.path, "empty", 0, 0, "empty or whitespace-only: skipped silently"
        )
    spend = _spend_stand_in if cand.stand_in else _spend
    entry = spend(cand, profile, max_chars, remaining)
    if entry is not None:
        budget.spend(entry.injected_chars)
    return entry


def _missing(cand: Candidate, profile: Profile, budget: _Budget) -> FileEntry:
    """A missing file's [MISSING] marker, cut to what is left of the total budget."""
    marker = profile.missing_body.format(path=cand.path, name=cand.name)
    body = marker if budget.remaining is None else clamp_to_budget(marker, budget.remaining)
    if not body:
        budget.exhausted = True
        return _dropped(cand, budget.total)
    budget.spend(text_chars(body))
    return FileEntry(
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


def _spend(
    cand: Candidate, profile: Profile, max_chars: int | None, remaining: int | None
) -> FileEntry | None:
    """One present file cut to its limit and to what is left of the total budget."""
    per_file = max_chars
    cap = profile.file_caps.get(cand.name)
    if cap and per_file is not None:
        per_file = min(per_file, cap)
    limit = _file_limit(per_file, remaining)
    done = (
        None
        if limit is None
        else cut(
            profile.truncation,
            cand.content,
            cand.name,
            limit,
            digest=cand.name in profile.policy_digest_files,
        )
    )
    body = cand.content if done is None else done.text
    markers = [] if done is None else done.markers
    if cand.unread:
        markers = [Marker(0, len(body), "missing")]
    reason = (
        f"could not be read ({cand.unread}): the runtime injects this notice"
        if cand.unread
        else "injected whole"
    )
    if done is not None and limit is not None:
        which = (
            f"the {cand.name} cap"
            if cap and limit == cap
            else "bootstrapMaxChars"
            if limit == max_chars
            else "what was left of bootstrapTotalMaxChars"
        )
        reason = f"{cand.raw_chars} chars exceed the {limit}-char limit ({which}): {done.how}"
    if remaining is not None:
        clamped = clamp_to_budget(body, remaining)
        if clamped != body:
            reason += f"; then cut to the {remaining} chars left of the total budget"
            done = done or Cut(clamped, [], "")
        body = clamped
    if not body:
        return None
    if cand.first_run:
        reason = (
            "created on first run: absent on disk, so OpenClaw writes its template here "
            f"before it reads the workspace ({cand.raw_chars} chars; "
            "agents.defaults.skipBootstrap turns this off); " + reason
        )
    return FileEntry(
        cand.name,
        cand.path,
        "first-run"
        if cand.first_run
        else "unreadable"
        if cand.unread
        else "truncated"
        if done is not None
        else "injected",
        cand.raw_chars,
        text_chars(body),
        reason,
        body,
        _clip(markers, body),
    )


def _spend_stand_in(
    cand: Candidate, profile: Profile, max_chars: int | None, remaining: int | None
) -> FileEntry | None:
    """A first-run file known by its measured size only: the budgets spent as on a text of
    that size (the cut's head, marker and tail sizes do not depend on the text); a one-line
    stand-in takes the text's place, the entry keeping the size."""
    sized_text = dataclasses.replace(cand, content="x" * cand.raw_chars, stand_in="")
    sized = _spend(sized_text, profile, max_chars, remaining)
    if sized is None:
        return None
    chars = sized.injected_chars
    note = (
        f"[first-run template {cand.name}: {chars:,} chars measured on OpenClaw "
        f"{cand.stand_in}'s template; its text is not shown (no installed OpenClaw)]"
    )
    reason = sized.reason + (
        f"; the size is a measured stand-in (OpenClaw {cand.stand_in}'s template), "
        "its text is not shown: no installed OpenClaw was found to read it from"
    )
    return FileEntry(
        cand.name,
        cand.path,
        "first-run",
        cand.raw_chars,
        chars,
        reason,
        note,
        [Marker(0, len(note), "placeholder")],
        stand_in=True,
    )


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
