"""The skills catalog past each release's budget, held to what the real gateways sent
(`wirecases`' skills-budget block, recorded by `record_wire` with the package at a path as
long as the model's stand-in, since the skills' locations count against the budget): the
skills the model says are listed are the ones the gateway listed, and the Skills section
and the prompt are within 2 % and 1 % of the wire, for the main session and its child."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxscope.openclaw.toolcatalog import STAND_IN_PACKAGE
from tests.openclaw import test_wire_cases
from tests.openclaw.test_wire_cases import RECORDED, build
from tests.openclaw.wirecases import BUDGET_CASES, WireCase, expected, model_sections, values

root = test_wire_cases.root
"""A scratch folder whose path is as long as the capture's (the fixture of the wire tests)."""

CASES = [
    (release, case)
    for release, cases in RECORDED.items()
    for case in BUDGET_CASES
    if cases.get(case.name, {}).get("sessions")
]


def _sessions(report: Any) -> dict[str, Any]:
    return {"main": report.requester, "child": report.child}


@pytest.mark.parametrize(("release", "case"), CASES, ids=[f"{r}-{c.name}" for r, c in CASES])
def test_the_catalog_is_fitted_to_the_budget_as_the_gateway_fitted_it(
    release: str, case: WireCase, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = RECORDED[release][case.name]
    assert recorded["package_chars"] == len(STAND_IN_PACKAGE), "captured at another path"
    report = build(case, root, monkeypatch, release)
    where = values(root)
    for name, session in _sessions(report).items():
        sent = recorded["sessions"][name]
        own = {s.name for s in session.skills}
        listed = {s.name for s in session.skills if s.listed}
        assert listed == own & set(sent["skills"]), name
        cut = [s for s in session.skills if s.name not in listed]
        assert all("cut by the skills budget" in s.reason for s in cut if sent["skills"]), name
        model = dict(model_sections(session, where))
        wire = {s["heading"]: expected(s, where) for s in sent["sections"]}
        heading = next((h for h in wire if h.startswith("## Skills")), None)
        assert heading is not None or not any(h.startswith("## Skills") for h in model), name
        if heading is not None:
            assert abs(model[heading] - wire[heading]) <= 0.02 * wire[heading], (
                name,
                model[heading],
                wire[heading],
            )
        whole = expected(sent["system_prompt"], where)
        chars = session.wire.system_prompt_chars
        assert abs(chars - whole) <= 0.01 * whole, (name, chars, whole)


def test_each_release_cuts_or_compacts_a_catalog_past_its_budget() -> None:
    """The cases hold what they are for: on each release, the gateway listed fewer of the
    workspace's skills than it has (a catalog past the limit)."""
    for release, case in CASES:
        sent = RECORDED[release][case.name]["sessions"]["main"]["skills"]
        own = [p for p in case.files if p.endswith("/SKILL.md")]
        assert len(set(sent)) > 0 and len(own) > len(
            [n for n in sent if any(f"/{n}/" in p for p in own)]
        ), (release, case.name)
