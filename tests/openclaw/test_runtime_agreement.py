"""ctxscope's 2026.9 bootstrap model against what OpenClaw 2026.9.6 itself builds.

The runtime's answers for `cases.CASES` are recorded in `runtime-2026.9.6.json` (run with
`CTXSCOPE_OPENCLAW_DIST=.../node_modules/openclaw/dist CTXSCOPE_RECORD=1` to record them
again from an installed runtime). With `CTXSCOPE_OPENCLAW_DIST` set, the runtime is also asked
live; without it, the recorded answers are the reference.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.model import Session
from tests.openclaw.cases import CASES, RECORDED, Case, fingerprint, recorded

DIST = os.environ.get("CTXSCOPE_OPENCLAW_DIST")
PROBE = Path(__file__).with_name("probe.mjs")


def ctxscope_files(ws: Path, case: Case) -> list[tuple[str, str]]:
    """The context files ctxscope says the runtime builds, in order: every file whose text
    is spent from the budget (a setup file left out of the prompt included)."""
    (ws / "openclaw.json").write_text(json.dumps(case.config))
    (ws / "ctxscope.yaml").write_text("profile: openclaw-2026.9\nsetup_completed: false\n")
    session: Session = Inspector(ws).session(case.session_key)
    out = []
    for f in session.files:
        if f.body:
            out.append((f.name, f.body))
        elif m := re.search(r"its (\d+) chars still count against", f.reason):
            # Spent from the budget, left out of the prompt: the marker, cut to what was left.
            out.append((f.name, f"[MISSING] Expected at: {f.path}"[: int(m.group(1))]))
    return out


def ask_runtime(root: Path) -> dict[str, list[tuple[str, str]]]:
    node = os.environ.get("CTXSCOPE_NODE") or shutil.which("node")
    if node is None or DIST is None:
        pytest.skip("no OpenClaw runtime to ask (set CTXSCOPE_OPENCLAW_DIST and CTXSCOPE_NODE)")
    cases = [
        {"workspace": str(case.write(root)), "sessionKey": case.session_key, "config": case.config}
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
    answers = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        case.name: [(name, text) for name, text in files]
        for case, files in zip(CASES, answers, strict=True)
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bootstrap_context_matches_the_recorded_runtime(case: Case, tmp_path: Path) -> None:
    ws = case.write(tmp_path)
    assert fingerprint(ctxscope_files(ws, case), ws) == recorded()[case.name]


def test_bootstrap_context_matches_the_installed_runtime(tmp_path: Path) -> None:
    root = tmp_path / "rt"
    runtime = ask_runtime(root)
    real = {case.name: fingerprint(runtime[case.name], root / case.name) for case in CASES}
    if os.environ.get("CTXSCOPE_RECORD"):
        RECORDED.write_text(json.dumps(real, indent=1) + "\n")
    mine = {
        case.name: fingerprint(ctxscope_files(case.write(tmp_path), case), tmp_path / case.name)
        for case in CASES
    }
    assert [n for n in real if mine[n] != real[n]] == []
