"""ctxscope's 2026.9 model against what OpenClaw 2026.9.6 itself builds.

For each case in `cases.CASES` the runtime was asked (by `probe.mjs`) for the bootstrap context
files it builds and, for some, the system prompt; its answers are recorded in
`runtime-2026.9.6.json`. Record them again from an installed runtime with
`CTXSCOPE_OPENCLAW_DIST=.../node_modules/openclaw/dist CTXSCOPE_NODE=.../node
CTXSCOPE_RECORD=1 pytest tests/openclaw`; with `CTXSCOPE_OPENCLAW_DIST` set the runtime is also
asked live.

Context files must agree to the character. The system prompt's size must be within 2 %: the
runtime's own boilerplate is not reproduced, only measured. The runtime's Temporal Context,
Bootstrap Context Notice and Subagent Context come from the run (clock, budget warnings,
spawn), not from the builder the probe calls, so they are left out of both sides.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.model import Session
from tests.openclaw.cases import CASES, RECORDED, Case, fingerprint, recorded

DIST = os.environ.get("CTXSCOPE_OPENCLAW_DIST")
PROBE = Path(__file__).with_name("probe.mjs")
RUN_ONLY = {"temporal_context", "bootstrap_notice", "subagent_context"}
"""Sections the run adds around the builder the probe calls."""


def session_of(ws: Path, case: Case) -> Session:
    (ws / "openclaw.json").write_text(json.dumps(case.config))
    (ws / "ctxscope.yaml").write_text("profile: openclaw-2026.9\n")
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


def prompt_chars(session: Session, ws: Path, path_count: int) -> int:
    """The system prompt's size as the builder makes it (each section's real size, one
    newline between sections), with the workspace path counted as two chars wherever the
    runtime writes it."""
    sections = [s for s in session.sections if s.id not in RUN_ONLY]
    return sum(s.chars for s in sections) + len(sections) - 1 - path_count * (len(str(ws)) - 2)


def normalized(prompt: dict[str, int] | None, ws: Path) -> dict[str, int] | None:
    """The runtime's prompt size with its workspace path counted as two chars."""
    if prompt is None:
        return None
    count = prompt["pathCount"]
    return {"chars": prompt["chars"] - count * (len(str(ws)) - 2), "path_count": count}


def ask_runtime(root: Path) -> list[dict[str, Any]]:
    node = os.environ.get("CTXSCOPE_NODE") or shutil.which("node")
    if node is None or DIST is None:
        pytest.skip("no OpenClaw runtime to ask (set CTXSCOPE_OPENCLAW_DIST and CTXSCOPE_NODE)")
    cases = [
        {
            "workspace": str(case.write(root)),
            "sessionKey": case.session_key,
            "config": case.config,
            "promptMode": case.prompt,
            "tools": list(case.tools),
            "model": case.model,
        }
        for case in CASES
    ]
    home = root / "home"
    home.mkdir()
    out = subprocess.run(
        [node, str(PROBE), DIST],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(home), "PATH": os.environ.get("PATH", "")},
        check=True,
    )
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_model_agrees_with_the_recorded_runtime(case: Case, tmp_path: Path) -> None:
    ws = case.write(tmp_path)
    session = session_of(ws, case)
    real = recorded()[case.name]
    assert fingerprint(context_files(session), ws) == real["files"]
    want = real["prompt"]
    if want is not None:
        mine = prompt_chars(session, ws, want["path_count"])
        assert abs(mine - want["chars"]) <= 0.02 * want["chars"], (mine, want["chars"])


def test_the_model_agrees_with_the_installed_runtime(tmp_path: Path) -> None:
    root = tmp_path / "rt"
    answers = ask_runtime(root)
    real = {
        case.name: {
            "files": fingerprint([(n, t) for n, t in answer["files"]], root / case.name),
            "prompt": normalized(answer["prompt"], root / case.name),
        }
        for case, answer in zip(CASES, answers, strict=True)
    }
    if os.environ.get("CTXSCOPE_RECORD"):
        RECORDED.write_text(json.dumps(real, indent=1) + "\n")
    wrong = []
    for case in CASES:
        ws = case.write(tmp_path)
        session = session_of(ws, case)
        if fingerprint(context_files(session), ws) != real[case.name]["files"]:
            wrong.append(f"{case.name}: context files")
        want = real[case.name]["prompt"]
        if want is not None:
            mine = prompt_chars(session, ws, want["path_count"])
            if abs(mine - want["chars"]) > 0.02 * want["chars"]:
                wrong.append(f"{case.name}: prompt {mine} vs {want['chars']}")
    assert wrong == []
