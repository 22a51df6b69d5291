"""What a spawned subagent is told about itself: the `## Subagent Context` block and the first
user message. The block's wording is ctxscope's own; its structure follows the
runtime (role and task, rules, output, prohibitions, spawning, session context)."""

from __future__ import annotations

from string import Formatter

from ctxscope.core.model import Marker
from ctxscope.core.record import record
from ctxscope.runtimes.profiles import Profile


@record(frozen=True)
class SubagentInfo:
    """What the runtime tells a spawned subagent about itself: task, label, depth, keys."""

    task: str
    """The task as the child receives it (context-script output already applied)."""
    label: str | None
    requester_session_key: str
    child_session_key: str
    depth: int
    """The child's depth (the caller's depth + 1)."""
    max_depth: int
    requester_channel: str | None = None


def subagent_context(info: SubagentInfo, *, with_task: bool = True) -> str:
    """ctxscope's summary of the block (its structure and values, not the runtime's words).
    `with_task=False` for versions that send the task only in the first message."""
    task = info.task.strip() or "(no task given)"
    lines = [
        "You are a subagent: a worker started by another session to do one task and report "
        "back. You are not the main agent and have no conversation of your own.",
        "",
        *(["Your task:", task, ""] if with_task else ["Your task: see the first message.", ""]),
        "Rules:",
        "- Keep to the task; do not widen its scope.",
        "- Finish it, then stop: your final reply is the result.",
        "- Do not start work nobody asked for; you end when the task ends.",
        "- Your result reaches the requester by itself; do not poll for status.",
        "",
        "Your final reply:",
        "- What you found or did, with enough detail to act on.",
        "- What you could not do, and why.",
        "",
        "Never:",
        "- talk to the user directly or send messages to outside channels;",
        "- create cron jobs or other lasting schedules;",
        "- present yourself as the main agent.",
    ]
    if info.depth < info.max_depth:
        lines += [
            "",
            "Spawning:",
            f"You may spawn your own subagents with sessions_spawn (you are at depth "
            f"{info.depth} of {info.max_depth}); their results come back to you.",
        ]
    elif info.depth >= 2:
        lines += [
            "",
            "Spawning:",
            f"You are a leaf worker at depth {info.depth} of {info.max_depth}: you cannot "
            "spawn further subagents.",
        ]
    lines += ["", "Session:"]
    if info.label:
        lines.append(f"- label: {info.label}")
    lines.append(f"- requester session: {info.requester_session_key}")
    if info.requester_channel:
        lines.append(f"- requester channel: {info.requester_channel}")
    lines.append(f"- your session: {info.child_session_key}")
    return "\n".join(lines)


def context_size(profile: Profile, info: SubagentInfo) -> int | None:
    """The size of the runtime's own Subagent Context block for this child (its fixed text
    measured per variant, plus the values it fills in), or None when the profile has no
    measure."""
    if not profile.context_chars:
        return None
    spawning = info.depth < info.max_depth
    variant = ("nested" if info.depth >= 2 else "first") + (
        "_spawning" if spawning else ("_leaf" if info.depth >= 2 else "")
    )
    size = profile.context_chars.get(variant)
    if size is None:
        return None
    if profile.context_has_task:
        task = " ".join(info.task.split())
        size += len(task) if task else len("{{TASK_DESCRIPTION}}")
    if info.label:
        size += len("- Label: \n") + len(info.label)
    size += len("- Requester session: .\n") + len(info.requester_session_key)
    if info.requester_channel:
        size += len("- Requester channel: .\n") + len(info.requester_channel)
    return size + len(info.child_session_key)


def task_message(profile: Profile, info: SubagentInfo) -> tuple[str, list[Marker]]:
    """The child's first user message (exact format, task trimmed) and where the runtime's
    bracketed labels (`[Subagent Task]:`) sit in it."""
    values = {"depth": info.depth, "max_depth": info.max_depth, "task": info.task.strip()}
    out: list[str] = []
    markers: list[Marker] = []
    at = 0
    for literal, field_name, spec, _conv in Formatter().parse(profile.task_message):
        markers += [m.shifted(at) for m in _labels(literal)]
        out.append(literal)
        at += len(literal)
        if field_name is not None:
            value = format(values[field_name], spec or "")
            out.append(value)
            at += len(value)
    return "".join(out), markers


def _labels(literal: str) -> list[Marker]:
    """`[Words]` (with a following `:`) in the profile's own template text."""
    found: list[Marker] = []
    start = literal.find("[")
    while start != -1:
        end = literal.find("]", start)
        if end == -1:
            break
        end += 1 + literal.startswith(":", end + 1)
        found.append(Marker(start, end, "label"))
        start = literal.find("[", end)
    return found
