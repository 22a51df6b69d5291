"""A recorded run in figures (`ctxscope.core.figures`): what its `systemPromptReport` holds, each
figure it does not hold (section texts, token counts, digests, the prompt's tool lines) the
value `NOT_RECORDED`."""

from __future__ import annotations

from typing import Any

from ctxscope.core.figures import NOT_RECORDED, FileFigures, NotRecorded, Part, SessionFigures
from ctxscope.core.model import FileStatus
from ctxscope.core.tokens import estimate_tokens
from ctxscope.runs.recorded import RecordedFile, RecordedRun, int_figure, run_release


def recorded_status(rec: RecordedFile) -> tuple[FileStatus, str]:
    """A recorded file's status and, in words, what the run recorded of it."""
    raw, injected = rec.raw_chars or 0, rec.injected_chars or 0
    if rec.missing:
        return "missing", "recorded by the run as missing"
    if rec.truncated:
        return "truncated", f"recorded by the run: cut to {injected:,} of {raw:,} chars"
    if injected:
        return "injected", f"recorded by the run: {injected:,} chars injected"
    return "empty", "recorded by the run with nothing injected"


def _file(rec: RecordedFile) -> FileFigures:
    status, reason = recorded_status(rec)
    injected = rec.injected_chars or 0
    delivered = status in ("injected", "truncated")
    return FileFigures(
        rec.name,
        rec.path,
        status,
        rec.raw_chars if rec.raw_chars is not None else NOT_RECORDED,
        injected,
        estimate_tokens(injected) if delivered else 0,
        reason,
        NOT_RECORDED,
    )


def tool_entries(run: RecordedRun) -> list[tuple[str, int, int]]:
    """Each tool the run was sent: name, description chars, schema chars."""
    entries = run.figure("tools", "entries")
    if not isinstance(entries, list):
        return []
    return [
        (str(e["name"]), int_figure(e.get("summaryChars"), 0), int_figure(e.get("schemaChars"), 0))
        for e in entries
        if isinstance(e, dict) and isinstance(e.get("name"), str)
    ]


def turn_chars(run: RecordedRun) -> int | None:
    """The current turn's chars as recorded (2026.9), else None (not recorded)."""
    turn = run.figure("currentTurn")
    if not isinstance(turn, dict):
        return None
    return sum(
        int_figure(turn.get(k), 0)
        for k in ("promptChars", "runtimeContextChars", "modelOnlyPromptChars")
    )


def run_figures(
    run: RecordedRun, kind: str, prompt_mode: str, context_window: int
) -> SessionFigures:
    """The figures of `run`; `kind`, `prompt_mode` and `context_window`, which a record does
    not hold, as the workspace's config gives them for its key."""
    tools = tool_entries(run)
    tool_chars = tuple(len(name) + d + s for name, d, s in tools)
    tools_part = Part(sum(tool_chars), NOT_RECORDED, tool_chars)
    if not tools:
        tools_part = Part(int_figure(run.figure("tools", "schemaChars"), 0), NOT_RECORDED)
    turn = turn_chars(run)
    provider, model = run.figure("provider"), run.figure("model")
    release, how = run_release(run)
    return SessionFigures(
        run.session_key,
        run.agent_id,
        kind,
        prompt_mode,
        Part(int_figure(run.figure("systemPrompt", "chars"), 0), NOT_RECORDED),
        tools_part,
        Part(turn or 0, NOT_RECORDED, (turn,) if turn is not None else ()),
        NOT_RECORDED,
        context_window,
        tuple(_file(f) for f in run.files()),
        NOT_RECORDED,
        tuple(name for name, _, _ in tools)
        if isinstance(run.figure("tools", "entries"), list)
        else NOT_RECORDED,
        (),
        NOT_RECORDED,
        runtime_release=run.app_version or release or NOT_RECORDED,
        model=f"{provider}/{model}" if provider and model else model or None,
        workspace=str(run.figure("workspaceDir") or ""),
        prompt_hash=_held(run.figure("systemPrompt", "hash"), str),
        skills=_skill_names(run.figure("skills", "entries")),
        tool_schema_chars=_held(run.figure("tools", "schemaChars"), int),
        limits=(
            _held(run.figure("bootstrapMaxChars"), int),
            _held(run.figure("bootstrapTotalMaxChars"), int),
        ),
        generated_at=run.generated_at if run.generated_at is not None else NOT_RECORDED,
        release_from=how,
    )


def _held(value: Any, kind: type) -> Any:
    """`value` where the record holds one of `kind`, else `NOT_RECORDED`."""
    return value if isinstance(value, kind) else NOT_RECORDED


def _skill_names(entries: Any) -> tuple[str, ...] | NotRecorded:
    """The skills a record lists, by name; `NOT_RECORDED` where it lists none."""
    if not isinstance(entries, list):
        return NOT_RECORDED
    return tuple(str(e.get("name")) for e in entries if isinstance(e, dict))
