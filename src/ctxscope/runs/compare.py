"""A recorded run beside ctxscope's prediction of the same session key today: file by file,
and for the prompt, the tools and the skills, where they differ and why.

Why, in the order it is looked for: the file changed since the run (its size now is not the
one the run recorded, or it was deleted or created; a modification time alone is no evidence:
a copy touches every file, it only dates a change found); a config change (the bootstrap limits,
the session's workspace or model are not what the run had); a runtime version change (the
store was written by another OpenClaw release than the one ctxscope models now); else a
modelling gap in ctxscope, said as such. With exact mode, a prompt whose sha256 equals the
record's `systemPrompt.hash` is "exactly what was sent".
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field
from typing import Any

from ctxscope.figures import (
    FileFigures,
    NotRecorded,
    SessionFigures,
    digest,
    of_session,
    prompt_chars,
)
from ctxscope.model import Session
from ctxscope.record import record
from ctxscope.runs.causes import (
    CAUSE_WORDS,
    CHANGED,
    CONFIG,
    EXACT,
    GAP,
    POLICY,
    RUNTIME,
    SAME,
    cause_tail,
    few,
    only,
    prompt_cause,
    runner_parts,
)
from ctxscope.runs.figures import run_figures
from ctxscope.runs.recorded import (
    RecordedRun,
    moved,
    run_release,
    same_folder,
    same_release,
    utc_time,
)


@record
class Difference:
    """One item where the record and the prediction part (or a file that changed since)."""

    item: str
    """`file:SOUL.md`, `prompt`, `tools`, `skills`, `model`, `workspace`, `runtime`, `limits`."""
    cause: str
    """`changed-since-run`, `config`, `runtime` or `gap` (see the module)."""
    why: str
    recorded: Any = None
    predicted: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "cause": self.cause,
            "why": self.why,
            "recorded": self.recorded,
            "predicted": self.predicted,
        }


@record
class Comparison:
    """Prediction vs record for one session (shared by the sessions of one shape in a
    listing: the row's run names the session)."""

    verdict: str
    """`exact` (hash equal), `same` (every figure agrees), `differs`, `no-record`."""
    summary: str
    predicted_prompt_chars: int | None = None
    predicted_sha256: str | None = None
    exact_mode: bool = False
    differences: list[Difference] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    """Each file of either side: name, recorded and predicted raw/injected chars, status."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "summary": self.summary,
            "exact_mode": self.exact_mode,
            "predicted_prompt_chars": self.predicted_prompt_chars,
            "predicted_sha256": self.predicted_sha256,
            "files": self.files,
            "differences": [d.to_dict() for d in self.differences],
        }


Stat = Callable[[str], os.stat_result]
Read = Callable[[str], bytes | None]
"""Reads a file's first `MAX_READ + 1` bytes (None: it cannot be read)."""


def read_head(path: str) -> bytes | None:
    """The first `MAX_READ + 1` bytes of the file at `path`; None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(MAX_READ + 1)
    except OSError:
        return None


def compare(
    run: RecordedRun,
    session: Session,
    *,
    limits: tuple[int | None, int | None] = (None, None),
    stat: Stat = os.stat,
    read: Read = read_head,
    key_delta: int | None = None,
    release_now: str = "",
    set_by: dict[str, str] | None = None,
) -> Comparison:
    """`run` (what OpenClaw recorded) beside `session` (ctxscope's prediction of the same
    key now, built with the bootstrap `limits` it uses). `key_delta`: `session` was built
    for another key of the same shape, whose length moves the prompt's size by this much
    (its text, not this key's, has no hash to compare). `release_now`: the OpenClaw release
    the workspace runs now (where `session` was predicted with the run's own release's
    rules); `set_by`: where the config sets each bootstrap limit (`openclaw.json:12`).
    The files now are looked at through `stat` and `read` only (a file only the run had is
    measured through them)."""
    exact = bool(session.exact)
    chars = prompt_chars(session) + (key_delta or 0)
    # The runner's prompt as OpenClaw hashes it (its boundary markers kept), where exact mode
    # has it; else the prompt as shown.
    raw = session.exact_sha256 if exact else None
    sha = None if key_delta is not None else raw or digest(session.system_prompt)
    if run.report is None:
        return Comparison(
            "no-record",
            "no report recorded for this session (OpenClaw 2026.2 records one only for "
            "chat-driven turns)",
            chars,
            sha,
            exact,
        )
    # both sides in figures: the causes are decided from them (files only through stat/read)
    was = run_figures(run, session.kind, session.prompt_mode, session.context_window)
    now = of_session(session)
    diffs: list[Difference] = []
    context = _context(was, now, limits, diffs, release_now, set_by or {})
    files = _files(was, now, (stat, read), context, diffs)
    changed = [d.item.removeprefix("file:") for d in diffs if d.cause == CHANGED]
    recorded_hash = was.prompt_hash
    recorded_chars = run.figure("systemPrompt", "chars")
    if exact and isinstance(recorded_hash, str) and recorded_hash == sha:
        return Comparison("exact", EXACT, chars, sha, exact, diffs, files)
    if isinstance(recorded_chars, int) and recorded_chars != chars and raw is None:
        diffs.append(
            Difference(
                "prompt",
                *prompt_cause(changed, context, exact, recorded_chars - chars),
                recorded=recorded_chars,
                predicted=chars,
            )
        )
    elif exact and isinstance(recorded_hash, str):
        diffs.append(
            Difference(
                "prompt",
                *prompt_cause(
                    changed,
                    context,
                    exact,
                    0,
                    runner_parts(run, session.exact_figures) if raw is not None else None,
                    bool(run.spawned_by),
                ),
                recorded=recorded_hash,
                predicted=sha,
            )
        )
    diffs += _tools(was, now, context, set_by or {})
    diffs += _skills(was, now, context)
    return Comparison(*_verdict(diffs, changed), chars, sha, exact, diffs, files)


def _verdict(diffs: list[Difference], changed: list[str]) -> tuple[str, str]:
    """The verdict and its summary (`changed`: the files changed since the run)."""
    if not diffs:
        return "same", "every recorded figure agrees with the prediction"
    causes = sorted({d.cause for d in diffs}, key=[CHANGED, CONFIG, POLICY, RUNTIME, GAP].index)
    summary = "differs: " + ", ".join(CAUSE_WORDS[c] for c in causes)
    if changed:
        summary += f" ({', '.join(changed)} changed since the run)"
    return "differs", summary


def changed_files(differences: list[Difference]) -> dict[str, Difference]:
    """The files among `differences` (a `compare`'s) that changed since the run (modified
    after its `generatedAt`, deleted or created since), by file name."""
    return {
        d.item.removeprefix("file:"): d
        for d in differences
        if d.cause == CHANGED and d.item.startswith("file:")
    }


def _context(
    was: SessionFigures,
    now: SessionFigures,
    limits: tuple[int | None, int | None],
    diffs: list[Difference],
    release_now: str,
    set_by: dict[str, str],
) -> dict[str, bool]:
    """The config and runtime differences that explain the rest (`was`: the record's
    figures, `now`: the prediction's)."""
    found = {"config": False, "runtime": False}
    ran = was.runtime_release if isinstance(was.runtime_release, str) else ""
    how = was.release_from
    predicted = now.runtime_release if isinstance(now.runtime_release, str) else ""
    if ran and predicted and not same_release(ran, predicted):
        found["runtime"] = True
        diffs.append(
            Difference(
                "runtime",
                RUNTIME,
                f"runtime version change: OpenClaw {ran} recorded the run ({how}), "
                f"ctxscope predicts for {predicted}",
                ran,
                predicted,
            )
        )
    elif ran and release_now and not same_release(ran, release_now):
        # predicted with the run's own release's rules: named, it explains nothing else
        diffs.append(
            Difference(
                "runtime",
                RUNTIME,
                f"runtime version change: OpenClaw {ran} recorded the run ({how}), the "
                f"workspace runs {release_now} now; ctxscope predicts the run with "
                f"{predicted or ran}'s rules",
                ran,
                release_now,
            )
        )
    _limits(was.limits, limits, ran, predicted, found, diffs, set_by)
    _where(was, now, found, diffs, set_by)
    return found


def _limits(
    recorded: tuple[int | NotRecorded, int | NotRecorded],
    limits: tuple[int | None, int | None],
    ran: str,
    predicted: str,
    found: dict[str, bool],
    diffs: list[Difference],
    set_by: dict[str, str],
) -> None:
    """The bootstrap limits the run had that are not the ones the session reads now."""
    for name, was, now in zip(
        ("bootstrapMaxChars", "bootstrapTotalMaxChars"), recorded, limits, strict=True
    ):
        if not (isinstance(was, int) and isinstance(now, int) and was != now):
            continue
        where = set_by.get(name)
        if where:
            found["config"] = True
            why = f"config change: {name} was {was:,}, now {now:,} ({where})"
            cause = CONFIG
        elif found["runtime"]:
            why = (
                f"runtime version change: {name} was {was:,} (OpenClaw {ran}), now "
                f"{now:,} ({predicted}'s default; the config sets none)"
            )
            cause = RUNTIME
        else:
            found["config"] = True
            why = (
                f"config change: {name} was {was:,} in the run; the config sets none now "
                f"(the default, {now:,})"
            )
            cause = CONFIG
        diffs.append(Difference("limits", cause, why, was, now))


def _where(
    was: SessionFigures,
    now: SessionFigures,
    found: dict[str, bool],
    diffs: list[Difference],
    set_by: dict[str, str],
) -> None:
    """The run's workspace and model, where they are not the session's now."""
    workspace = was.workspace
    if workspace and not same_folder(workspace, now.workspace):
        # Named, but it explains no other difference: the files are compared one by one.
        diffs.append(
            Difference(
                "workspace",
                CONFIG,
                f"config change: the run's workspace was {workspace}, ctxscope reads "
                f"{now.workspace}",
                workspace,
                now.workspace,
            )
        )
    recorded_model = was.model
    if isinstance(recorded_model, str) and now.model and recorded_model != now.model:
        found["config"] = True
        diffs.append(
            Difference(
                "model",
                CONFIG,
                f"config change: the run used {recorded_model}, ctxscope predicts {now.model}"
                + (f" ({set_by['model']})" if set_by.get("model") else ""),
                recorded_model,
                now.model,
            )
        )


def _files(
    was: SessionFigures,
    now: SessionFigures,
    disk: tuple[Stat, Read],
    context: dict[str, bool],
    diffs: list[Difference],
) -> list[dict[str, Any]]:
    recorded = {f.name: f for f in was.files}
    # What the runtime lists: every file it injected, and a missing one only where a
    # marker stands in for it (2026.9 lists no absent BOOTSTRAP.md, USER.md or MEMORY.md).
    predicted = {
        f.name: f
        for f in now.files
        if f.status not in ("not-injected", "excluded", "first-run")
        and not (f.status == "missing" and not f.injected_chars)
    }
    generated = was.generated_at if isinstance(was.generated_at, int) else None
    rows = []
    for name in list(dict.fromkeys([*recorded, *predicted])):
        rec, pred = recorded.get(name), predicted.get(name)
        row: dict[str, Any] = {
            "name": name,
            "recorded_raw_chars": _held(rec.raw_chars) if rec else None,
            "recorded_injected_chars": rec.injected_chars if rec else None,
            "recorded_missing": rec.status == "missing" if rec else None,
            "recorded_truncated": rec.status == "truncated" if rec else None,
            "predicted_status": pred.status if pred else None,
            "predicted_raw_chars": pred.raw_chars if pred else None,
            "predicted_injected_chars": pred.injected_chars if pred else None,
        }
        path = pred.path if pred else (moved(rec.path, was.workspace, now.workspace) if rec else "")
        change = _changed_since(path, rec, pred, generated, disk)
        agrees = _agrees(rec, pred)
        row["status"] = "changed" if change else "same" if agrees else "differs"
        rows.append(row)
        if change:
            diffs.append(Difference(f"file:{name}", CHANGED, change, _size(rec), _size(pred)))
        elif not agrees:
            cause, why = _file_cause(name, rec, pred, context)
            diffs.append(Difference(f"file:{name}", cause, why, _size(rec), _size(pred)))
    return rows


def _held(value: int | NotRecorded) -> int | None:
    """A figure as the listing shows it: None where it is not recorded."""
    return None if isinstance(value, NotRecorded) else value


def _size(entry: FileFigures | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {"raw_chars": _held(entry.raw_chars), "injected_chars": entry.injected_chars}


def _agrees(rec: FileFigures | None, pred: FileFigures | None) -> bool:
    if rec is None or pred is None:
        return False
    if rec.status == "missing":
        return pred.status == "missing"
    return rec.raw_chars == pred.raw_chars and rec.injected_chars == pred.injected_chars


def _changed_since(
    path: str,
    rec: FileFigures | None,
    pred: FileFigures | None,
    generated: int | None,
    disk: tuple[Stat, Read],
) -> str:
    """Why the file is not what the run read, decided by evidence: it is gone or new, or its
    size now is not the size the run recorded. A modification time alone decides nothing (a
    copy, a checkout or a backup touches every file); it only dates a change found."""
    if not path or rec is None:
        return ""
    stat, read = disk
    try:
        st = stat(path)
    except OSError:
        return "" if rec.status == "missing" else "deleted since the run"
    if rec.status == "missing":
        return f"created since the run ({_clock(st.st_mtime)})"
    now = pred.raw_chars if pred is not None and pred.status != "missing" else _chars(read(path))
    if not isinstance(now, int) or not isinstance(rec.raw_chars, int) or now == rec.raw_chars:
        return ""
    sizes = f"{rec.raw_chars:,} chars recorded, {now:,} now"
    if generated is not None and st.st_mtime * 1000 > generated:
        return f"changed since the run ({sizes}): modified {_clock(st.st_mtime)}" + _run_at(
            generated
        )
    return f"changed since the run ({sizes})"


def _chars(data: bytes | None) -> int | None:
    """The file's size in chars now (a file only the run had: no prediction measured it),
    from its first bytes as `read` gives them."""
    if data is None or len(data) > MAX_READ:
        return None
    return len(data.decode("utf-8", "replace"))


MAX_READ = 2 * 1024 * 1024
"""The most of a file only the run had that is read to measure it (the snapshot's cap)."""


def _run_at(generated: int) -> str:
    """How a file changed since the run names the run's time (the end of its `why`)."""
    return f", the run was at {_clock(generated / 1000)}"


def retimed(comparison: Comparison, was: int | None, now: int | None) -> Comparison:
    """`comparison`, made for a run recorded at `was` (ms), for a run of the same figures
    recorded at `now` with the same files changed since: only the run's time in each file's
    change differs."""
    if was is None or now is None:
        return comparison
    old, new = _run_at(was), _run_at(now)
    if old == new or not any(d.cause == CHANGED for d in comparison.differences):
        return comparison
    cut = len(old)
    diffs = [
        Difference(d.item, d.cause, d.why[:-cut] + new, d.recorded, d.predicted)
        if d.cause == CHANGED and d.why.endswith(old)
        else d
        for d in comparison.differences
    ]
    c = comparison
    return Comparison(
        c.verdict,
        c.summary,
        c.predicted_prompt_chars,
        c.predicted_sha256,
        c.exact_mode,
        diffs,
        c.files,
    )


def _clock(seconds: float) -> str:
    return utc_time(seconds, " UTC")


def _file_cause(
    name: str, rec: FileFigures | None, pred: FileFigures | None, context: dict[str, bool]
) -> tuple[str, str]:
    if pred is not None and rec is None:
        what = f"ctxscope predicts {name} ({pred.status}), the run did not have it"
    elif pred is None or rec is None:
        what = f"the run had {name}, ctxscope's prediction does not"
    else:
        what = (
            f"the run had {_held(rec.raw_chars)} raw / {rec.injected_chars} injected chars, "
            f"ctxscope predicts {pred.raw_chars} / {pred.injected_chars}"
        )
    if context["config"]:
        return CONFIG, f"{what}: the config changed since the run"
    if context["runtime"]:
        return RUNTIME, f"{what}: another runtime version"
    return GAP, f"{what}, though the file is unchanged since the run: a modelling gap in ctxscope"


def _tools(
    was: SessionFigures, now: SessionFigures, context: dict[str, bool], set_by: dict[str, str]
) -> list[Difference]:
    schema_now = now.tool_schema_chars
    # a prediction without its request's wire sends no tools to compare
    if isinstance(was.sent, NotRecorded) or isinstance(now.sent, NotRecorded):
        return []
    if not isinstance(schema_now, int):
        return []
    recorded = set(was.sent)
    predicted = set(now.sent)
    out = []
    # the tools the run was sent that the config's tool policy removes now: that policy
    removed = now.removed_tools
    kept_out = sorted(t for t in recorded - predicted if t in removed)
    if kept_out:
        where = ", ".join(f"{k} ({v})" for k, v in set_by.items() if k.startswith("tools."))
        out.append(
            Difference(
                "tools",
                POLICY,
                "tool policy: the run was sent "
                + "; ".join(f"{t}, {removed[t]} now" for t in kept_out)
                + (f" ({where})" if where else ""),
                kept_out,
                None,
            )
        )
        recorded -= set(kept_out)
    if recorded != predicted:
        what = only(recorded, predicted, "ctxscope predicts {}", ", ".join)
        cause = CONFIG if context["config"] else RUNTIME if context["runtime"] else GAP
        out.append(
            Difference(
                "tools",
                cause,
                f"tools differ: {what}" + cause_tail(cause),
                sorted(map(str, recorded)),
                sorted(predicted),
            )
        )
    schema = was.tool_schema_chars
    if (
        isinstance(schema, int)
        and recorded == predicted
        and not kept_out  # the policy's tools were part of the run's schemas
        and schema != schema_now
    ):
        cause = CONFIG if context["config"] else RUNTIME if context["runtime"] else GAP
        out.append(
            Difference(
                "tools",
                cause,
                f"tool schemas: the run sent {schema:,} chars, ctxscope predicts "
                f"{schema_now:,}" + cause_tail(cause),
                schema,
                schema_now,
            )
        )
    return out


def _skills(was: SessionFigures, now: SessionFigures, context: dict[str, bool]) -> list[Difference]:
    if isinstance(was.skills, NotRecorded) or isinstance(now.skills, NotRecorded):
        return []
    recorded = set(was.skills)
    predicted = set(now.skills)
    if recorded == predicted:
        return []
    extra = sorted(recorded - predicted)
    lacking = sorted(predicted - recorded)
    parts = []
    if extra:
        parts.append(f"the run listed {len(extra)} skill(s) ctxscope does not ({few(extra)})")
    if lacking:
        parts.append(f"ctxscope lists {few(lacking)}, the run did not")
    cause = CONFIG if context["config"] else RUNTIME if context["runtime"] else GAP
    tail = cause_tail(cause)
    if cause == GAP and extra and not lacking:
        tail = (
            ": a modelling gap in ctxscope, whose model counts the workspace's skills only "
            "(the runtime also lists those bundled with it or installed for the user)"
        )
    return [
        Difference("skills", cause, "; ".join(parts) + tail, sorted(recorded), sorted(predicted))
    ]


__all__ = [
    "CHANGED",
    "CONFIG",
    "EXACT",
    "GAP",
    "POLICY",
    "RUNTIME",
    "SAME",
    "Comparison",
    "Difference",
    "changed_files",
    "compare",
    "prompt_chars",
    "retimed",
    "run_release",
    "same_release",
]
