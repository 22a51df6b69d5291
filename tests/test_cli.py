"""The headless CLI, run as a user runs it: a real subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from .conftest import SAMPLE

EXCLUDED = ["SOUL.md", "USER.md", "IDENTITY.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"]


def ctxscope(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("sample") / "sample_workspace"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    return dest


def test_render_main_text(sample: Path):
    out = ctxscope("render", sample, "--session-key", "agent:main:main")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "prompt mode full" in text
    assert "──── ## Safety" in text and "chars, ≈" in text
    assert f"## {sample / 'SOUL.md'}" in text
    assert "MEMORY.md             truncated" in text


def test_render_subagent_excludes_with_reasons(sample: Path):
    out = ctxscope(
        "render",
        sample,
        "--session-key",
        "agent:main:subagent:demo",
        "--format",
        "json",
        "--task",
        "Tidy the changelog",
        "--label",
        "chores",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {
        "session_key",
        "agent_id",
        "kind",
        "prompt_mode",
        "profile",
        "runtime_version",
        "profile_choice",
        "exact",
        "system_prompt",
        "sections",
        "files",
        "task_message",
        "removed_tools",
        "request",
        "tokens",
        "diagnostics",
    }
    assert data["kind"] == "subagent" and data["prompt_mode"] == "minimal"
    files = {f["name"]: f for f in data["files"]}
    assert set(files["AGENTS.md"]) == {
        "name",
        "path",
        "status",
        "raw_chars",
        "injected_chars",
        "reason",
    }
    for name in EXCLUDED:
        assert files[name]["status"] == "excluded"
        assert "subagent sessions get only AGENTS.md, TOOLS.md" in files[name]["reason"]
    assert files["TOOLS.md"]["status"] == "injected"
    assert set(data["sections"][0]) == {"id", "heading", "chars", "tokens", "source"}
    assert data["task_message"].endswith("[Subagent Task]: Tidy the changelog")
    assert "label: chores" in data["system_prompt"]
    assert set(data["tokens"]) == {"system", "tools", "messages", "task", "total"}


def test_render_markdown(sample: Path):
    out = ctxscope("render", sample, "--format", "markdown")
    assert out.returncode == 0
    assert out.stdout.startswith("# `agent:main:main`")
    assert "| name | status |" in out.stdout


def test_render_goclaw_plan_profile(sample: Path):
    out = ctxscope(
        "render",
        sample,
        "--profile",
        "goclaw-plan",
        "--session-key",
        "agent:main:spawn:abc",
        "--format",
        "json",
    )
    data = json.loads(out.stdout)
    assert data["profile"] == "goclaw-plan" and data["kind"] == "subagent"
    assert [s["heading"] for s in data["sections"]][-1] == "## Task"


def test_explain_file_for_main_and_subagent(sample: Path):
    out = ctxscope("explain", sample, "SOUL.md", "--format", "json")
    answers = json.loads(out.stdout)["answers"]
    assert answers[0]["scope"] == "agent:main:main" and answers[0]["present"] is True
    assert answers[1]["scope"].startswith("agent:coder:subagent:")
    assert answers[1]["present"] is False and answers[1]["status"] == "excluded"


def test_explain_section_and_memory_note(sample: Path):
    skills = json.loads(ctxscope("explain", sample, "skills", "--format", "json").stdout)
    assert [a["present"] for a in skills["answers"]] == [True, False]
    assert "only in full mode" in skills["answers"][1]["rule"]
    note = ctxscope("explain", sample, "memory/2026-11-20.md")
    assert "not-injected" in note.stdout and "memory tools" in note.stdout


def test_check_sample_has_findings(sample: Path):
    out = ctxscope("check", sample)
    assert out.returncode == 1
    assert "truncated" in out.stdout and "MEMORY.md" in out.stdout


def test_check_clean_workspace_and_allow(make_workspace):
    files = {
        n: f"# {n}\ncontent"
        for n in [
            "AGENTS.md",
            "SOUL.md",
            "TOOLS.md",
            "IDENTITY.md",
            "USER.md",
            "HEARTBEAT.md",
            "BOOTSTRAP.md",
        ]
    }
    # skipBootstrap: the runtime writes no template for a file deleted, the folder is as it is.
    ws = make_workspace(files, config={"agents": {"defaults": {"skipBootstrap": True}}})
    (ws / "ctxscope.yaml").write_text("profile: openclaw-2026.2\n")
    assert ctxscope("check", ws).returncode == 0
    # Onboarding deletes BOOTSTRAP.md: 2026.2 injects a [MISSING] marker, shown as info only.
    (ws / "BOOTSTRAP.md").unlink()
    out = ctxscope("check", ws, "--format", "json")
    assert out.returncode == 0
    assert json.loads(out.stdout)["info"][0]["message"].startswith("BOOTSTRAP.md: file not found")
    (ws / "SOUL.md").unlink()
    out = ctxscope("check", ws, "--format", "json")
    assert out.returncode == 1
    assert json.loads(out.stdout)["findings"][0]["kind"] == "missing"
    assert ctxscope("check", ws, "--allow", "missing").returncode == 0
    assert ctxscope("check", ws, "--allow", "nonsense").returncode == 2
    # 2026.9 never marks BOOTSTRAP.md missing (it is only read while setup is pending).
    (ws / "ctxscope.yaml").write_text("profile: openclaw-2026.9\n")
    (ws / "SOUL.md").write_text("soul")
    out = ctxscope("check", ws, "--format", "json")
    assert (out.returncode, json.loads(out.stdout)["info"]) == (0, [])


def test_malformed_config_exits_2_naming_file_line_col(make_workspace):
    ws = make_workspace({}, config="{\n  agents: {,\n}\n")
    out = ctxscope("render", ws)
    assert out.returncode == 2
    assert f"{ws / 'openclaw.json'}:2:" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_workspace_exits_2(tmp_path: Path):
    out = ctxscope("render", tmp_path / "nope")
    assert out.returncode == 2
    assert "workspace folder not found" in out.stderr


def test_unavailable_tokenizer_is_a_clear_error(sample: Path, tmp_path: Path):
    out = ctxscope("render", sample, "--tokenizer", "tiktoken:no_such_encoding")
    assert out.returncode == 2 and "tiktoken" in out.stderr


def test_python_api_matches_cli(sample: Path):
    code = (
        f"import ctxscope, json; r = ctxscope.inspect({str(sample)!r}); "
        "print(json.dumps([f.status for f in r.requester.files]))"
    )
    api = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    cli = json.loads(ctxscope("render", sample, "--format", "json").stdout)
    assert api == [f["status"] for f in cli["files"]]


def test_check_reports_failing_scripts_when_trusted(sample: Path):
    untrusted = json.loads(ctxscope("check", sample, "--format", "json").stdout)
    assert not [f for f in untrusted["findings"] if f["kind"] == "script"]
    out = ctxscope("check", sample, "--trust", "--format", "json")
    assert out.returncode == 1
    scripts = [f for f in json.loads(out.stdout)["findings"] if f["kind"] == "script"]
    assert any(
        f["message"].startswith("ticket-context: Script exited with code 3") for f in scripts
    )


def test_explain_a_context_script(sample: Path):
    ran = json.loads(
        ctxscope("explain", sample, "ticket-context", "--trust", "--format", "json").stdout
    )["answers"]
    assert ran[0]["status"] == "error" and ran[0]["present"] is False
    ignored = json.loads(
        ctxscope(
            "explain",
            sample,
            "house-rules",
            "--requester",
            "coder",
            "--target",
            "coder",
            "--format",
            "json",
        ).stdout
    )["answers"]
    assert ignored[0]["status"] == "ignored"


def test_check_section_budget(make_workspace):
    files = {
        n: f"# {n}\ncontent"
        for n in ["SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "BOOTSTRAP.md"]
    }
    files["AGENTS.md"] = "a" * 4000
    ws = make_workspace(files)
    assert ctxscope("check", ws).returncode == 0
    out = ctxscope("check", ws, "--max-section-tokens", "500", "--format", "json")
    assert out.returncode == 1
    findings = json.loads(out.stdout)["findings"]
    assert {f["kind"] for f in findings} == {"budget"}
    assert any(
        f["message"].startswith(f"## {ws / 'AGENTS.md'}: ≈1,0")
        and f["path"] == str(ws / "AGENTS.md")
        for f in findings
    )


def test_demo_print_path_makes_a_scratch_copy_of_the_sample() -> None:
    import filecmp

    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "demo", "--print-path"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    folder = Path(out.stdout.strip())
    try:
        assert folder.name == "sample_workspace" and folder != SAMPLE
        compare = filecmp.dircmp(SAMPLE, folder, ignore=["__pycache__"])
        assert compare.left_only == [] and compare.right_only == [] and compare.diff_files == []
    finally:
        shutil.rmtree(folder.parent)


def test_a_headless_run_ends_quickly_with_all_its_output_and_its_exit_code(sample: Path):
    """Headless commands skip the interpreter's teardown: the output must still be whole
    (more than a pipe's buffer, read through a pipe) and the exit code kept."""
    out = ctxscope("spawn", sample, "--target", "coder", "--task", "x", "--format", "html")
    assert out.returncode == 0 and len(out.stdout) > 65_536
    assert out.stdout.rstrip().endswith("</body></html>")
    found = ctxscope("check", sample)
    assert found.returncode == 1 and found.stdout.strip()
    piped = subprocess.run(  # the reader goes away early: no traceback, no hang
        f"{sys.executable} -m ctxscope spawn '{sample}' --format json | head -c 100",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert len(piped.stdout) == 100 and "Traceback" not in piped.stderr


def test_a_headless_render_loads_only_what_it_uses(sample: Path):
    """`render` answers without the app (Textual, Rich), the HTTP client (no URL script runs)
    or `shutil` and its compression modules: each would add its import time to every run."""
    code = (
        "import sys\n"
        "from ctxscope.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "heavy = ('textual', 'rich', 'httpx', 'shutil', 'bz2', 'lzma')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy), file=sys.stderr)\n"
        "raise SystemExit(code)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "render", str(sample), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["system_prompt"]
    assert out.stderr.strip() == "[]"


def test_an_output_that_cannot_be_written_is_a_clear_error(sample: Path) -> None:
    """Started with its standard output closed, or writing to a full disk: one line on
    stderr saying why, exit 2, never a traceback."""
    closed = subprocess.run(
        [sys.executable, "-m", "ctxscope", "render", str(sample)],
        stdout=None,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        close_fds=True,
        preexec_fn=lambda: __import__("os").close(1),
    )
    assert closed.returncode == 2
    assert closed.stderr == "ctxscope: standard output is closed: nowhere to write the answer\n"
    if not Path("/dev/full").exists():
        return
    for args in (["render", str(sample)], ["check", str(sample), "--format", "json"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run(
                [sys.executable, "-m", "ctxscope", *args],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
        assert done.returncode == 2, args
        assert done.stderr == "ctxscope: cannot write the output: No space left on device\n"


def test_version_is_the_projects() -> None:
    """`ctxscope --version` names the version `pyproject.toml` gives the package."""
    project = tomllib.loads((SAMPLE.parent / "pyproject.toml").read_text())["project"]
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"ctxscope {project['version']}"
