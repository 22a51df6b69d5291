"""Remedies in Why and what the subagent loses: only mechanisms the runtime version has."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ctxscope.api import Inspector
from ctxscope.explain import explain
from ctxscope.remedies import lost_in_child, lost_line

SAMPLE = Path(__file__).resolve().parents[1] / "sample_workspace"


def answers(profile: str, item: str) -> dict[str, object]:
    ins = Inspector(SAMPLE, scenario={"target": "coder", "task": "Review", "profile": profile})
    report = ins.report()
    found = explain(ins.inputs, report, item, snapshot=ins.snapshot)
    return {a.scope.split(":")[2]: a for a in found}


def test_a_file_the_allowlist_keeps_from_the_child_names_the_allowed_files_per_version() -> None:
    old = answers("openclaw-2026.2", "SOUL.md")["subagent"]
    new = answers("openclaw-2026.9", "SOUL.md")["subagent"]
    assert (
        "AGENTS.md, TOOLS.md: the only files a subagent session gets in OpenClaw 2026.2.19"
        in (
            old.remedies[0]  # type: ignore[attr-defined]
        )
    )
    assert (
        "AGENTS.md: the only file a subagent session gets in OpenClaw 2026.9.6"
        in (
            new.remedies[0]  # type: ignore[attr-defined]
        )
    )
    assert any("spawn's task" in r for r in new.remedies)  # type: ignore[attr-defined]
    assert "bootstrap-extra-files" in new.remedies[-1]  # type: ignore[attr-defined]
    assert "bootstrap-extra-files" not in old.remedies[-1]  # type: ignore[attr-defined]
    assert answers("openclaw-2026.2", "SOUL.md")["main"].remedies == []  # type: ignore[attr-defined]


def test_a_truncated_file_says_which_lines_are_cut_and_which_limit_to_raise() -> None:
    memory = answers("openclaw-2026.9", "MEMORY.md")["main"]
    shorten, raise_ = memory.remedies  # type: ignore[attr-defined]
    text = (SAMPLE / "MEMORY.md").read_text().rstrip()
    total = text.count("\n") + 1
    assert f"of {total})" in shorten and "≈ lines " in shorten
    first, last = (int(x) for x in shorten.split("≈ lines ")[1].split(" of")[0].split("–"))
    assert 1 < first < last < total  # the middle of the file goes
    assert "agents.list[].bootstrapMaxChars" in raise_  # 2026.9 reads per-agent limits
    old = answers("openclaw-2026.2", "MEMORY.md")["main"]
    assert "agents.list" not in old.remedies[1]  # type: ignore[attr-defined]


def test_lost_in_the_subagent_lists_persona_files_and_sections_with_remedies() -> None:
    ins = Inspector(SAMPLE, scenario={"target": "coder", "task": "Review"})
    report = ins.report()
    assert report.child is not None
    lost = lost_in_child(report.requester, report.child, ins.inputs.profile, ins.snapshot)
    by_item = {e.item: e for e in lost}
    assert {"SOUL.md", "IDENTITY.md", "MEMORY.md", "Skills (mandatory)"} <= set(by_item)
    assert "AGENTS.md" not in by_item and "TOOLS.md" not in by_item
    assert all(e.remedies for e in lost)
    assert "coder agent's workspace" in by_item["MEMORY.md"].rule
    line = lost_line(lost)
    assert line.startswith("Lost in the subagent: persona (SOUL.md, IDENTITY.md, USER.md)")
    assert "Skills (mandatory)" in line


def test_explain_prints_the_remedies(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "explain", str(SAMPLE), "SOUL.md", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    data = json.loads(out.stdout)
    child = next(a for a in data["answers"] if ":subagent:" in a["scope"])
    assert child["remedies"] and "AGENTS.md" in child["remedies"][0]
    text = subprocess.run(
        [sys.executable, "-m", "ctxscope", "explain", str(SAMPLE), "SOUL.md"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "\nRemedies\n" in text and "spawn's task" in text
