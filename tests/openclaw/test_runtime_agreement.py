"""ctxscope's OpenClaw profiles against what each modelled release itself built, recorded.

For each case in `cases.CASES`, OpenClaw 2026.2.19 and 2026.9.6 were asked for the bootstrap
context files they build and, for some, the system prompt; their answers are recorded in
`runtime-<version>.json`, so this check needs no runtime. The same cases are asked of the
installed releases on every run, section by section, by exact mode
(`tests/exact/test_exact_mode.py`).

Context files must agree to the character. The system prompt's size must be within 2 %.
Sections whose text comes from the run rather than from the builder that was asked (the
clock, budget warnings, the spawn's extra prompt, the docs folder) are left out on
ctxscope's side, as they are absent on the other.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.core.model import Session
from tests.openclaw.cases import CASES, VERSIONS, Case, fingerprint, recorded

RUN_ONLY = {"temporal_context", "current_time", "time_hint", "bootstrap_notice", "subagent_context"}
"""Sections the run adds around the builder the probe calls; 2026.2's builder also leaves out
Documentation unless it is given the docs folder."""
RUNNER = {"memory_recall"}
"""2026.9: the memory plugin's recall guidance the runner hands the builder."""
RUN_ONLY_BY_VERSION = {"2026.2.19": RUN_ONLY | {"documentation"}, "2026.9.6": RUN_ONLY | RUNNER}
STRIPPED = {"2026.2.19": 0, "2026.9.6": 33 + 39 + 40}
"""Chars of the builder's boundary markers (prompt cache, relocatable Runtime facts) that
every transport strips before the prompt is sent: the recorded sizes are the builder's, the
model's are the sent prompt's."""


@pytest.fixture(autouse=True)
def _builder_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The releases' builders were asked with workspace skills only: the runtime's own skills,
    which the run adds, are left out on ctxscope's side too (`tests/openclaw/test_request.py`
    checks them against what the run sent)."""
    from ctxscope.runtimes.openclaw import toolcatalog

    monkeypatch.setattr(toolcatalog, "bundled_catalog", lambda name: None)


def session_of(ws: Path, case: Case, profile: str) -> Session:
    (ws / "openclaw.json").write_text(json.dumps(case.run_config))
    (ws / "ctxscope.yaml").write_text(f"profile: {profile}\n")
    scenario: dict[str, Any] = {"tools": list(case.tools), "model": case.model}
    return Inspector(ws, scenario=scenario).session(case.session_key)


def context_files(session: Session) -> list[tuple[str, str]]:
    """The context files ctxscope says the runtime builds, in order: every file whose text
    is spent from the budget (a setup file left out of the prompt included)."""
    out = []
    for f in session.files:
        if f.body:
            out.append((f.name, f.body))
        elif m := re.search(r"its (\d+) chars still count against", f.reason):
            # Spent from the budget, left out of the prompt: the marker, cut to what was left.
            out.append((f.name, f"[MISSING] Expected at: {f.path}"[: int(m.group(1))]))
    return out


def prompt_chars(session: Session, ws: Path, path_count: int, version: str) -> int:
    """The system prompt's size as the builder makes it (each section's real size, one
    newline between sections), with the workspace path counted as two chars wherever the
    runtime writes it."""
    sections = [s for s in session.sections if s.id not in RUN_ONLY_BY_VERSION[version]]
    return sum(s.chars for s in sections) + len(sections) - 1 - path_count * (len(str(ws)) - 2)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_model_agrees_with_the_recorded_runtime(
    version: str, case: Case, tmp_path: Path
) -> None:
    ws = case.write(tmp_path)
    session = session_of(ws, case, VERSIONS[version])
    real = recorded(version)[case.name]
    assert fingerprint(context_files(session), ws) == real["files"]
    want = real["prompt"]
    if want is not None:
        mine = prompt_chars(session, ws, want["path_count"], version)
        sent = want["chars"] - STRIPPED[version]
        assert abs(mine - sent) <= 0.02 * sent, (mine, sent)
