"""`ctxscope check`: findings a CI job should fail on.

Kinds: `truncated` (a bootstrap file cut or dropped), `missing` (a core file absent),
`script` (a context script failed), `chain` (a Rye directive or item that does not build),
`budget` (a session over its context window, a section over `max_section_tokens`, or Rye
tools left out of the palette), `error`
(any other error-severity diagnostic). `--allow KIND` relaxes a kind.
"""

from __future__ import annotations

import re
from typing import Any

from ctxscope.core.model import Diagnostic, Session
from ctxscope.core.record import record
from ctxscope.core.tokens import is_estimate
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Inputs
from ctxscope.report import Report
from ctxscope.scenario import SCENARIO_FILE

KINDS = ("truncated", "missing", "script", "chain", "budget", "refused", "error")
REFUSED_CODES = ("rye-thread-refused", "rye-input")
"""Diagnostics that say the Rye runtime would not start the thread (errors only)."""


@record(frozen=True)
class Finding:
    kind: str
    scope: str
    message: str
    path: str | None = None
    line: int | None = None
    info: bool = False
    """Shown, never failing (a file onboarding deletes on purpose, ...)."""

    @property
    def location(self) -> str:
        if not self.path:
            return ""
        return f"{self.path}:{self.line}" if self.line else self.path

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "scope": self.scope,
            "message": self.message,
            "path": self.path,
            "line": self.line,
        }


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def stable_scope(session_key: str) -> str:
    """The session key with a spawned child's fresh uuid written as `<child>`, so findings
    compare equal between runs."""
    return _UUID.sub("<child>", session_key)


OPENCLAW_FILES = (
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
    "MEMORY.md",
    "memory.md",
)
"""The workspace files of every OpenClaw release ctxscope models (a release may not load some)."""
NOTHING_TO_READ = (
    "no OpenClaw workspace file (AGENTS.md, SOUL.md, ...), no gateway config (openclaw.json "
    "here or in the parent folder), no ctxscope.yaml, no Rye project space (.ai/)"
)
"""What a folder `recognised` says no to lacks."""


def recognised(inputs: Inputs, snapshot: Snapshot) -> bool:
    """Whether the workspace holds anything ctxscope reads: a gateway config (found or
    named), an OpenClaw workspace file, `ctxscope.yaml` or a Rye project space `.ai/`. A
    folder with none of them is most likely not the one meant (a CI job pointed at the
    wrong folder)."""

    if uses_openclaw(inputs, snapshot):
        return True
    listing = snapshot.listdir(inputs.workspace)
    names = {*listing.files, *listing.dirs}
    return bool(names & {*OPENCLAW_FILES, SCENARIO_FILE}) or ".ai" in listing.dirs


def uses_openclaw(inputs: Inputs, snapshot: Snapshot) -> bool:
    """False for a project that has nothing of OpenClaw's (no gateway config, none of the
    profile's bootstrap files): its absent files are not findings (a Rye-only project)."""
    if inputs.config.path is not None:
        return True
    names = set(snapshot.listdir(inputs.workspace).files)
    return any(n in names for n in inputs.profile.load_order())


def _approx(session: Session, placeholder: bool) -> str:
    """`≈` before a count that is an estimate: the session's tokenizer estimates, or the
    count holds a runtime placeholder's (sized by chars/4)."""
    return "≈" if is_estimate(session.tokenizer) or placeholder else ""


def _from_diag(kind: str, scope: str, d: Diagnostic) -> Finding:
    if d.code in REFUSED_CODES and d.severity == "error":
        kind = "refused"
    return Finding(kind, scope, d.message, d.path, d.line)


def _source_path(source: str) -> str | None:
    """The file behind a section's `workspace:<path>` source, if it is one."""
    path = source.removeprefix("workspace:")
    return path if path != source and path.startswith("/") else None


def run_check(
    inputs: Inputs,
    report: Report,
    *,
    snapshot: Snapshot,
    max_section_tokens: int | None = None,
    space: list[Diagnostic] | None = None,
) -> list[Finding]:
    """The findings in `report` (built from `inputs`), plus every broken Rye item of the
    workspace's spaces (`space`: that check's diagnostics when already made)."""
    findings: list[Finding] = []
    openclaw = uses_openclaw(inputs, snapshot)
    for s in report.sessions:
        scope = stable_scope(s.session_key)
        for f in s.files:
            if f.status == "truncated":
                findings.append(Finding("truncated", scope, f"{f.name}: {f.reason}", f.path))
            elif f.status == "unreadable" or (
                # An absent setup file is not pending setup: nothing is missing.
                f.status == "missing" and openclaw and f.name not in inputs.profile.setup_files
            ):
                done = f.name in inputs.profile.onboarding_files
                message = f"{f.name}: {f.reason}" + (
                    " (onboarding deletes it when done)" if done else ""
                )
                findings.append(Finding("missing", scope, message, f.path, info=done))
        for sec in s.sections:
            if max_section_tokens is not None and sec.tokens > max_section_tokens:
                findings.append(
                    Finding(
                        "budget",
                        scope,
                        f"{sec.heading or 'identity line'}: {_approx(s, sec.placeholder)}"
                        f"{sec.tokens:,} tokens exceed the "
                        f"{max_section_tokens:,}-token section budget",
                        _source_path(sec.source),
                    )
                )
        if s.tokens.total > s.context_window:
            findings.append(
                Finding(
                    "budget",
                    scope,
                    f"{_approx(s, any(x.placeholder for x in s.sections) or s.tokens.tools > 0)}"
                    f"{s.tokens.total:,} tokens"
                    f"{' (prompt, tools and messages)' if s.wire is not None else ''} exceed "
                    f"the {s.context_window:,}-token context window",
                )
            )
    if report.spawn is not None:
        scope = f"spawn by {inputs.scenario.requester}"
        for r in report.spawn.scripts.results:
            if r.status in ("error", "timeout"):
                findings.append(Finding("script", scope, f"{r.id}: {r.error}", r.uri))
    if space is None:
        from ctxscope.runtimes.rye import check_space  # the Rye engine only for a Rye space

        space = check_space(inputs.workspace, inputs.user_space, snapshot=snapshot)
    findings += [_from_diag("chain", "rye", d) for d in space if d.severity == "error"]
    if report.thread is not None:
        budget_skips = [t for t in report.thread.palette.skipped if t.over_budget]
        if budget_skips:
            findings.append(
                Finding(
                    "budget",
                    f"directive {report.thread.directive}",
                    f"{len(budget_skips)} tool(s) left out of the palette by the "
                    "tool_preload.max_tokens budget",
                )
            )
    seen = {(f.path, f.message) for f in findings}
    for d in report.all_diagnostics:
        if d.severity == "error" and (d.path, d.message) not in seen:
            findings.append(_from_diag("error", "build", d))
            seen.add((d.path, d.message))
    return findings
