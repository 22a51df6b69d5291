"""The causes of a difference between a recorded run and today's prediction: their kinds,
and how each is said (the prompt's cause, with exact mode's account of which parts of the
recorded prompt differ; the tail of a tool's or a skill's difference)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxscope.runs.recorded import RecordedRun

EXACT = "exactly what was sent"

SAME, CHANGED, CONFIG, RUNTIME, GAP = "same", "changed-since-run", "config", "runtime", "gap"
POLICY = "policy"
"""The kinds of a difference's cause (`policy`: the config's tool policy keeps a tool the
run was sent from the session now)."""


CAUSE_WORDS = {
    CHANGED: "files changed since the run",
    CONFIG: "config change",
    POLICY: "tool policy",
    RUNTIME: "runtime version change",
    GAP: "modelling gap in ctxscope",
}


def prompt_cause(
    changed: list[str],
    context: dict[str, bool],
    exact: bool,
    delta: int,
    runner: list[str] | None = None,
    spawned: bool = False,
    accounted: int | None = None,
) -> tuple[str, str]:
    """The prompt's cause and its words. `accounted`: the chars the files changed since the
    run move it by (where they are less than `delta`, the rest is said to be from elsewhere)."""
    size = f" ({delta:+,} chars in the record)" if delta else ""
    if changed:
        why = f"the prompt differs{size}: {', '.join(changed)} changed since the run"
        if accounted is not None and accounted < abs(delta):
            why += (
                f", which accounts for {accounted:,} of the {abs(delta):,} chars; the rest is "
                "not from the files changed (see the other differences)"
            )
        return CHANGED, why
    if context["config"]:
        return CONFIG, f"the prompt differs{size}: the config changed since the run"
    if context["runtime"]:
        return RUNTIME, f"the prompt differs{size}: another runtime version"
    if exact and runner is not None:
        where = f", in {'; '.join(runner)}" if runner else ""
        return GAP, (
            "the prompt's sha256 differs from what was sent with the files unchanged: drift in "
            f"ctxscope{where}. The runtime's runner built the session with the run's identity "
            "(its key, "
            "session id, spawn and state folder); what ctxscope stood in for is the gateway "
            "machine's Runtime line: host, os and node as exact mode's runtime reads them on "
            "this machine, shell from ctxscope's own $OPENCLAW_SHELL/$SHELL"
            + (
                "; the record holds no spawn task, so the scenario's stood in for it (2026.9 "
                "gives the task in the child's first message, outside the hashed prompt)"
                if spawned
                else ""
            )
        )
    if exact:
        return GAP, (
            f"the prompt differs from what was sent{size} with the files unchanged: drift in "
            "ctxscope (exact mode's text lacks what only the gateway adds: the attempt's "
            "cache markers and the gateway machine's Runtime fields)"
        )
    return GAP, (
        f"the prompt differs{size} with the files unchanged: a modelling gap in ctxscope "
        "(runtime text is a stand-in of its measured size; --exact asks the installed OpenClaw)"
    )


def runner_parts(run: RecordedRun, figures: dict[str, Any] | None) -> list[str]:
    """Which parts of the recorded prompt differ from the runtime's own, by the figures both
    reports give (`Session.exact_figures`): the project context (the files), the skills list,
    the rest of the prompt."""
    if not figures:
        return []

    def now(*path: str) -> Any:
        value: Any = figures
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        return value

    parts = []
    pairs = (
        ("projectContextChars", "the project context (the files)"),
        ("nonProjectContextChars", "the rest of the prompt"),
    )
    for name, what in pairs:
        was, made = run.figure("systemPrompt", name), now("systemPrompt", name)
        if isinstance(was, int) and isinstance(made, int) and was != made:
            parts.append(f"{what}: {was:,} chars recorded, {made:,} built now")
    # Each skill's block (name, chars), which a run's report lists: the text around them is
    # not held to the record (a run's skills prompt may come trimmed from its snapshot).
    was_blocks = blocks(run.figure("skills", "entries"))
    made_blocks = blocks(now("skills", "entries"))
    if was_blocks is not None and made_blocks is not None and was_blocks != made_blocks:
        was_names, made_names = {n for n, _ in was_blocks}, {n for n, _ in made_blocks}
        which = only(was_names, made_names, "the runtime lists {} now", few)
        parts.append(
            f"the skills list ({len(was_blocks)} skills recorded, {len(made_blocks)} built "
            f"now{'; ' + which if which else ''}; exact mode reads no skill from the user's "
            "home or state folder)"
        )
    if not parts and run.figure("systemPrompt", "chars") == now("systemPrompt", "chars"):
        parts.append(
            "a value of the same length, every part having the size the run recorded (such as "
            "the Runtime line's host, os, node or shell)"
        )
    return parts


def only(run: set[str], now: set[str], now_words: str, names: Callable[[list[str]], str]) -> str:
    """What only the run had and what only now has, said in one line."""
    only_run, only_now = sorted(run - now), sorted(now - run)
    parts = [f"only the run had {names(only_run)}"] if only_run else []
    if only_now:
        parts.append("only " + now_words.format(names(only_now)))
    return "; ".join(parts)


def blocks(entries: Any) -> list[tuple[str, Any]] | None:
    if not isinstance(entries, list):
        return None
    return [(str(e.get("name")), e.get("blockChars")) for e in entries if isinstance(e, dict)]


def few(names: list[str], most: int = 5) -> str:
    shown = ", ".join(names[:most])
    return shown + (f", … {len(names) - most} more" if len(names) > most else "")


def cause_tail(cause: str) -> str:
    return {
        CONFIG: ": the config changed since the run",
        RUNTIME: ": another runtime version",
        GAP: ": a modelling gap in ctxscope",
    }.get(cause, "")
