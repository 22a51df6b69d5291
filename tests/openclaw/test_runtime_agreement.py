"""ctxscope's OpenClaw profiles against what each modelled release itself builds.

For each case in `cases.CASES`, OpenClaw 2026.2.19 and 2026.9.6 were asked (by `probe.mjs`)
for the bootstrap context files they build and, for some, the system prompt; their answers are
recorded in `runtime-<version>.json`. To ask an installed release again (and, with
`CTXSCOPE_RECORD=1`, record its answers): `CTXSCOPE_OPENCLAW_DIST=.../openclaw/dist
CTXSCOPE_NODE=.../bin/node pytest tests/openclaw` (several dist folders: separated by `:`).

Context files must agree to the character. The system prompt's size must be within 2 %: the
runtime's own text is not reproduced, only measured. Sections whose text comes from the run
rather than from the builder the probe calls (the clock, budget warnings, the spawn's extra
prompt, the docs folder) are left out on ctxscope's side, as they are absent on the other.
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
from tests.openclaw.cases import CASES, VERSIONS, Case, fingerprint, recorded, recorded_file

PROBE = Path(__file__).with_name("probe.mjs")
RUN_ONLY = {"temporal_context", "current_time", "time_hint", "bootstrap_notice", "subagent_context"}
"""Sections the run adds around the builder the probe calls; 2026.2's builder also leaves out
Documentation unless it is given the docs folder."""
RUN_ONLY_BY_VERSION = {"2026.2.19": RUN_ONLY | {"documentation"}, "2026.9.6": RUN_ONLY}
DISTS = [d for d in os.environ.get("CTXSCOPE_OPENCLAW_DIST", "").split(os.pathsep) if d]


def session_of(ws: Path, case: Case, profile: str) -> Session:
    (ws / "openclaw.json").write_text(json.dumps(case.config))
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


def normalized(prompt: dict[str, int] | None, ws: Path) -> dict[str, int] | None:
    """The runtime's prompt size with its workspace path counted as two chars."""
    if prompt is None:
        return None
    count = prompt["pathCount"]
    return {"chars": prompt["chars"] - count * (len(str(ws)) - 2), "path_count": count}


def disagreements(version: str, answers: dict[str, dict[str, Any]], root: Path) -> list[str]:
    wrong = []
    for case in CASES:
        ws = case.write(root)
        session = session_of(ws, case, VERSIONS[version])
        if fingerprint(context_files(session), ws) != answers[case.name]["files"]:
            wrong.append(f"{case.name}: context files")
        want = answers[case.name]["prompt"]
        if want is not None:
            mine = prompt_chars(session, ws, want["path_count"], version)
            if abs(mine - want["chars"]) > 0.02 * want["chars"]:
                wrong.append(f"{case.name}: prompt {mine} vs {want['chars']}")
    return wrong


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
        assert abs(mine - want["chars"]) <= 0.02 * want["chars"], (mine, want["chars"])


def ask_runtime(dist: str, root: Path) -> list[dict[str, Any]]:
    node = os.environ.get("CTXSCOPE_NODE") or shutil.which("node")
    if node is None:
        pytest.skip("no node to run the probe with (set CTXSCOPE_NODE)")
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
        [node, str(PROBE), dist],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(home), "PATH": os.environ.get("PATH", "")},
        check=True,
    )
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.skipif(not DISTS, reason="no OpenClaw install to ask (set CTXSCOPE_OPENCLAW_DIST)")
@pytest.mark.parametrize("dist", DISTS)
def test_the_model_agrees_with_the_installed_runtime(dist: str, tmp_path: Path) -> None:
    version = json.loads((Path(dist).parent / "package.json").read_text())["version"]
    if version not in VERSIONS:
        pytest.skip(f"OpenClaw {version} is not a modelled release")
    root = tmp_path / "rt"
    answers = {
        case.name: {
            "files": fingerprint([(n, t) for n, t in answer["files"]], root / case.name),
            "prompt": normalized(answer["prompt"], root / case.name),
        }
        for case, answer in zip(CASES, ask_runtime(dist, root), strict=True)
    }
    if os.environ.get("CTXSCOPE_RECORD"):
        recorded_file(version).write_text(json.dumps(answers, indent=1) + "\n")
    assert disagreements(version, answers, tmp_path / "mine") == []
