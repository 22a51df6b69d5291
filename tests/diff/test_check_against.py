"""`check --against REV`: a CI guard on what a change does to every session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.cli import main

from .gitrepo import make_repo

CONFIG = (
    '{ meta: { lastTouchedVersion: "2026.2.19" }, '
    "agents: { defaults: { bootstrapMaxChars: 2000 } } }"
)
BIG = "# Memory\n" + "- an old note about the billing service\n" * 200


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        3,
        {"openclaw.json": CONFIG, "TOOLS.md": "# Tools\nUse rg.\n", "MEMORY.md": BIG},
    )


def check(capsys: pytest.CaptureFixture[str], ws: Path, *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["check", str(ws), "--against", "HEAD", "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_an_unchanged_workspace_passes_though_a_file_was_cut_before(
    repo: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["check", str(repo)]) == 1  # MEMORY.md is cut at every revision
    capsys.readouterr()
    code, data = check(capsys, repo)
    assert code == 0 and data["findings"] == []


def test_a_deleted_file_fails_and_allow_lost_relaxes_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
):
    (repo / "TOOLS.md").unlink()
    code, data = check(capsys, repo)
    assert code == 1
    # The main session and the spawned child (2026.2 gives a child TOOLS.md) both lose it.
    assert [(f["kind"], f["scope"]) for f in data["findings"]] == [
        ("lost", "agent:main:main"),
        ("lost", "agent:main:subagent:diff"),
    ]
    assert data["findings"][0]["message"].startswith("TOOLS.md: injected at HEAD")
    code, data = check(capsys, repo, "--allow", "lost")
    assert code == 0 and [f["kind"] for f in data["allowed"]] == ["lost", "lost"]


def test_a_file_that_grows_past_its_limit_fails_as_cut(
    repo: Path, capsys: pytest.CaptureFixture[str]
):
    (repo / "TOOLS.md").write_text("# Tools\n" + "Use rg, never grep -r.\n" * 120)
    code, data = check(capsys, repo)
    assert code == 1
    assert {(f["kind"], f["message"].split(":")[0]) for f in data["findings"]} == {
        ("truncated", "TOOLS.md")
    }
    assert main(["check", str(repo), "--against", "HEAD", "--allow", "truncated"]) == 0


def test_a_smaller_context_window_crosses_the_budget(
    repo: Path, capsys: pytest.CaptureFixture[str]
):
    (repo / "ctxscope.yaml").write_text("context_tokens: 3000\n")
    code, data = check(capsys, repo)
    assert code == 1
    assert {f["kind"] for f in data["findings"]} == {"budget"}
    assert "context window" in data["findings"][0]["message"]


def test_a_cut_that_leaves_more_out_fails_as_cut_more_and_allow_relaxes_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
):
    """MEMORY.md is cut at HEAD already; a smaller bootstrapMaxChars cuts 1,081 chars more
    of it (its marker counted). That is a finding of its own, `cut-more` (not a new cut),
    relaxed by --allow."""
    (repo / "openclaw.json").write_text(CONFIG.replace("2000", "800"))
    code, data = check(capsys, repo)
    assert code == 1
    found = {(f["kind"], f["message"].split(":")[0]) for f in data["findings"]}
    assert found == {("cut-more", "MEMORY.md")}, data["findings"]
    message = data["findings"][0]["message"]
    assert "too, now 1,081 chars more left out (injected 1,907 → 826 of 8,008" in message
    code, data = check(capsys, repo, "--allow", "cut-more")
    assert code == 0 and {f["kind"] for f in data["allowed"]} == {"cut-more"}
    # a bigger limit leaves less out: nothing to report
    (repo / "openclaw.json").write_text(CONFIG.replace("2000", "4000"))
    code, data = check(capsys, repo)
    assert code == 0 and data["findings"] == []
