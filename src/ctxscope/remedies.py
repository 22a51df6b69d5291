"""What would give a session what it lacks, in the runtime version in use, and what a subagent
loses against its requester.

Remedies name only mechanisms the profile's runtime has: its per-kind file allowlist, the
spawn's task text, OpenClaw's `agent:bootstrap` hook (2026.9 also reads `bootstrap-extra-files`
patterns), the bootstrap limits (per agent where the version reads them). For a truncated file
they say which lines of the file the cut drops (approximately: the runtime measures the
right-trimmed text).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ctxscope.core.model import Explanation, FileEntry, Session
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.profiles import Profile
from ctxscope.runtimes.registry import runtime_of


def _runtime(profile: Profile) -> str:
    return f"{profile.runtime_name} {profile.version}".strip()


def _hook_remedy(profile: Profile) -> str | None:
    if not runtime_of(profile).bootstrap_hooks:
        return None
    text = "An `agent:bootstrap` hook can change the list of files a run loads"
    if profile.version >= "2026.9":
        text += "; `bootstrap-extra-files` hook patterns add files to it"
    return text + "."


def cut_text(entry: FileEntry, snapshot: Snapshot) -> tuple[int, int, int, str] | None:
    """What a truncation dropped from a file: (first line, last line, lines in the file, the
    dropped text), approximately (the runtime cuts the right-trimmed text); None when the file
    was not cut or cannot be read."""
    cuts = [m for m in entry.markers if m.kind == "truncation"]
    if not cuts:
        return None
    read = snapshot.read(entry.path)
    if not read.exists:
        return None
    raw = read.text.rstrip()
    head = min(cuts[0].start, len(raw))
    end = max(head, len(raw) - (len(entry.body) - cuts[-1].end))
    first = raw.count("\n", 0, head) + 1
    last = raw.count("\n", 0, end) + 1
    return first, last, raw.count("\n") + 1, raw[head:end]


def file_line(entry: FileEntry, offset: int, snapshot: Snapshot) -> int:
    """The line of the file on disk that char `offset` of `entry.body` (what was injected)
    came from; inside a truncation marker, the first line the cut drops."""
    read = snapshot.read(entry.path)
    if not read.exists:
        return 1
    raw = read.text.rstrip()
    cuts = [m for m in entry.markers if m.kind == "truncation"]
    at = offset
    if cuts and offset >= cuts[-1].end:
        at = len(raw) - (len(entry.body) - offset)  # the tail the cut keeps
    elif cuts and offset >= cuts[0].start:
        at = cuts[0].start  # the marker: the first line dropped
    at = max(0, min(at, len(raw)))
    return raw.count("\n", 0, at) + 1


def _cut_lines(entry: FileEntry, snapshot: Snapshot | None) -> str:
    """` (≈ lines A–B of N)`: where the dropped middle of a truncated file lies."""
    cut = cut_text(entry, snapshot) if snapshot is not None else None
    return f" (≈ lines {cut[0]}–{cut[1]} of {cut[2]})" if cut else ""


def shown_path(path: str, base: str | None) -> str:
    """`path` relative to the folder `base` when it lies inside it, else as it is."""
    if base:
        root = os.path.join(os.path.abspath(base), "")
        if os.path.abspath(path).startswith(root):
            return os.path.relpath(path, base)
    return path


def _allowlist_remedies(
    session: Session, profile: Profile, allow: tuple[str, ...], base: str | None = None
) -> list[str]:
    """The session's allowlist as a remedy, naming the files it reads (in its own workspace,
    which is not the requester's for a configured target): the files to edit."""
    kind = session.kind
    files = ", ".join(allow)
    plural = "s" if len(allow) > 1 else ""
    paths = {f.name: f.path for f in session.files}
    where = [
        shown_path(paths.get(name) or os.path.join(session.workspace, name), base) for name in allow
    ]
    out = [
        f"Move what the {kind} needs into {files}: the only file{plural} a {kind} session gets "
        f"in {_runtime(profile)}. It reads {'them' if plural else 'it'} from its workspace: "
        f"{', '.join(where)}."
    ]
    if kind == "subagent":
        out.append("Put it in the spawn's task: the child receives the task as its first message.")
    hook = _hook_remedy(profile)
    if hook:
        out.append(hook)
    return out


def file_remedies(
    session: Session,
    entry: FileEntry,
    profile: Profile,
    snapshot: Snapshot | None = None,
    base: str | None = None,
) -> list[str]:
    """Ways to get `entry` (a bootstrap file) into `session`, in this runtime version (paths
    shown relative to the folder `base` when inside it)."""
    runtime = runtime_of(profile)
    if runtime.exclusion_remedies is not None and entry.status == "excluded":
        return no_spawn_remedies(session, profile) or runtime.exclusion_remedies(session, entry)
    out: list[str] = []
    allow = profile.allowlist(session.kind)
    if entry.status == "excluded" and allow is not None and entry.name not in allow:
        out += _allowlist_remedies(session, profile, allow, base)
    elif entry.status == "truncated":
        per_agent = (
            " (or this agent's `agents.list[].bootstrapMaxChars`)"
            if (profile.per_agent_limits)
            else ""
        )
        dropped = entry.raw_chars - entry.injected_chars
        out.append(
            f"Shorten {entry.name}: the cut drops about {max(dropped, 0):,} of its "
            f"{entry.raw_chars:,} chars{_cut_lines(entry, snapshot)}."
        )
        out.append(f"Raise `agents.defaults.bootstrapMaxChars`{per_agent}, the per-file limit.")
    elif entry.status == "not-injected" and "bootstrapTotalMaxChars" in entry.reason:
        out.append(
            "Raise `agents.defaults.bootstrapTotalMaxChars`, or shorten the files before it: "
            "the total budget ran out."
        )
    elif entry.status == "missing":
        out.append(f"Create {entry.path}.")
    return out


def no_spawn_remedies(session: Session, profile: Profile) -> list[str]:
    """For a subagent of a runtime that never spawns one, the one remedy (nothing needed:
    it is a what-if view); else none."""
    if runtime_of(profile).spawns or session.kind != "subagent":
        return []
    return [
        f"None needed: {profile.runtime_name} does not spawn subagents (this is a what-if view "
        "of its prompt builder's unused subagent mode)."
    ]


def section_remedies(session: Session, profile: Profile, section_id: str) -> list[str]:
    """Ways to give `session` what a gated section carries."""
    if never := no_spawn_remedies(session, profile):
        return never
    allow = profile.allowlist(session.kind)
    runtime = _runtime(profile)
    if session.prompt_mode == "full" or allow is None:
        return []
    where = ", ".join(allow) or "the task"
    if allow:
        where += f" (in its workspace, {session.workspace})"
    out = [
        f"A {session.kind} session runs in {session.prompt_mode} mode in {runtime}, which "
        f"leaves this out: put what the {session.kind} needs from it in {where}"
        + (" or in the spawn's task." if session.kind == "subagent" else ".")
    ]
    if section_id == "skills":
        out.append("Name the skill's instructions in the task, or copy them into AGENTS.md.")
    return out


def lost_in_child(
    main: Session, child: Session, profile: Profile, snapshot: Snapshot | None = None
) -> list[Explanation]:
    """What `child` does not get that `main` does: bootstrap files, then sections, each with
    the reason and the remedies."""
    out: list[Explanation] = []
    had = {f.name for f in main.files if f.injected_chars > 0 and f.status != "missing"}
    seen = {f.name for f in child.files}
    elsewhere = child.workspace != main.workspace
    allow = profile.allowlist(child.kind)
    for name in sorted(had - seen, key=[f.name for f in main.files].index):
        where = (
            f"not in the {child.agent_id} agent's workspace ({child.workspace})"
            if elsewhere
            else "not loaded for this session"
        )
        if allow is not None and name not in allow:
            where += f"; a {child.kind} session would not get it anyway (only {', '.join(allow)})"
            fixes = _allowlist_remedies(child, profile, allow, main.workspace)
        elif elsewhere:
            fixes = [f"The {child.kind} runs in {child.workspace}: add {name} there."]
        else:
            fixes = [f"Put what the {child.kind} needs in the spawn's task."]
        out.append(Explanation(name, child.session_key, False, "absent", where, "", fixes))
    for f in child.files:
        if f.name in had and (f.injected_chars == 0 or f.status == "truncated"):
            out.append(
                Explanation(
                    f.name,
                    child.session_key,
                    f.status == "truncated",
                    f.status,
                    f.reason,
                    f.path,
                    file_remedies(child, f, profile, snapshot, main.workspace),
                )
            )
    mine = {s.id: s for s in main.sections}
    theirs = {s.id for s in child.sections}
    for sid, s in mine.items():
        if sid in theirs or sid.startswith("file:") or (s.placeholder and not s.heading):
            continue
        rule = child.absent_sections.get(sid, f"{child.prompt_mode} mode leaves it out")
        out.append(
            Explanation(
                s.heading.lstrip("# ").strip() or sid,
                child.session_key,
                False,
                "gated",
                rule,
                f"profile:{profile.name}",
                section_remedies(child, profile, sid),
            )
        )
    out.sort(key=lambda e: e.item not in PERSONA)  # who the agent is and who the user is
    return out


PERSONA = ("SOUL.md", "IDENTITY.md", "USER.md")
"""The files that make the agent who it is and tell it who the user is."""


def lost_tokens(main: Session, lost: list[Explanation]) -> dict[str, int]:
    """The main session's ≈tokens of each item the subagent lacks (a file's section, or a
    gated section found by its heading); items the main session has no text for count 0."""
    by_heading = {s.heading.lstrip("# ").strip() or s.id: s.tokens for s in main.sections}
    out: dict[str, int] = {}
    for e in lost:
        section = main.section(f"file:{e.item}")
        out[e.item] = section.tokens if section is not None else by_heading.get(e.item, 0)
    return out


def lost_line(
    lost: list[Explanation],
    hint: str = "",
    tokens: dict[str, int] | None = None,
    most: Mapping[str, int] | None = None,
) -> str:
    """One line: what the subagent does not get, persona first (`hint` after the title).
    With `tokens`, `most` (by group: `persona`, `file`, `section`) names at most that many
    of the group, then `… N more`."""
    if not lost:
        return "The subagent gets everything the main session has."
    if tokens is not None:
        return _lost_with_tokens(lost, hint, tokens, most)
    files = [e.item for e in lost if e.status != "gated"]
    sections = [e.item for e in lost if e.item not in files]
    persona = [f for f in files if f in PERSONA]
    parts = []
    if persona:
        parts.append(f"persona ({', '.join(persona)})")
    rest = [f for f in files if f not in persona]
    if rest:
        parts.append(f"{len(rest)} file{'s' if len(rest) > 1 else ''} ({', '.join(rest)})")
    if sections:
        parts.append(
            f"{len(sections)} section{'s' if len(sections) > 1 else ''} ({', '.join(sections)})"
        )
    return f"Lost in the subagent{hint}: " + "; ".join(parts)


def _lost_with_tokens(
    lost: list[Explanation], hint: str, tokens: dict[str, int], most: Mapping[str, int] | None
) -> str:
    """`Lost in the subagent: persona ≈745 tok (SOUL.md, …); 3 files ≈5,122 tok (…); 7
    sections ≈980 tok (…)`: persona first, each group's ≈tokens (the main session's) before
    its names, so that a narrow line keeps the figures."""
    files = [e.item for e in lost if e.status != "gated"]
    sections = [e.item for e in lost if e.item not in files]
    persona = [f for f in files if f in PERSONA]
    rest = [f for f in files if f not in persona]
    parts = []
    for label, items in (("persona", persona), ("file", rest), ("section", sections)):
        if items:
            total = sum(tokens.get(i, 0) for i in items)
            word = (
                label
                if label == "persona"
                else f"{len(items)} {label}" + ("s" if len(items) > 1 else "")
            )
            cap = (most or {}).get(label, len(items))
            names = items[:cap]
            more = f"… {len(items) - len(names)} more" if len(names) < len(items) else ""
            parts.append(f"{word} ≈{total:,} tok ({', '.join([*names, more] if more else names)})")
    return f"Lost in the subagent{hint}: " + "; ".join(parts)
