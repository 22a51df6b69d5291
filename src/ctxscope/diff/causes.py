"""Why a recorded run and ctxscope's prediction of its session part: a step of
`diff.compare.compare` wherever one side of a pair is a run OpenClaw recorded and the other
the workspace as it is now (`ctxscope runs`, `diff --from run:`, the app's Runs panel and its
pinned run all ask it there).

Each cause is decided by evidence, in the order it is looked for: the file changed since the
run (`diff.since`: its size now is not the one the run recorded, or it was deleted or created);
a config change (the bootstrap limits, the session's workspace or model are not what the run
had, named with the key and where the config sets it); a runtime version change (the run's
release, from its record or its store's format, is not the one predicted); the tool policy;
else a modelling gap in ctxscope, said as such. With exact mode, a prompt whose sha256 equals
the record's `systemPrompt.hash` is "exactly what was sent".
"""

from __future__ import annotations

import os
from dataclasses import field
from typing import Any

from ctxscope.core.figures import NotRecorded, SessionFigures, digest, prompt_chars
from ctxscope.core.model import Session
from ctxscope.core.record import record
from ctxscope.diff.since import Read, Stat, file_rows, read_head
from ctxscope.diff.verdict import Difference, Verdict
from ctxscope.runs.causes import (
    CAUSE_WORDS,
    CHANGED,
    CONFIG,
    EXACT,
    GAP,
    POLICY,
    RUNTIME,
    cause_tail,
    few,
    only,
    prompt_cause,
    runner_parts,
)
from ctxscope.runs.recorded import RecordedRun, same_folder, same_release

NO_REPORT = "OpenClaw 2026.2 records one only for chat-driven turns"


@record
class Evidence:
    """What a recorded run's side brings to a comparison with the workspace now, besides its
    figures: the run itself, what the session reads now (its bootstrap `limits`, where the
    config sets each key, `set_by`: `{"bootstrapMaxChars": "openclaw.json:12"}`), the release
    the workspace runs now, and how the files now are looked at (`stat`, `read`)."""

    run: RecordedRun
    limits: tuple[int | None, int | None] = (None, None)
    set_by: dict[str, str] = field(default_factory=dict)
    release_now: str = ""
    stat: Stat = os.stat
    read: Read = read_head
    key_delta: int | None = None
    """The prediction was built for another key of the same shape, whose length moves the
    prompt's size by this much (its text, not this key's, has no hash to compare)."""


def explain(ev: Evidence, was: SessionFigures, now: SessionFigures, session: Session) -> Verdict:
    """The run of `ev` (its figures `was`) beside `session` (ctxscope's prediction of its key
    now, in figures `now`): each difference with its cause, and the verdict."""
    run, key_delta = ev.run, ev.key_delta
    exact = bool(session.exact)
    chars = prompt_chars(session) + (key_delta or 0)
    # The runner's prompt as OpenClaw hashes it (its boundary markers kept), where exact mode
    # has it; else the prompt as shown.
    raw = session.exact_sha256 if exact else None
    sha = None if key_delta is not None else raw or digest(session.system_prompt)
    if run.report is None:
        return Verdict(
            "no-record", f"no report recorded for this session ({NO_REPORT})", chars, sha, exact
        )
    # both sides in figures: the causes are decided from them (files only through stat/read)
    diffs: list[Difference] = []
    context = _context(was, now, ev, diffs)
    files = file_rows(was, now, (ev.stat, ev.read), context, diffs)
    changed = [d.item.removeprefix("file:") for d in diffs if d.cause == CHANGED]
    recorded_hash = was.prompt_hash
    recorded_chars = run.figure("systemPrompt", "chars")
    if exact and isinstance(recorded_hash, str) and recorded_hash == sha:
        return Verdict("exact", EXACT, chars, sha, exact, diffs, files)
    if isinstance(recorded_chars, int) and recorded_chars != chars and raw is None:
        diffs.append(
            Difference(
                "prompt",
                *prompt_cause(
                    changed, context, exact, recorded_chars - chars, accounted=_moved(files)
                ),
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
    diffs += _tools(was, now, context, ev.set_by)
    diffs += _skills(was, now, context)
    return Verdict(*_verdict(diffs, changed), chars, sha, exact, diffs, files)


def _verdict(diffs: list[Difference], changed: list[str]) -> tuple[str, str]:
    """The verdict and its summary (`changed`: the files changed since the run)."""
    if not diffs:
        return "same", "every recorded figure agrees with the prediction"
    causes = sorted({d.cause for d in diffs}, key=[CHANGED, CONFIG, POLICY, RUNTIME, GAP].index)
    summary = "differs: " + ", ".join(CAUSE_WORDS[c] for c in causes)
    if changed:
        summary += f" ({', '.join(changed)} changed since the run)"
    return "differs", summary


def _moved(files: list[dict[str, Any]]) -> int:
    """The chars the files changed since the run move the prompt by (their injected sizes,
    recorded and now)."""
    return sum(
        abs((f["predicted_injected_chars"] or 0) - (f["recorded_injected_chars"] or 0))
        for f in files
        if f["status"] == "changed"
    )


def _context(
    was: SessionFigures, now: SessionFigures, ev: Evidence, diffs: list[Difference]
) -> dict[str, bool]:
    """The config and runtime differences that explain the rest (`was`: the record's
    figures, `now`: the prediction's)."""
    release_now = ev.release_now
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
    _limits(was.limits, ev, (ran, predicted), found, diffs)
    _where(was, now, found, diffs, ev.set_by)
    return found


def _limits(
    recorded: tuple[int | NotRecorded, int | NotRecorded],
    ev: Evidence,
    releases: tuple[str, str],
    found: dict[str, bool],
    diffs: list[Difference],
) -> None:
    """The bootstrap limits the run had that are not the ones the session reads now
    (`releases`: the run's and the prediction's)."""
    ran, predicted = releases
    set_by = ev.set_by
    for name, was, now in zip(
        ("bootstrapMaxChars", "bootstrapTotalMaxChars"), recorded, ev.limits, strict=True
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
    "NO_REPORT",
    "POLICY",
    "RUNTIME",
    "Difference",
    "Evidence",
    "Verdict",
    "explain",
]
