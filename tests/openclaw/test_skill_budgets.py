"""The skills catalog past each release's budget, held to what the real gateways sent
(`wirecases`' skills-budget block, recorded by `record_wire` with the package at a path as
long as the model's stand-in, since the skills' locations count against the budget): the
skills the model says are listed are the ones the gateway listed, and the Skills section
and the prompt are within 2 % and 1 % of the wire, for the main session and its child."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxscope import Inspector
from ctxscope.runtimes.openclaw.toolcatalog import STAND_IN_PACKAGE
from tests.openclaw import test_wire_cases
from tests.openclaw.manyskills import skill_files
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


@pytest.mark.parametrize(
    ("profile", "config", "limit", "where"),
    [
        ("openclaw-2026.9", {}, "18,000", "the release's default"),
        (
            "openclaw-2026.9",
            {"skills": {"limits": {"maxSkillsPromptChars": 4000}}},
            "4,000",
            "skills.limits.maxSkillsPromptChars",
        ),
        (
            "openclaw-2026.9",
            {
                "skills": {"limits": {"maxSkillsPromptChars": 4000}},
                "agents": {
                    "list": [{"id": "main", "skillsLimits": {"maxSkillsPromptChars": 2500}}]
                },
            },
            "2,500",
            "the agent's skillsLimits.maxSkillsPromptChars (main)",
        ),
        (
            "openclaw-2026.2",
            {"skills": {"limits": {"maxSkillsInPrompt": 5}}},
            "30,000",
            "the release's default",
        ),
    ],
)
def test_the_limits_the_config_sets_are_the_ones_applied(
    tmp_path: Path, profile: str, config: dict[str, Any], limit: str, where: str
) -> None:
    ws = tmp_path / "ws"
    for rel, text in skill_files(40, "skills").items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(str(text), encoding="utf-8")
    (ws / "AGENTS.md").write_text("# AGENTS\n", encoding="utf-8")
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    session = Inspector(ws, scenario={"profile": profile, "tools": ["read"]}).session()
    section = session.section("skills")
    assert section is not None
    assert f"limits: {limit} chars from {where}" in section.rule
    listed = [s for s in session.skills if s.listed]
    if "maxSkillsInPrompt" in json.dumps(config):
        assert "5 skills)" in section.rule and len(listed) < 5  # the runtime's own come first
    elif limit != "18,000":
        assert 0 < len(listed) < 40
        assert all("cut by the skills budget" in s.reason for s in session.skills if not s.listed)
