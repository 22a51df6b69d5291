"""A Rye thread on both sides of a comparison: its messages' parts by item, its tool palette,
its extends chain and the hooks that applied."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.diff.changes import SectionChange, SessionDiff, ThreadChange, ToolChange

if TYPE_CHECKING:
    from ctxscope.runtimes.rye import ThreadReport


def _thread_tokens(thread: ThreadReport | None) -> dict[str, int] | None:
    if thread is None:
        return None
    data = thread.to_dict()
    system = int(data.get("system", {}).get("tokens", 0))
    messages = int(data.get("first_message", {}).get("tokens", 0))
    tools = int(data.get("tools", {}).get("used_tokens", 0))
    return {
        "system": system,
        "tools": tools,
        "messages": messages,
        "total": system + tools + messages,
        "context_window": 0,
    }


def _thread_items(thread: ThreadReport) -> dict[str, tuple[str, int, int]]:
    """Each part of the thread's messages by item (or kind): (label, chars, tokens)."""
    out: dict[str, tuple[str, int, int]] = {}
    for part in [*thread.system_hook_parts, *thread.parts]:
        key = part.item_id or f"{part.kind}:{part.source}"
        label, chars, tokens = out.get(key, (key, 0, 0))
        out[key] = (label, chars + len(part.text), tokens + part.tokens)
    for position, items in thread.composed.items():
        if position != "system":
            continue
        for item in items:
            if item.status != "included":
                continue
            chars = len(item.knowledge.body) if item.knowledge is not None else 0
            out[f"system:{item.item_id}"] = (f"system {item.item_id}", chars, item.tokens)
    return out


def _hooks(thread: ThreadReport) -> list[str]:
    hooks = [*thread.resolve_hooks, *thread.context_hooks, *thread.system_hooks]
    return [h.id for h in hooks if h.applied]


def compare_threads(old: ThreadReport | None, new: ThreadReport | None) -> SessionDiff:
    directive = (new or old).directive if (new or old) is not None else ""  # type: ignore[union-attr]
    diff = SessionDiff(f"rye:{directive}", "rye", _thread_tokens(old), _thread_tokens(new))
    olds = _thread_items(old) if old is not None else {}
    news = _thread_items(new) if new is not None else {}
    for key, (label, chars, tokens) in news.items():
        if key not in olds:
            diff.sections.append(SectionChange(key, label, "added", 0, chars, 0, tokens))
        elif olds[key][1:] != (chars, tokens):
            _, c0, t0 = olds[key]
            diff.sections.append(SectionChange(key, label, "resized", c0, chars, t0, tokens))
    for key, (label, chars, tokens) in olds.items():
        if key not in news:
            diff.sections.append(SectionChange(key, label, "removed", chars, 0, tokens, 0))
    pal_old = {t.id: t for t in old.palette.registered} if old is not None else {}
    pal_new = {t.id: t for t in new.palette.registered} if new is not None else {}
    skipped = {t.id: t.reason for t in new.palette.skipped} if new is not None else {}
    diff.tools += [ToolChange(t, "gained") for t in pal_new if t not in pal_old]
    diff.tools += [ToolChange(t, "lost", skipped.get(t, "")) for t in pal_old if t not in pal_new]
    hooks_old = _hooks(old) if old is not None else []
    hooks_new = _hooks(new) if new is not None else []
    diff.thread = ThreadChange(
        directive,
        old.chain_ids() if old is not None else [],
        new.chain_ids() if new is not None else [],
        [h for h in hooks_new if h not in hooks_old],
        [h for h in hooks_old if h not in hooks_new],
    )
    return diff
