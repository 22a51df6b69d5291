"""Exact mode against a real installed OpenClaw, and against small stand-in runtimes that
misbehave (hang, lack the entry points) — every run is a real Node subprocess."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.core.model import Session
from ctxscope.core.tokens import text_chars
from ctxscope.runtimes.openclaw.exact import ExactError, ExactMode, find_install
from ctxscope.runtimes.openclaw.exact.runtime import RuntimeHelper
from tests.exact.conftest import unexpected_drift
from tests.openclaw.cases import CASES

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"
PROFILE_9 = (
    Path(__file__).resolve().parents[2] / "src/ctxscope/runtimes/profiles/openclaw-2026.9.yaml"
)


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        h.update(str(path.relative_to(root)).encode())
        if path.is_file():
            h.update(path.read_bytes())
            h.update(str(path.stat().st_mtime_ns).encode())
    return h.hexdigest()


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    return ws


def exact_session(ws: Path, package: Path, node: str) -> Session:
    """The main session of `ws` in exact mode with the runtime at `package`, its helper
    stopped afterwards."""
    ins = Inspector(ws, exact=True, runtime=package, node=node)
    try:
        return ins.session()
    finally:
        ins.close()


def exact_inspector(ws: Path, mode: ExactMode, **scenario: object) -> Inspector:
    """An inspector in exact mode with the runtime of `mode` (its helper already running)."""
    install = mode.install
    ins = Inspector(
        ws, scenario=scenario or None, exact=True, runtime=install.package, node=install.node
    )
    assert ins.exact is not None and ins.exact.install == install
    ins.exact = mode
    return ins


def test_exact_text_is_the_runtimes_and_leaves_the_workspace_alone(
    sample: Path, openclaw_package: Path, node22: str
) -> None:
    before = tree_digest(sample)
    session = exact_session(sample, openclaw_package, node22)
    assert session.exact.startswith("OpenClaw 2026.9.")
    assert session.profile == "openclaw-2026.9"  # the auto profile follows the runtime used
    assert not [d for d in session.diagnostics if d.code == "exact-unavailable"]
    # Every injected file's text is in the runtime's prompt, under its heading.
    for f in session.files:
        if f.body:
            assert f"## {f.path}\n" in session.system_prompt
            assert f.body.replace("\n\n\n", "\n\n")[:500] in session.system_prompt
    # The sections cut the runtime's text without gaps: their sizes are the runtime's.
    sizes = sum(s.chars for s in session.sections) + len(session.sections) - 1
    assert sizes == text_chars(session.system_prompt)
    assert not any(s.placeholder for s in session.sections)
    assert "Runtime: agent=main" in session.section("runtime").text  # type: ignore[union-attr]
    # The workspace files agree with ctxscope's model to the character: no file drift.
    drift = unexpected_drift(session)
    assert not [m for m in drift if ".md" in m], drift
    assert tree_digest(sample) == before


@pytest.fixture(params=["2026.9", "2026.2"])
def release(
    request: pytest.FixtureRequest, openclaw_package: Path, openclaw_package_2: Path
) -> tuple[str, Path]:
    """(release line, package folder) of each modelled OpenClaw (both named here, so that
    both installs start as soon as the tests are collected)."""
    return request.param, openclaw_package if request.param == "2026.9" else openclaw_package_2


def test_the_model_does_not_drift_on_the_sample(
    sample: Path, release: tuple[str, Path], kept_exact: Callable[[Path], ExactMode]
) -> None:
    line, package = release
    ins = exact_inspector(sample, kept_exact(package), task="Summarise CI", label="ci")
    try:
        report = ins.report(run_scripts=False)
    finally:
        ins.close()
    assert report.child is not None
    for session in (report.requester, report.child):
        assert session.exact.startswith(f"OpenClaw {line}.")
        assert session.profile == f"openclaw-{line}"
        drift = unexpected_drift(session)
        assert drift == [], drift
        sizes = sum(s.chars for s in session.sections) + len(session.sections) - 1
        assert sizes == text_chars(session.system_prompt)
    # The runtime lists the skills bundled with it too; that is said, not hidden.
    notes = [d.message for d in report.requester.diagnostics if d.code == "exact-skills"]
    assert len(notes) == 1 and "from outside the workspace" in notes[0]


def test_the_subagent_gets_the_runtimes_envelope_and_first_message(
    sample: Path, openclaw_package: Path, kept_exact: Callable[[Path], ExactMode]
) -> None:
    mode = kept_exact(openclaw_package)
    ins = exact_inspector(sample, mode, task="Fix the flaky test", label="ci")
    try:
        spawn = ins.spawn(run_scripts=False)
    finally:
        ins.close()
    child = spawn.child
    assert child.exact
    assert child.task_message is not None and "Fix the flaky test" in child.task_message
    assert "[Subagent Task]" in child.task_message
    envelope = child.section("subagent_context")
    assert envelope is not None and not envelope.placeholder
    assert f"- Your session: {child.session_key}." in envelope.text
    assert "- Label: ci" in envelope.text
    assert spawn.requester.exact


def test_a_wrong_profile_drifts(
    sample: Path, openclaw_package: Path, kept_exact: Callable[[Path], ExactMode]
) -> None:
    wrong = PROFILE_9.read_text(encoding="utf-8").replace(
        'heading: "## Safety", kind: runtime, modes: [full, minimal], typical_chars: 871',
        'heading: "## Safety", kind: runtime, modes: [full, minimal], typical_chars: 999',
    )
    wrong = wrong.replace('heading: "## Silent Replies"', 'heading: "## Quiet Replies"')
    assert "typical_chars: 999" in wrong and "Quiet Replies" in wrong
    (sample / "wrong.yaml").write_text(wrong.replace("name: openclaw-2026.9", "name: wrong"))
    mode = kept_exact(openclaw_package)
    ins = exact_inspector(sample, mode, profile=str(sample / "wrong.yaml"))
    try:
        session = ins.session()
    finally:
        ins.close()
    drift = [d.message for d in session.diagnostics if d.code == "drift"]
    assert any("'## Safety'" in m and "the runtime" in m for m in drift), drift
    assert any("'## Quiet Replies'" in m and "not in the runtime's prompt" in m for m in drift)
    assert any("'## Silent Replies'" in m and "not in ctxscope's model" in m for m in drift)
    assert any(s.id == "runtime:silent_replies" for s in session.sections)
    assert all("OpenClaw 2026.9" in m for m in drift)


def test_a_wrong_session_key_rule_drifts_and_the_runtime_rule_wins(
    sample: Path, openclaw_package: Path, kept_exact: Callable[[Path], ExactMode]
) -> None:
    # A profile that (wrongly) gives cron sessions the full prompt.
    wrong = PROFILE_9.read_text(encoding="utf-8").replace(
        "minimal_kinds: [subagent, cron]", "minimal_kinds: [subagent]"
    )
    assert "minimal_kinds: [subagent]\n" in wrong
    (sample / "wrong.yaml").write_text(wrong.replace("name: openclaw-2026.9", "name: wrong"))
    mode = kept_exact(openclaw_package)
    ins = exact_inspector(sample, mode, profile=str(sample / "wrong.yaml"))
    try:
        session = ins.session("agent:main:cron:nightly")
    finally:
        ins.close()
    drift = [d.message for d in session.diagnostics if d.code == "drift"]
    assert any(
        "prompt mode: ctxscope's model gives" in m and "the runtime minimal" in m for m in drift
    )
    assert session.prompt_mode == "minimal"  # the text shown is the runtime's


def render_exact(
    sample: Path, package: Path, node: str, mode: str = "--exact"
) -> subprocess.CompletedProcess[str]:
    """`ctxscope render SAMPLE --format json --exact` (or `mode`) with this runtime and Node."""
    command = ["render", str(sample), "--format", "json", mode]
    command += ["--runtime", str(package), "--node", node]
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *command], capture_output=True, text=True, timeout=120
    )


def test_render_exact_on_the_command_line(
    sample: Path, openclaw_package: Path, node22: str
) -> None:
    out = render_exact(sample, openclaw_package, node22)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["exact"].startswith("OpenClaw 2026.9.")
    assert "loading OpenClaw 2026.9." in out.stderr and "loaded in" in out.stderr


def test_without_a_usable_node_the_model_is_shown_with_the_reason(
    sample: Path, tmp_path: Path, openclaw_package: Path
) -> None:
    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v20.11.0\n")
    old.chmod(0o755)
    with pytest.raises(ExactError, match=r"needs Node ≥ 22; .* is v20\.11\.0"):
        find_install(str(openclaw_package), str(old))
    # `--exact` that cannot run is a usage error giving the reason; nothing is rendered.
    out = render_exact(sample, openclaw_package, str(old))
    assert out.returncode == 2
    assert out.stdout == ""
    assert "exact mode unavailable: exact mode needs Node ≥ 22" in out.stderr
    assert "v20.11.0" in out.stderr and "Traceback" not in out.stderr
    # `--exact=auto` shows ctxscope's model instead, saying why.
    out = render_exact(sample, openclaw_package, str(old), "--exact=auto")
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["exact"] is None
    codes = [d["code"] for d in data["diagnostics"]]
    assert "exact-unavailable" in codes
    assert "needs Node ≥ 22" in out.stderr


def test_no_runtime_folder_is_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(ExactError, match="no `openclaw` package"):
        find_install(str(tmp_path), sys.executable)


def fake_runtime(root: Path, module: str) -> Path:
    package = root / "openclaw"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "openclaw", "version": "2099.1.0"}))
    (package / "dist" / "entry.mjs").write_text(module)
    return package


def test_a_hanging_runtime_is_stopped_at_the_timeout(
    tmp_path: Path, node22: str, sample: Path
) -> None:
    package = fake_runtime(
        tmp_path,
        "function resolveBootstrapContextForRun() { return new Promise(() => {}); }\n"
        "function buildAgentSystemPrompt() { return ''; }\n",
    )
    helper = RuntimeHelper(find_install(str(package), node22), first_timeout=3, call_timeout=2)
    ready = helper.start()
    assert ready["version"] == "2099.1.0"
    proc = helper._proc
    assert proc is not None
    # Its first answer has the loading budget (the modules it builds with load then).
    stopped = "took more than 3 s loading its modules for its first answer; the helper was stopped"
    with pytest.raises(ExactError, match=stopped):
        helper.ask({"workspace": str(sample), "sessionKey": "agent:main:main"})
    assert proc.poll() is not None  # killed with its process group


def test_a_runtime_without_the_entry_points_says_what_it_lacks(
    tmp_path: Path, node22: str, sample: Path
) -> None:
    package = fake_runtime(tmp_path, "export const nothing = 1;\n")
    session = exact_session(sample, package, node22)
    assert session.exact == ""
    notes = [d.message for d in session.diagnostics if d.code == "exact-unavailable"]
    assert notes and "no bootstrap loader (resolveBootstrapContextForRun) found" in notes[0]
    assert "showing ctxscope's model instead" in notes[0]


@pytest.mark.skipif(os.name != "posix", reason="process groups")
def test_the_helper_ends_with_its_command(tmp_path: Path, node22: str, sample: Path) -> None:
    package = fake_runtime(
        tmp_path,
        "function resolveBootstrapContextForRun() { return { contextFiles: [] }; }\n"
        "function buildAgentSystemPrompt(p) {\n"
        "  return 'You are a test.\\n## Runtime\\nRuntime: x';\n"
        "}\n",
    )
    helper = RuntimeHelper(find_install(str(package), node22))
    answer = helper.ask(
        {
            "workspace": str(sample),
            "sessionKey": "agent:main:main",
            "agentId": "main",
            "config": {},
            "promptMode": "full",
            "tools": [],
        }
    )
    assert answer["ok"] and answer["systemPrompt"].startswith("You are a test.")
    proc = helper._proc
    helper.close()
    assert proc is not None and proc.poll() is not None


def test_no_drift_on_the_generated_workspaces(
    release: tuple[str, Path], kept_exact: Callable[[Path], ExactMode], tmp_path: Path
) -> None:
    """Every workspace of the runtime-agreement cases (budgets, truncation, links, chat
    types, subagents, prompt modes), asked of the installed release in exact mode."""
    line, package = release
    mode = kept_exact(package)
    drifted = {}
    for case in CASES:
        ws = case.write(tmp_path)
        (ws / "openclaw.json").write_text(json.dumps(case.run_config))
        ins = Inspector(ws, scenario={"tools": list(case.tools), "model": case.model})
        ins.exact = mode  # one runtime for all the cases
        ins.exact_on = True
        ins.reload()
        session = ins.session(case.session_key)
        refusal = ins.exact_refusal()
        if refusal is not None:
            # A config the release refuses is not run: the refusal is said instead.
            assert session.exact == "", case.name
            [note] = [d.message for d in session.diagnostics if d.code == "exact-unavailable"]
            assert note.startswith(f"exact mode not run: {refusal.message}"), case.name
            assert ins.exact_unavailable() is not None
            continue
        assert session.exact.startswith(f"OpenClaw {line}."), case.name
        # The builder's boundary markers are stripped, as every transport strips them.
        assert "<!-- OPENCLAW" not in session.system_prompt, case.name
        drift = unexpected_drift(session)
        if drift:
            drifted[case.name] = drift
    assert drifted == {}


def test_an_unmodelled_release_says_what_exact_mode_found(
    tmp_path: Path, node22: str, sample: Path
) -> None:
    package = fake_runtime(
        tmp_path,
        "function resolveBootstrapContextForRun() { return { contextFiles: [] }; }\n"
        "function buildAgentSystemPrompt(p) {\n"
        "  return 'You are a test.\\n## Runtime\\nRuntime: x';\n"
        "}\n",
    )
    session = exact_session(sample, package, node22)
    assert session.exact.startswith("OpenClaw 2099.1.0")
    assert session.system_prompt.startswith("You are a test.")
    [note] = [d.message for d in session.diagnostics if d.code == "exact-unmodelled"]
    assert "not a release ctxscope models" in note
    assert "found (buildAgentSystemPrompt, resolveBootstrapContextForRun)" in note
    assert "not found: " in note and "envelope" in note
    # Its version is newer than any modelled one: the newest profile stands in, with a warning.
    assert session.profile == "openclaw-2026.9"


def test_a_sandboxed_session_is_never_provisioned(
    sample: Path, openclaw_package: Path, kept_exact: Callable[[Path], ExactMode]
) -> None:
    """The runner's setup would provision a sandboxed session's sandbox; exact mode gives
    such a session the runtime's prompt builders instead, and says so."""
    (sample / "openclaw.json").write_text('{"agents": {"defaults": {"sandbox": {"mode": "all"}}}}')
    before = tree_digest(sample)
    ins = exact_inspector(sample, kept_exact(openclaw_package))
    try:
        session = ins.session()
    finally:
        ins.close()
    assert session.exact.startswith("OpenClaw 2026.9.")
    notes = [d.message for d in session.diagnostics if d.code == "drift"]
    assert any(
        "the runtime's prompt builders built this session, not its runner: the session runs "
        "in the runtime's sandbox, which exact mode never provisions" in m
        for m in notes
    ), notes
    assert tree_digest(sample) == before


def test_an_unmodelled_release_never_cuts_a_file_into_sections(
    tmp_path: Path, sample: Path, openclaw_package: Path, node22: str
) -> None:
    """A release ctxscope does not model (here the installed package under another version,
    2026.5.28: a package.json of its own beside a link to the real `dist`): the text is the
    runtime's, a context file's own `#` headings stay in the file's text (they used to become
    sections, each reported as drift), and a note says what exact mode could not do."""
    package = tmp_path / "openclaw"
    package.mkdir()
    (package / "dist").symlink_to(openclaw_package / "dist", target_is_directory=True)
    (package / "package.json").write_text('{"name": "openclaw", "version": "2026.5.28"}')
    session = exact_session(sample, package, node22)
    assert session.exact.startswith("OpenClaw 2026.5.28")
    assert session.profile == "openclaw-2026.2"  # the nearest older modelled release
    lines = {ln for f in session.files if f.body for ln in f.body.splitlines()}
    assert any(ln.startswith("# ") for ln in lines)  # the sample's files have headings
    cut = [s.heading for s in session.sections if s.heading and s.heading in lines]
    assert cut == []
    drift = [d.message for d in session.diagnostics if d.code == "drift"]
    assert not [m for m in drift if any(f"'{ln}'" in m for ln in lines if ln.startswith("#"))]
    [note] = [d.message for d in session.diagnostics if d.code == "exact-unmodelled"]
    assert "OpenClaw 2026.5.28" in note and "not a release ctxscope models" in note
    assert "its runner prepared the session" in note
    assert "a context file's own headings never start a section" in note
    assert "openclaw-2026.2's guesses" in note


def test_a_nested_child_names_its_parent_subagent_as_requester(
    tmp_path: Path, release: tuple[str, Path], kept_exact: Callable[[Path], ExactMode]
) -> None:
    """At depth 1 the spawning session is a subagent: the depth-2 child's Subagent Context
    names that subagent's key as its requester, in the runtime's own words and ctxscope's."""
    _, package = release
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a")
    (ws / "openclaw.json").write_text(
        '{"agents": {"defaults": {"subagents": {"maxSpawnDepth": 3}}}}'
    )
    ins = exact_inspector(ws, kept_exact(package), task="Check one file", depth=1)
    try:
        child = ins.spawn(run_scripts=False).child
    finally:
        ins.close()
    envelope = child.section("subagent_context")
    assert envelope is not None
    assert "Requester session: agent:main:subagent:" in envelope.text
    drift = unexpected_drift(child)
    assert drift == [], drift
