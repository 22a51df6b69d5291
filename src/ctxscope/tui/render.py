"""Turn a session (or a Rye thread) into display blocks with highlight roles, and diff two
sessions.

Pure Python (no Textual, no Rich): a `Block` is one section (or the first user message, or a
"lost" stand-in in diff mode) with its body text and `(start, end, role)` spans. The spans of
truncation markers, `[MISSING]` bodies, runtime placeholders and first-message labels are the
engine's own markers; only markdown headings in workspace text are found here. The prompt view
maps roles to theme styles. A block's text is safe for the terminal: its control characters
are visible stand-ins (`ctxscope.core.safetext`), its spans moved with them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import TYPE_CHECKING, Literal

from ctxscope.core.model import FileEntry, Marker, Section, Session
from ctxscope.core.record import record
from ctxscope.core.safetext import UNSAFE, offset_map, terminal_safe
from ctxscope.diff.compare import FileChange, compare_sessions

if TYPE_CHECKING:
    from ctxscope.runtimes.rye import ThreadReport

Mark = Literal["", "lost", "gained", "changed"]

ROLE = {
    "truncation": "truncated",
    "missing": "missing",
    "placeholder": "placeholder",
    "label": "label",
}
"""The display role of each engine marker kind."""


@record
class Block:
    """One selectable stretch of a prompt pane."""

    key: str
    """Section id, `task` for the first user message, `lost:<id>` for a diff stand-in."""
    heading: str
    metrics: str
    body: str
    spans: list[tuple[int, int, str]] = field(default_factory=list)
    heading_role: str = "heading"
    mark: Mark = ""
    placeholder: bool = False

    def __post_init__(self) -> None:
        # Workspace text never reaches the pane raw: control characters become stand-ins
        # (the spans move with the text).
        self.heading = terminal_safe(self.heading)
        self.metrics = terminal_safe(self.metrics)
        if UNSAFE.search(self.body) is not None:
            at = offset_map(self.body)
            self.body = terminal_safe(self.body)
            self.spans = [(at(start), at(end), role) for start, end, role in self.spans]


def metrics_text(chars: int, tokens: int, source: str = "") -> str:
    text = f"{chars:,} ch ≈{tokens:,} tok"
    return f"{text} · {source}" if source else text


def short_source(source: str) -> str:
    """`workspace:/abs/path/X.md` → `workspace`; other sources unchanged."""
    return source.split(":", 1)[0] if source.startswith(("workspace:", "skills:")) else source


def md_headings(body: str) -> list[tuple[int, int, str]]:
    """Markdown heading lines (`#` to `######` then a space) in workspace text."""
    spans: list[tuple[int, int, str]] = []
    at = 0
    for line in body.split("\n"):
        level = len(line) - len(line.lstrip("#"))
        if 1 <= level <= 6 and line[level : level + 1] == " ":
            spans.append((at, at + len(line), "md-heading"))
        at += len(line) + 1
    return spans


def highlight(body: str, markers: list[Marker]) -> list[tuple[int, int, str]]:
    """Highlight spans for a body: its markdown headings, then the engine's markers (offsets
    already relative to `body`)."""
    return md_headings(body) + [(m.start, m.end, ROLE[m.kind]) for m in markers]


def section_block(section: Section) -> Block:
    text = section.text
    heading = section.heading
    if heading and text.startswith(heading):
        offset = len(heading) + text[len(heading) :].startswith("\n")
    else:
        offset = 0
        heading = heading or "(identity line)"
    body = text[offset:]
    markers = [m.shifted(-offset) for m in section.markers if m.start >= offset]
    source = short_source(section.source)
    if section.placeholder:  # "runtime placeholder", never "runtime · runtime placeholder"
        source = "runtime placeholder" if source in ("", "runtime") else f"{source} placeholder"
    metrics = metrics_text(section.chars, section.tokens, source)
    kinds = {m.kind for m in markers}
    role = (
        "heading-truncated"
        if "truncation" in kinds
        else "heading-missing"
        if "missing" in kinds
        else "heading"
    )
    return Block(
        section.id,
        heading,
        metrics,
        body,
        highlight(body, markers),
        role,
        placeholder=section.placeholder,
    )


def session_blocks(session: Session) -> list[Block]:
    """The blocks of a session: its sections, then the first user message if any."""
    blocks = [section_block(s) for s in session.sections]
    if session.task_message is not None:
        msg = session.task_message
        blocks.append(
            Block(
                "task",
                "First user message",
                metrics_text(len(msg), session.tokens.task),
                msg,
                highlight(msg, session.task_markers),
                "heading-task",
            )
        )
    return blocks


def mark_changed(blocks: list[Block], changed: set[str]) -> list[Block]:
    """`blocks` with the ones whose key is in `changed` marked `changed` (a rebuild just
    changed their text)."""
    if not changed:
        return blocks
    return [dataclasses.replace(b, mark="changed") if b.key in changed else b for b in blocks]


def diff_marks(main: Session, other: Session) -> tuple[dict[str, Mark], dict[str, Mark]]:
    """Marks by section id: for `main` (lost = not in `other`) and for `other` (gained = not in
    `main`, changed = same id with different text)."""
    main_text = {s.id: s.text for s in main.sections}
    other_text = {s.id: s.text for s in other.sections}
    main_marks: dict[str, Mark] = {k: "lost" for k in main_text if k not in other_text}
    other_marks: dict[str, Mark] = {}
    for key, text in other_text.items():
        if key not in main_text:
            other_marks[key] = "gained"
        elif main_text[key] != text:
            other_marks[key] = main_marks[key] = "changed"
    if other.task_message is not None:
        other_marks["task"] = "gained"
    return main_marks, other_marks


def with_diff(
    main: Session, other: Session, blocks: list[Block], *, main_side: bool
) -> list[Block]:
    """Blocks with diff marks; the child side also gets one-line stand-ins for lost sections,
    placed where they sat in the main prompt."""
    main_marks, other_marks = diff_marks(main, other)
    marks = main_marks if main_side else other_marks
    out = []
    for b in blocks:
        b.mark = marks.get(b.key, "")
        out.append(b)
    if main_side:
        return out
    other_ids = {s.id for s in other.sections}
    order = {s.id: i for i, s in enumerate(main.sections)}
    stand_ins = [
        Block(
            f"lost:{sec.id}",
            sec.heading or "(identity line)",
            f"lost · {sec.chars:,} ch in main",
            "",
            [],
            "heading-lost",
            mark="lost",
        )
        for sec in main.sections
        if sec.id not in other_ids
    ]
    stand_pos = [order[b.key[5:]] for b in stand_ins]
    result: list[Block] = []
    si = 0
    for b in out:
        pos = order.get(b.key)
        if pos is not None:
            while si < len(stand_ins) and stand_pos[si] < pos:
                result.append(stand_ins[si])
                si += 1
        result.append(b)
    if si < len(stand_ins):
        tail = stand_ins[si:]
        task_at = next((i for i, b in enumerate(result) if b.key == "task"), len(result))
        result[task_at:task_at] = tail
    return result


def delta_line(
    before: Session | None,
    after: Session | None,
    side: str,
    edited: frozenset[str] | set[str] = frozenset(),
) -> str:
    """What one rebuild changed in a session, in a phrase: the files whose injected size
    moved, then the total (`SOUL.md +1,204 ch ≈+301 tok · main 8,385 → 8,686 tok`), or
    `main unchanged`. `edited`: the paths whose content changed on disk since the last build
    (an edit the cut drops, or one that keeps the size, is named too). A file the runtime cuts
    says its size on disk and what the prompt gained, which differ. When the session is
    another agent's (the target switched), it says so instead of comparing files."""
    if after is None:
        return f"no {side}" if before is not None else ""
    if before is None:
        return f"{side} {after.tokens.total:,} tok"
    if (before.agent_id, before.workspace) != (after.agent_id, after.workspace):
        return (
            f"{side} is now {after.agent_id} ({after.tokens.total:,} tok; was "
            f"{before.agent_id}, {before.tokens.total:,} tok)"
        )
    changes = {c.name: c for c in compare_sessions(before, after).files}
    old = {f.name: f for f in before.files}
    parts = []
    for f in after.files:
        part = _file_delta(before, after, old.get(f.name), f, changes.get(f.name), edited)
        if part:
            parts.append(f"{f.name} {part}")
    total_before, total_after = before.tokens.total, after.tokens.total
    if total_after != total_before:
        parts.append(f"{side} {total_before:,} → {total_after:,} tok")
    return " · ".join(parts) if parts else f"{side} unchanged"


def _file_delta(
    before: Session,
    after: Session,
    prev: FileEntry | None,
    f: FileEntry,
    change: FileChange | None,
    edited: frozenset[str] | set[str],
) -> str:
    """One file's change between two builds of a session ("" when none): `change` as the
    comparison found it, else an edit on disk the prompt does not show."""
    cut = f.status == "truncated" or (prev is not None and prev.status == "truncated")
    moved = f.injected_chars - (prev.injected_chars if prev else 0)
    tok = _tokens(after, f.name) - _tokens(before, f.name)  # the session's tokenizer
    if change is not None and prev is not None and prev.status != f.status:
        return f"now {f.status} ({prev.raw_chars:,} → {f.raw_chars:,} ch on disk)"
    if cut and prev is not None and prev.raw_chars != f.raw_chars:
        return (
            f"{prev.raw_chars:,} → {f.raw_chars:,} ch on disk, cut: prompt "
            f"{moved:+,} ch ≈{tok:+,} tok"
        )
    if change is not None:
        return f"{moved:+,} ch ≈{tok:+,} tok" if moved else f"edited, same size ≈{tok:+,} tok"
    if f.path in edited and cut:
        return "edited in the part the cut drops: prompt unchanged"
    if f.path in edited and f.injected_chars > 0 and f.status != "missing":
        return "edited on disk: prompt unchanged"
    return ""


def _tokens(session: Session, name: str) -> int:
    section = session.section(f"file:{name}")
    return section.tokens if section is not None else 0


def thread_blocks(thread: ThreadReport) -> list[Block]:
    """A Rye thread as pane blocks: why it would not start (if so), the system message part by
    part (build_system_prompt hooks, then the chain's system items), then the first user
    message part by part (hooks, chain items, the directive prompt). Keys are
    `rye:<n>:<item id>` so Why explains the item."""
    blocks: list[Block] = []
    runtime = thread.profile.runtime
    for n, why in enumerate(thread.refused):
        text = f"{runtime} would not start this thread: {why}"
        blocks.append(
            Block(f"rye:{n}:{thread.directive}", "⛔ not started", "", text, [], "heading-missing")
        )
    n = len(blocks)
    stand_in = " (stand-in)" if thread.system_stand_in else ""
    for part in thread.system_hook_parts:
        n += 1
        blocks.append(
            Block(
                f"rye:{n}:{part.item_id or part.source}",
                f"system · build_system_prompt hook {part.source}",
                metrics_text(len(part.text), part.tokens, f"{part.tier} tier"),
                part.text,
                md_headings(part.text),
            )
        )
    for item in thread.composed["system"]:
        if not item.present or item.knowledge is None or not item.knowledge.body:
            continue
        n += 1
        k = item.knowledge
        where = f"{k.tier} tier" + (stand_in if k.tier == "system" else "")
        blocks.append(
            Block(
                f"rye:{n}:{item.item_id}",
                f"system · {item.item_id}",
                metrics_text(len(k.body), item.tokens, f"from {item.origin} · {where}"),
                k.body,
                md_headings(k.body),
            )
        )
    if not thread.system_message:
        n += 1
        blocks.append(
            Block(f"rye:{n}:{thread.directive}", "system · (no system message)", "", "", [])
        )
    for part in thread.parts:
        n += 1
        source = (
            part.source
            if part.item_id in (None, part.source)
            else f"{part.source} → {part.item_id}"
        )
        where = f"{part.tier} tier" if part.tier else ""
        if part.tier == "system":
            where += stand_in
        blocks.append(
            Block(
                f"rye:{n}:{part.item_id or part.source}",
                f"user · {part.kind} {source}",
                metrics_text(len(part.text), part.tokens, where),
                part.text,
                md_headings(part.text),
            )
        )
    return blocks
