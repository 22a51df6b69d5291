"""What a recorded run beside a prediction of its session comes to: each difference with
its cause, and the verdict (`exact`, `same`, `differs`, `no-record`) with a one-line summary.
Made by `diff.causes.explain`, a step of `diff.compare.compare`."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ctxscope.core.record import record
from ctxscope.runs.causes import CHANGED
from ctxscope.runs.recorded import utc_time


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
class Verdict:
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


def changed_files(differences: list[Difference]) -> dict[str, Difference]:
    """The files among `differences` (a `compare`'s) that changed since the run (modified
    after its `generatedAt`, deleted or created since), by file name."""
    return {
        d.item.removeprefix("file:"): d
        for d in differences
        if d.cause == CHANGED and d.item.startswith("file:")
    }


def run_at(generated: int) -> str:
    """How a file changed since the run names the run's time (the end of its `why`)."""
    return f", the run was at {utc_clock(generated / 1000)}"


def retimed(comparison: Verdict, was: int | None, now: int | None) -> Verdict:
    """`comparison`, made for a run recorded at `was` (ms), for a run of the same figures
    recorded at `now` with the same files changed since: only the run's time in each file's
    change differs."""
    if was is None or now is None:
        return comparison
    old, new = run_at(was), run_at(now)
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
    return Verdict(
        c.verdict,
        c.summary,
        c.predicted_prompt_chars,
        c.predicted_sha256,
        c.exact_mode,
        diffs,
        c.files,
    )


def utc_clock(seconds: float) -> str:
    """`seconds` since the epoch as a UTC time, as the causes name a run's and a file's."""
    return utc_time(seconds, " UTC")
