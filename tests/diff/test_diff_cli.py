"""`ctxscope diff` as a user runs it, checked against what `render` and `spawn` say for
each side."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.cli import main

from ..conftest import SAMPLE

PROFILES = ("openclaw-2026.2", "openclaw-2026.9")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("sample") / "sample_workspace"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    return dest


def ctxscope(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def said(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def upgrade(sample: Path) -> dict:  # type: ignore[type-arg]
    out = ctxscope("diff", sample, "--from", PROFILES[0], "--to", PROFILES[1], "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def by_key(data: dict, key: str) -> dict:  # type: ignore[type-arg]
    return next(s for s in data["sessions"] if s["session_key"] == key)


@pytest.mark.parametrize("key", ["agent:main:main", "agent:coder:main"])
def test_upgrade_preview_matches_render_under_each_profile(
    upgrade: dict,  # type: ignore[type-arg]
    sample: Path,
    key: str,
    capsys: pytest.CaptureFixture[str],
):
    old, new = (
        said(capsys, "render", str(sample), "--profile", p, "--session-key", key) for p in PROFILES
    )
    entry = by_key(upgrade, key)
    assert entry["before"]["total"] == old["tokens"]["total"]
    assert entry["after"]["total"] == new["tokens"]["total"]
    assert entry["before"]["tools"] == old["tokens"]["tools"]
    # Every file whose status or injected size render shows changing, and only those.
    olds = {f["name"]: f for f in old["files"]}
    news = {f["name"]: f for f in new["files"]}
    changed = {
        n
        for n in olds.keys() | news.keys()
        if (olds.get(n) or {}).get("status") != (news.get(n) or {}).get("status")
        or (olds.get(n) or {}).get("injected_chars") != (news.get(n) or {}).get("injected_chars")
    }
    assert {f["name"] for f in entry["files"]} == changed
    for f in entry["files"]:
        for side, render in (("before", olds), ("after", news)):
            if f[side] is None:
                assert f["name"] not in render
            else:
                assert f[side]["status"] == render[f["name"]]["status"]
                assert f[side]["injected_chars"] == render[f["name"]]["injected_chars"]
    # TOOLS.md stops being injected, with 2026.9's reason.
    tools = next(f for f in entry["files"] if f["name"] == "TOOLS.md")
    assert tools["before"]["status"] == "injected"
    assert tools["after"]["status"] == "not-injected"
    assert tools["why"] == news["TOOLS.md"]["reason"]
    assert "HEARTBEAT.md" in {f["name"] for f in entry["files"]}
    # The sections that appear and those that go.
    ids_old = {s["id"] for s in old["sections"]}
    ids_new = {s["id"] for s in new["sections"]}
    sections = {s["id"]: s for s in entry["sections"]}
    added = {i for i, s in sections.items() if s["change"] == "added"}
    removed = {i for i, s in sections.items() if s["change"] == "removed"}
    assert added == ids_new - ids_old and added
    assert removed == ids_old - ids_new


def test_main_loses_heartbeat_and_tools_files(upgrade: dict):  # type: ignore[type-arg]
    lost = {
        f["name"]
        for f in by_key(upgrade, "agent:main:main")["files"]
        if f["before"]["status"] == "injected" and f["after"]["status"] == "not-injected"
    }
    assert lost == {"TOOLS.md", "HEARTBEAT.md"}


def test_spawned_child_matches_spawn_under_each_profile(
    upgrade: dict,  # type: ignore[type-arg]
    sample: Path,
    capsys: pytest.CaptureFixture[str],
):
    old, new = (
        said(capsys, "spawn", str(sample), "--profile", p, "--child-id", "diff") for p in PROFILES
    )
    entry = next(s for s in upgrade["sessions"] if s["role"] == "child")
    assert entry["session_key"] == new["child"]["session_key"]
    assert entry["before"]["total"] == old["child"]["tokens"]["total"]
    assert entry["after"]["total"] == new["child"]["tokens"]["total"]
    assert entry["policy"]["allowed"] == {
        "before": old["policy"]["allowed"],
        "after": new["policy"]["allowed"],
    }


def test_text_summary_comes_first_then_details(sample: Path):
    out = ctxscope("diff", sample, "--from", PROFILES[0], "--to", PROFILES[1])
    assert out.returncode == 0, out.stderr
    head, _, details = out.stdout.partition("────")
    summary = head.splitlines()
    assert len(summary) < 24  # one screen
    assert any(line.startswith("agent:main:main") and "−TOOLS.md" in line for line in summary)
    assert "not loaded by OpenClaw 2026.9.6" in details
    assert "+ ## Delegation" in details


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_markdown_and_html_for_a_pull_request(
    sample: Path, fmt: str, capsys: pytest.CaptureFixture[str]
):
    args = ["diff", str(sample), "--from", PROFILES[0], "--to", PROFILES[1]]
    assert main([*args, "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "markdown":
        assert out.startswith("# ctxscope diff")
        assert "| agent:main:main |" in out and "<details>" in out
    else:
        assert out.startswith("<!doctype html>") and "<script" not in out
        assert "TOOLS.md" in out and "</html>" in out


def test_one_session_only(sample: Path, capsys: pytest.CaptureFixture[str]):
    data = said(
        capsys,
        "diff",
        str(sample),
        "--from",
        PROFILES[0],
        "--to",
        PROFILES[1],
        "--session",
        "agent:coder:main",
    )
    assert [s["session_key"] for s in data["sessions"]] == ["agent:coder:main"]


def test_a_spec_naming_nothing_is_a_usage_error(sample: Path):
    out = ctxscope("diff", sample, "--from", "openclaw-2031.1")
    assert out.returncode == 2
    assert "'openclaw-2031.1' names no side" in out.stderr
    assert "Traceback" not in out.stderr
