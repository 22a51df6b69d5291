"""`ctxscope thread`, explain_item, check_space, list_directives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Space

from ctxscope.cli import main
from ctxscope.runtimes.rye import check_space, explain_item, list_directives

SAMPLE = Path(__file__).resolve().parents[2] / "sample_workspace"


def run_cli(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "USER_SPACE"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "ctxscope", "thread", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
    )


def test_cli_text_on_sample(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    res = run_cli(
        [
            str(SAMPLE),
            "project/deploy/deploy_staging",
            "--input",
            "env=staging",
            "--events",
            str(events),
        ]
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for heading in (
        "resolve_extends hooks",
        "Extends chain (leaf → root)",
        "Composed context",
        "System message",
        "First user message",
        "Tool palette",
        "Capabilities",
        "Transcript events",
    ):
        assert heading in out
    assert "suppressed by project/deploy/deploy_staging" in out
    assert "route_web_extends" in out and "condition false" in out
    assert "skipped by budget" in out
    assert "Where Rye's docs and ryeos disagree" in out
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    # ryeos writes one context_injected event per position that received hook items.
    assert [(e["event"], e.get("position")) for e in lines] == [
        ("system_prompt", None),
        ("context_injected", "before"),
        ("context_injected", "after"),
    ]
    assert lines[1]["blocks"] == ["project/deploy/rules"]


def test_cli_json_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["thread", str(SAMPLE), "project/web/build_landing_page", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["directive"]["extends"] == {
        "value": "project/contexts/web-agent-base",
        "source": "hook route_web_extends",
    }
    assert [n["id"] for n in data["chain"][-2:]] == [
        "rye/agent/core/base_execute_only",
        "agent/core/base",
    ]
    assert (
        main(
            [
                "thread",
                str(SAMPLE),
                "project/review/code_review",
                "--input",
                "path=src",
                "--format",
                "markdown",
            ]
        )
        == 0
    )
    md = capsys.readouterr().out
    assert md.startswith("# Rye thread `project/review/code_review`")
    assert "## Tool palette" in md


def test_cli_errors_exit_2_naming_the_file(space: Space, tmp_path: Path) -> None:
    space.directive("job")
    res = run_cli([str(space.root), "nope/missing"])
    assert res.returncode == 2 and "directives/nope/missing.md" in res.stderr
    res = run_cli([str(space.root), "job", "--input", "novalue"])
    assert res.returncode == 2 and "KEY=VALUE" in res.stderr
    res = run_cli([str(space.root), "job", "--events", str(tmp_path / "no/dir/e.jsonl")])
    assert res.returncode == 2 and "e.jsonl" in res.stderr
    res = run_cli([str(tmp_path / "absent"), "job"])
    assert res.returncode == 2 and "absent" in res.stderr


def test_cli_user_space_from_env(space: Space, user_space: Space) -> None:
    user_space.directive("from_user")
    assert run_cli([str(space.root), "from_user"]).returncode == 2
    res = run_cli(
        [str(space.root), "from_user", "--allow", "refused"],
        env={"USER_SPACE": str(user_space.root)},
    )
    assert res.returncode == 0, res.stderr
    assert "[user tier" in res.stdout


def test_explain_suppressed_not_declared_and_shadowed() -> None:
    found = {e.scope: e for e in explain_item(SAMPLE, "rye/agent/core/Behavior")}
    staging = found["directive project/deploy/deploy_staging"]
    assert not staging.present and staging.status == "suppressed"
    assert "suppressed by project/deploy/deploy_staging" in staging.rule
    web = found["directive project/web/build_landing_page"]
    assert web.present and "base_execute_only" in web.rule
    sign = explain_item(SAMPLE, "rye/agent/core/protocol/sign")[0]
    assert sign.status == "not-declared"
    ident = explain_item(
        SAMPLE, "rye/agent/core/Identity", directive="project/deploy/deploy_staging"
    )[0]
    assert ident.present and "project tier" in ident.rule and "shadows the system" in ident.rule


def test_explain_tools_hooks_and_chain(space: Space) -> None:
    space.resilience("tool_preload:\n  max_tokens: 1\n")
    space.write("tools/t/x.yaml", "description: x\nparameters:\n  - name: a\n")
    space.knowledge("k/banner", "Banner.")
    space.hooks(
        "hooks:\n  - id: banner\n    event: thread_started\n"
        "    condition: {path: inputs.env, op: eq, value: prod}\n"
        "    action: {kind: knowledge, item_id: k/banner}\n"
    )
    space.directive("base", permissions="<execute><tool>t.x</tool></execute>")
    space.directive("job", extends="base")
    ex = {
        i: explain_item(space.root, i, directive="job")[0]
        for i in ("t_x", "rye/file-system/write", "k/banner", "base", "ghost")
    }
    assert ex["t_x"].status == "skipped-budget"
    assert ex["rye/file-system/write"].status == "not-granted"
    assert ex["k/banner"].status == "hook-not-matched" and "condition false" in ex["k/banner"].rule
    assert ex["base"].present and "extends level 1" in ex["base"].rule
    assert ex["ghost"].status == "unknown"
    assert explain_item(space.root, "k/banner", directive="job", inputs={"env": "prod"})[0].present


def test_check_space_reports_broken_items(space: Space) -> None:
    space.directive("ok")
    space.directive("loop_a", extends="loop_b")
    space.directive("loop_b", extends="loop_a")
    bad = space.write("knowledge/k/bad.md", "```yaml\n: : :\n  - [\n```\nx\n")
    codes = {d.code for d in check_space(space.root)}
    assert "extends-cycle" in codes and "rye-yaml" in codes
    assert any(d.path == str(bad) for d in check_space(space.root))
    assert check_space(SAMPLE) == []


def test_list_directives_project_first() -> None:
    ids = list_directives(SAMPLE)
    assert ids[0].startswith("project/")
    assert ids.index("project/deploy/deploy_staging") < ids.index("rye/agent/core/base")


def test_cli_names_the_system_tier_and_refuses_a_bad_rye_system(tmp_path: Path) -> None:
    res = run_cli([str(SAMPLE), "project/deploy/deploy_staging", "--input", "env=staging"])
    assert "system tier: ctxscope's stand-in" in res.stdout
    res = run_cli([str(SAMPLE), "project/deploy/deploy_staging", "--rye-system", str(tmp_path)])
    assert res.returncode == 2 and "not a Rye system space" in res.stderr
    res = run_cli([str(SAMPLE), "project/deploy/deploy_staging", "--rye-profile", "nope"])
    assert res.returncode == 2 and "unknown Rye profile 'nope'" in res.stderr
    docs = run_cli(
        [
            str(SAMPLE),
            "project/deploy/deploy_staging",
            "--input",
            "env=staging",
            "--rye-profile",
            "rye-docs",
            "--format",
            "json",
        ]
    )
    data = json.loads(docs.stdout)
    assert data["profile"]["name"] == "rye-docs" and data["disagreements"]


def test_a_refused_thread_exits_1_unless_allowed_and_check_reports_it(
    space: Space, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every refusal is an error with its cause: `thread` exits 1 (`--allow refused`: 0) and
    `check` reports a `refused` finding for it."""
    space.directive("wide", permissions="*")  # capability_risk.yaml blocks "unrestricted"
    assert main(["thread", str(space.root), "wide", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["refused"] and "classified as 'unrestricted'" in data["refused"][0]
    errors = [d for d in data["diagnostics"] if d["code"] == "rye-thread-refused"]
    assert errors and all(d["severity"] == "error" for d in errors)
    assert errors[0]["path"] == str(space.ai / "directives" / "wide.md")
    assert main(["thread", str(space.root), "wide", "--allow", "refused"]) == 0
    assert "⛔ ryeos 0.1.30 would not start this thread: Capability 'rye.*'" in (
        capsys.readouterr().out
    )
    assert main(["check", str(space.root), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert any(f["kind"] == "refused" and "unrestricted" in f["message"] for f in findings)
    assert main(["check", str(space.root), "--allow", "refused"]) == 0


def test_disagreements_are_one_short_line_each_led_by_the_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["thread", str(SAMPLE), "project/deploy/deploy_staging", "--input", "env=staging"]
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lines, full = data["disagreements"], data["disagreement_details"]
    assert lines and len(lines) == len(full)
    rules = ("hooks.", "extends.", "knowledge.", "prompt.", "permissions.", "palette", "events")
    for line, whole in zip(lines, full, strict=True):
        assert len(line) <= 120 and "\n" not in line, line
        assert line.startswith(rules) and whole.split(":")[0] == line.split(":")[0]
    assert any(len(w) > 120 for w in full)  # the sample's differences need the long form
    assert main(args) == 0
    shown = capsys.readouterr().out.split("disagree for this directive\n")[1]
    assert all(len(x) <= 124 for x in shown.splitlines() if x.startswith("  ≠ "))


def test_the_scenario_and_the_thread_command_build_the_same_thread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Rye options are scenario fields (ctxscope.yaml: rye_profile, continued, inputs):
    the report's thread (what the app and the API show) is the one `thread` prints."""
    import shutil

    import ctxscope

    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    (ws / "ctxscope.yaml").write_text(
        "directive: project/deploy/deploy_staging\ninputs: {env: prod}\n"
        "rye_profile: rye-docs\ncontinued: true\n"
    )
    args = ["--input", "env=prod", "--rye-profile", "rye-docs", "--continued"]
    assert main(
        ["thread", str(ws), "project/deploy/deploy_staging", *args, "--format", "json"]
    ) in (
        0,
        1,
    )
    printed = json.loads(capsys.readouterr().out)
    # without the flags, `thread` takes the same options from ctxscope.yaml
    assert main(["thread", str(ws), "project/deploy/deploy_staging", "--format", "json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["first_message"] == printed["first_message"]
    thread = ctxscope.Inspector(ws).thread()
    assert thread is not None
    shown = json.loads(json.dumps(thread.to_dict()))
    assert shown["profile"]["name"] == "rye-docs" == printed["profile"]["name"]
    assert "thread_continued" in shown["directive"]["hooks"]
    for key in ("first_message", "system", "tools", "events", "refused", "disagreements"):
        assert shown[key] == printed[key], key
    (ws / "ctxscope.yaml").write_text(
        "directive: project/deploy/deploy_staging\nrye_profile: nope\n"
    )
    ins = ctxscope.Inspector(ws)
    thread = ins.thread()
    assert thread is not None and thread.profile.name == "ryeos-0.1"
    assert any(  # named where it is written
        "unknown Rye profile 'nope'" in d.message and d.line == 2 and d.path
        for d in ins.inputs.diagnostics
    )


def test_explain_of_a_directive_gives_every_disagreement_in_full() -> None:
    (answer,) = [
        a
        for a in explain_item(SAMPLE, "project/deploy/deploy_staging", inputs={"env": "x"})
        if a.status == "in-chain"
    ]
    whole = answer.rule.split(" — where the docs differ: ")[1]
    assert "hooks.item_kind_key: docs say also ctx_environment" in whole
    assert "palette: docs say rye_execute" in whole
