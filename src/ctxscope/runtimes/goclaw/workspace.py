"""The context files GoClaw puts in the prompt, as its loader and the gateway's prompt cache
give them.

The cache loads the files in the profile's order with memory included: MEMORY.md (lower-case
`memory.md` standing in for a missing one) and then the daily notes `memory/<yesterday>.md`
and `memory/<today>.md` when they exist. YAML front matter is stripped; a missing file is
skipped without a marker; an empty file is still injected. The builder then drops MEMORY.md
for a role without full memory access (the daily notes stay), and keeps only the allowlisted
files in its subagent mode. Sizes are Unicode code points. Nothing is truncated. A file's
`injected_chars` is its text as injected (what OpenClaw's figure means too); its section adds
the `## NAME` heading, a blank line and the newline that ends the file's block.
"""

from __future__ import annotations

import datetime
import fnmatch
from pathlib import Path

from ctxscope.core.model import Diagnostic, FileEntry
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.profiles import Profile

MEMORY = "MEMORY.md"


def without_front_matter(content: str) -> str:
    """GoClaw's front matter rule: text starting with `---` loses everything up to the next
    line that starts with `---` (and the whitespace after it); without such a line it is
    kept whole."""
    if not content.startswith("---"):
        return content
    end = content.find("\n---", 3)
    if end < 0:
        return content
    return content[end + 4 :].lstrip("\n\r\t ")


@record
class Loaded:
    """Every candidate file's entry (those injected, in prompt order, carry their section)."""

    entries: list[FileEntry]
    soul: bool
    """SOUL.md exists (the Project Context intro then has its SOUL.md line)."""
    diagnostics: list[Diagnostic]


def host_today() -> datetime.date:
    """The host's date: GoClaw picks the daily notes by it."""
    return datetime.date.today()


def load_files(
    workspace: Path,
    profile: Profile,
    snapshot: Snapshot,
    *,
    full_memory: bool,
    subagent: bool,
    today: datetime.date | None = None,
) -> Loaded:
    """The context files of a session (see the module doc); `today` is the host's date."""
    day = today or host_today()
    candidates: list[tuple[str, Path]] = [(n, workspace / n) for n in profile.files]
    lower = workspace / "memory.md"
    if MEMORY in profile.files and not (workspace / MEMORY).is_file() and lower.is_file():
        candidates = [(n, lower if n == MEMORY else p) for n, p in candidates]
    for d in (day - datetime.timedelta(days=1), day):
        note = f"memory/{d.isoformat()}.md"
        if (workspace / note).is_file():
            candidates.append((note, workspace / note))
    allow = profile.allowlist("subagent") if subagent else None
    entries: list[FileEntry] = []
    diags: list[Diagnostic] = []
    soul = False
    for name, path in candidates:
        fr = snapshot.read(path)
        if not fr.exists:
            diags += [d for d in fr.diagnostics if d.severity != "info"]
            why = (
                fr.diagnostics[0].message
                if fr.diagnostics and path.exists()
                else "GoClaw skips a missing file silently (no marker)"
            )
            entries.append(FileEntry(name, str(path), "missing", 0, 0, why))
            continue
        text = without_front_matter(fr.text)
        soul = soul or name == "SOUL.md"
        if allow is not None and name not in allow:
            reason = f"the subagent mode keeps only {', '.join(allow)}"
            entries.append(FileEntry(name, str(path), "excluded", len(text), 0, reason))
            continue
        if name == MEMORY and not full_memory:
            reason = "the user's role has no full memory access (`memory: full`)"
            entries.append(FileEntry(name, str(path), "excluded", len(text), 0, reason))
            continue
        body = f"## {name}\n\n{text}\n"
        reason = _reason(name, path, text, fr.text)
        # injected_chars is the content, as for OpenClaw; the heading is the section's
        entries.append(FileEntry(name, str(path), "injected", len(text), len(text), reason, body))
    for pattern in profile.not_injected_globs:
        for name in sorted(snapshot.listdir(workspace).files):
            if fnmatch.fnmatchcase(name, pattern):
                why = "GoClaw does not inject it (heartbeat runs ask the agent to read it)"
                entries.append(FileEntry(name, str(workspace / name), "not-injected", 0, 0, why))
    if subagent:
        soul = False
    return Loaded(entries, soul, diags)


def _reason(name: str, path: Path, text: str, raw: str) -> str:
    parts = []
    if name.startswith("memory/"):
        parts.append("a daily note (yesterday's and today's follow MEMORY.md)")
    elif path.name == "memory.md":
        parts.append("lower-case memory.md stands in for the missing MEMORY.md")
    else:
        parts.append("injected whole (GoClaw does not truncate)")
    if text != raw:
        parts.append("YAML front matter stripped")
    if not text.strip():
        parts.append("empty, still injected")
    return "; ".join(parts)
