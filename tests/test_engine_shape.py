"""The engine's shape: frozen inputs, a build with no side effects, what the Report carries for
the faces (markers, why a section is absent, skills), one JSON shape, the user's folders, the
agent-id rule, and the command line's default command."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.check import run_check
from ctxscope.core.ids import is_valid_agent_id, normalize_agent_id
from ctxscope.explain import explain
from ctxscope.infra import paths
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import Caches, load_inputs
from ctxscope.output.report import report_json
from ctxscope.report import build_report
from ctxscope.runtimes.rye.toolcache import ToolCache
from ctxscope.runtimes.rye.toolsource import Serial
from ctxscope.scripts import ScriptCache, TrustStore
from ctxscope.spawn import simulate_spawn
from tests.conftest import REPO, SAMPLE
from tests.tui.conftest import tree_digest


def test_inputs_are_frozen_and_carry_the_trust_decision(tmp_path: Path) -> None:
    store = TrustStore(tmp_path / "trust.json")
    inputs = load_inputs(SAMPLE, Snapshot(), trust_store=store)
    assert not inputs.trusted
    with pytest.raises(dataclasses.FrozenInstanceError):
        inputs.trusted = True  # type: ignore[misc]
    store.trust(SAMPLE, inputs.config.text)  # the config alone: its scripts are not vouched for
    assert not load_inputs(SAMPLE, Snapshot(), trust_store=store).trusted
    store.trust(SAMPLE, inputs.trust_key)
    assert load_inputs(SAMPLE, Snapshot(), trust_store=store).trusted


def test_a_build_writes_nothing_anywhere(tmp_path: Path) -> None:
    """build_report reads files and caches; it creates no cache or trust file, and the
    workspace stays byte-identical. Saving the tool cache is the caller's move."""
    before = tree_digest(SAMPLE)
    cache_file = tmp_path / "cache" / "tools.json"
    trust_file = tmp_path / "config" / "trust.json"
    snapshot = Snapshot()
    inputs = load_inputs(SAMPLE, snapshot, trust_store=TrustStore(trust_file))
    caches = Caches(ScriptCache(), Serial(ToolCache(cache_file)))
    report = build_report(inputs, snapshot, caches)
    assert report.thread is not None and report.thread.palette.registered
    assert not cache_file.exists() and not trust_file.exists()
    assert tree_digest(SAMPLE) == before
    # Untrusted: every script is reported as not run, none pending and none executed.
    assert report.spawn is not None
    assert {r.status for r in report.spawn.scripts.results} == {"not-run"}
    caches.tools.save()  # type: ignore[union-attr]
    assert cache_file.exists()


def test_simulate_explain_and_check_take_inputs_and_a_report() -> None:
    snapshot = Snapshot()
    inputs = load_inputs(SAMPLE, snapshot)
    report = build_report(inputs, snapshot, Caches())
    spawn = simulate_spawn(inputs, snapshot, ScriptCache())
    assert spawn.target_agent_id == report.spawn.target_agent_id == "coder"  # type: ignore[union-attr]
    answers = explain(inputs, report, "SOUL.md", snapshot=snapshot)
    assert [a.present for a in answers] == [True, False]
    kinds = {f.kind for f in run_check(inputs, report, snapshot=snapshot)}
    assert "truncated" in kinds


def test_markers_locate_what_the_engine_wrote() -> None:
    report = Inspector(SAMPLE).report(run_scripts=False)
    memory = report.requester.section("file:MEMORY.md")
    assert memory is not None
    [cut] = memory.markers
    assert cut.kind == "truncation"
    shown = memory.text[cut.start : cut.end]
    assert shown.startswith("[...truncated, read MEMORY.md for full content...]")
    assert shown.endswith("chars of " + str(report.requester.file("MEMORY.md").raw_chars) + ")…")  # type: ignore[union-attr]
    safety = report.requester.section("safety")
    assert safety is not None and safety.placeholder
    [ph] = safety.markers
    assert safety.text[ph.start : ph.end].startswith("⟦runtime text:")
    assert safety.text[ph.end - 1] == "⟧"
    child = report.child
    assert child is not None and child.task_message is not None
    labels = [child.task_message[m.start : m.end] for m in child.task_markers]
    assert labels == ["[Subagent Context]", "[Subagent Task]:"]


def test_missing_marker_covers_the_missing_body(make_workspace) -> None:  # type: ignore[no-untyped-def]
    skip = {"agents": {"defaults": {"skipBootstrap": True}}}  # no template written
    ws = make_workspace({"AGENTS.md": "# Agents"}, config=skip)
    session = Inspector(ws).session()
    soul = session.file("SOUL.md")
    assert soul is not None and soul.status == "missing"
    [m] = soul.markers
    assert (m.kind, soul.body[m.start : m.end]) == ("missing", soul.body)
    section = session.section("file:SOUL.md")
    assert section is not None
    assert section.text[section.markers[0].start :] == soul.body


def test_absent_sections_carry_their_generators_reason(make_workspace) -> None:  # type: ignore[no-untyped-def]
    # No skill passes an empty allowlist (the runtime's own skills included).
    ws = make_workspace({"AGENTS.md": "x"}, config={"agents": {"defaults": {"skills": []}}})
    insp = Inspector(ws, scenario={"tools": ["read"]})  # 2026.9 lists skills with `read`
    session = insp.session()
    assert session.absent_sections["voice"] == "messages.tts.auto is not enabled"
    assert session.absent_sections["skills"].startswith("no workspace skill")
    report = insp.report(run_scripts=False)
    [answer, _] = explain(insp.inputs, report, "voice", snapshot=insp.snapshot)
    assert (answer.status, answer.rule) == ("no-input", "messages.tts.auto is not enabled")


def test_skills_listed_by_the_skills_section_are_on_the_session(make_workspace) -> None:  # type: ignore[no-untyped-def]
    skill = "---\nname: {n}\ndescription: does {n}\n---\nbody\n"
    ws = make_workspace(
        {"skills/a/SKILL.md": skill.format(n="a"), "skills/b/SKILL.md": skill.format(n="b")},
        config={"agents": {"list": [{"id": "main", "skills": ["a"]}]}},
    )
    session = Inspector(ws, scenario={"tools": ["read"]}).session()
    assert [(s.name, s.listed) for s in session.skills] == [("a", True), ("b", False)]
    assert "allowlist" in session.skills[1].reason


def test_report_json_is_the_one_export_shape() -> None:
    report = Inspector(SAMPLE).report(run_scripts=False)
    data = json.loads(report_json(report))
    assert list(data) == [
        "workspace",
        "config_path",
        "scenario",
        "requester",
        "child",
        "spawn",
        "thread",
        "diagnostics",
    ]
    assert data["spawn"]["target_agent_id"] == "coder"
    assert "requester" not in data["spawn"]


def test_user_folders_honour_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTXSCOPE_CONFIG_DIR")
    monkeypatch.delenv("CTXSCOPE_CACHE_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert paths.themes_dir() == tmp_path / "cfg" / "ctxscope" / "themes"
    assert paths.trust_file() == tmp_path / "cfg" / "ctxscope" / "trust.json"
    assert paths.exports_dir() == tmp_path / "cfg" / "ctxscope" / "exports"
    assert paths.tool_cache_file("9").parent == tmp_path / "cache" / "ctxscope"
    assert TrustStore().path == paths.trust_file()


def test_inside_resolves_links_and_dotdot(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(ws / "sub")
    assert paths.inside(tmp_path / "link", ws)
    assert paths.inside(ws / "sub" / ".." / "sub", ws)
    assert not paths.inside(ws / ".." / "other", ws)


def test_agent_ids_are_compared_lower_cased_everywhere() -> None:
    assert normalize_agent_id("  Coder ") == "coder"
    # JavaScript's toLowerCase keeps ß (casefold would make it "ss"), so it stays invalid.
    assert normalize_agent_id("Straße") == "straße"
    assert is_valid_agent_id("Ops_1") and not is_valid_agent_id("straße")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def test_help_shows_the_inspectors_own_flags() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    for flag in ("--theme", "--no-watch", "--export-dir", "render", "tui"):
        assert flag in out.stdout
    tui = run_cli("tui", "--help")
    assert "--profile" in tui.stdout and "--theme" in tui.stdout


def test_a_bare_command_is_the_tui_command(tmp_path: Path) -> None:
    for argv in ([str(tmp_path / "nope")], ["tui", str(tmp_path / "nope")]):
        out = run_cli(*argv)
        assert out.returncode == 2
        assert out.stderr.strip() == f"ctxscope: {tmp_path / 'nope'}: workspace folder not found"
