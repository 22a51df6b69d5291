"""ctxscope's model of the whole request, held to what the real OpenClaw 2026.9.6 gateway sent
for generated workspaces (`wirecases`, recorded once by `record_wire`): the system prompt
within 1 %, each section within 2 %, the tools by name and their schema chars within 2 %,
for the main session, the spawned child and, two levels deep, the child's own child. Offline:
the recorded sizes are facts; no runtime runs here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from tests import runtimes
from tests.openclaw.wirecapture import config_for, merged
from tests.openclaw.wirecases import CASES, WireCase, mismatches, recorded, values

RECORDED = recorded(runtimes.OPENCLAW_RELEASE)
KNOWN = {
    ("cjk-bom-crlf", "main"): {
        # The main turn's request had AGENTS.md's CRLF line ends as LF (its builder keeps
        # them, as the child's request did): the runner's rule is not modelled yet.
        "## <root>/ws/AGENTS.md 122 vs 119"
    },
}
"""Differences still open, by case and session: each must still be seen (a fix removes it
here), and nothing else may differ."""
CAPTURED = [c for c in CASES if RECORDED.get(c.name, {}).get("sessions")]


def build(case: WireCase, root: Path, monkeypatch: pytest.MonkeyPatch, depth: int = 0) -> Any:
    """ctxscope's report for the case as the capture ran it: the capture's gateway config
    (with the case's merged in) beside the workspace, the spawn it made, the gateway's
    environment, and no installed OpenClaw to be found."""
    ws = case.write(root)
    config = merged(config_for(ws, 1, 1, {}), case.gateway_config(root))
    config["meta"] = {"lastTouchedVersion": runtimes.OPENCLAW_RELEASE}
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    for name, text in case.config_files.items():
        (ws / name).write_text(text, encoding="utf-8")
    scenario = case.scenario() + (f"depth: {depth}\n" if depth else "")
    (ws / "ctxscope.yaml").write_text(scenario, encoding="utf-8")
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "scratch" / "state"))
    monkeypatch.setenv("PATH", str(root / "no-bin"))
    monkeypatch.setenv("npm_config_prefix", str(root / "no-npm"))
    return Inspector(ws).report(run_scripts=False)


@pytest.mark.parametrize("case", CAPTURED, ids=[c.name for c in CAPTURED])
def test_the_model_agrees_with_what_the_gateway_sent(
    case: WireCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = RECORDED[case.name]["sessions"]
    report = build(case, tmp_path, monkeypatch)
    where = values(tmp_path)
    found = {"main": mismatches(report.requester, sent["main"], where)}
    if "child" in sent:
        assert report.child is not None
        found["child"] = mismatches(report.child, sent["child"], where)
    if "grandchild" in sent:
        nested = build(case, tmp_path / "nested", monkeypatch, depth=1)
        found["grandchild"] = mismatches(
            nested.child, sent["grandchild"], values(tmp_path / "nested")
        )
    for session, said in found.items():
        assert set(said) == KNOWN.get((case.name, session), set()), (session, said)


def test_enough_generated_workspaces_were_captured() -> None:
    assert len(CAPTURED) >= 10, [c.name for c in CASES if c not in CAPTURED]
