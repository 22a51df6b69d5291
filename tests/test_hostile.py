"""Hostile workspaces: whatever a workspace holds, ctxscope ends in bounded time with exit 0 or
2, a message naming the file, the rest still rendered, no secret echoed, no control sequence
reaching the terminal, and nothing written into the workspace."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.cli import main
from ctxscope.core.secrets import MASK, is_secret_key, mask_secrets
from ctxscope.scripts.entries import ScriptEntry
from ctxscope.scripts.parse import parse_output
from tests.conftest import SAMPLE
from tests.test_cli import ctxscope
from tests.tui.conftest import tree_digest

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
    for i in range(8)
)


def strict_json(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"non-strict JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


# --- secrets -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key", ["authTokens", "refreshTokens", "bearer", "Authorization", "pass", "db_pwd", "apikey"]
)
def test_secret_spellings_are_masked(key: str) -> None:
    assert is_secret_key(key)
    assert mask_secrets({key: "s3cret"}) == {key: MASK}


@pytest.mark.parametrize(
    "key", ["maxTokens", "contextTokens", "outputTokenLimit", "passthrough", "compass", "author"]
)
def test_counts_and_plain_words_are_not_secrets(key: str) -> None:
    assert not is_secret_key(key)


def test_secrets_inside_wrongly_typed_values_are_never_echoed(make_workspace) -> None:  # type: ignore[no-untyped-def]
    secret = "sk-live-DO-NOT-LEAK"
    ws = make_workspace(
        {"AGENTS.md": "x"},
        config={
            "agents": {
                "list": [{"id": {"token": secret}}, {"id": "main"}],
                "defaults": {
                    "subagents": {
                        "contextScripts": {
                            "run": [{"id": "s", "uri": "x.sh", "format": {"token": secret}}]
                        }
                    }
                },
            }
        },
    )
    for args in (("render", ws), ("spawn", ws), ("render", ws, "--format", "json")):
        out = ctxscope(*args)
        assert out.returncode == 0, out.stderr
        assert secret not in out.stdout + out.stderr
    text = ctxscope("render", ws).stdout
    assert "an object is not a valid agent id" in text
    assert '"format" must be "arguments" or "json", not an object' in ctxscope("spawn", ws).stdout


# --- terminal escapes ----------------------------------------------------------------------


def test_escape_sequences_never_reach_the_terminal(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"SOUL.md": "calm\x1b]0;pwned\x07\x1b[2J\x9b31m\rover\x7f"})
    for fmt in ("text", "markdown"):
        out = ctxscope("render", ws, "--format", fmt)
        assert out.returncode == 0
        assert not any(ch in out.stdout for ch in "\x1b\x07\x9b\r\x7f")
        assert "calm␛]0;pwned␇␛[2J\\x9b31m␍over␡" in out.stdout
    data = ctxscope("render", ws, "--format", "json")
    assert not any(ch in data.stdout for ch in "\x1b\x9b\x7f")
    body = strict_json(data.stdout)
    assert "calm\x1b]0;pwned" in body["system_prompt"]  # type: ignore[index]


# --- nothing written into the workspace ------------------------------------------------------


def test_thread_events_refuse_a_path_inside_the_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    before = tree_digest(ws)
    for target in (ws / "events.jsonl", ws / "memory" / ".." / "events.jsonl"):
        out = ctxscope("thread", ws, "project/deploy/deploy_staging", "--events", target)
        assert out.returncode == 2 and "inside the workspace" in out.stderr
    (tmp_path / "link").symlink_to(ws)
    out = ctxscope("thread", ws, "project/deploy/deploy_staging", "--events", tmp_path / "link/e")
    assert out.returncode == 2
    assert tree_digest(ws) == before
    outside = tmp_path / "events.jsonl"
    ok = ctxscope(
        "thread", ws, "project/deploy/deploy_staging", "--input", "env=s", "--events", outside
    )
    assert ok.returncode == 0 and outside.read_text().count("\n") >= 1


# --- no hang, bounded memory ---------------------------------------------------------------


def test_yaml_alias_bomb_in_the_config_is_refused(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "x"})
    (ws / "openclaw.yaml").write_text(BOMB)
    out = ctxscope("render", ws)
    assert out.returncode == 2
    assert f"{ws / 'openclaw.yaml'}:1" in out.stderr and "alias bomb" in out.stderr


def test_yaml_bombs_elsewhere_are_reported_and_the_rest_renders(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {
            "AGENTS.md": "agents body",
            "ctxscope.yaml": BOMB,
            "skills/boom/SKILL.md": "---\n" + BOMB + "---\nbody\n",
            ".ai/config/agent/hooks.yaml": "hooks: &h\n  - *h\n",
        }
    )
    report = Inspector(ws).report(run_scripts=False)
    messages = [str(d) for d in report.all_diagnostics]
    assert any("ctxscope.yaml" in m and "alias bomb" in m for m in messages)
    assert any("SKILL.md" in m and "alias bomb" in m for m in messages)
    assert "agents body" in report.requester.system_prompt
    out = ctxscope("check", ws)
    assert out.returncode == 1 and "hooks.yaml" in out.stdout and "recursive" in out.stdout


def test_an_alias_needs_its_anchor_and_one_inside_it_is_refused() -> None:
    """Aliases are checked where the text has an anchor and an alias; one without an anchor
    is an error of its own, with its line."""
    import yaml

    from ctxscope.core.yamlload import compose_yaml, load_yaml

    for load in (load_yaml, compose_yaml):
        with pytest.raises(yaml.YAMLError) as undefined:
            load("a: 1\nb: *missing\n")
        assert undefined.value.problem_mark.line == 1  # type: ignore[attr-defined]
        with pytest.raises(yaml.YAMLError, match="recursive"):
            load("a: &x\n  - *x\n")
    assert load_yaml("a: '*not an alias &nor an anchor'\n") == {"a": "*not an alias &nor an anchor"}


def test_a_link_to_the_root_folder_is_not_walked(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "x", ".ai/directives/d.md": DIRECTIVE})
    (ws / ".ai" / "tools").mkdir()
    (ws / ".ai" / "tools" / "x").symlink_to("/")
    out = ctxscope("thread", ws, "d", "--format", "json", "--allow", "refused")
    assert out.returncode == 0, out.stderr
    tools = strict_json(out.stdout)["tools"]  # type: ignore[index]
    assert not any(t["id"].startswith("x/") for t in tools["registered"] + tools["skipped"])


DIRECTIVE = """```xml
<directive name="d" version="1.0.0">
  <metadata><description>d</description></metadata>
</directive>
```
Do it.
"""


def test_a_config_over_the_read_cap_says_so(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "x"})
    (ws / "openclaw.json").write_text('{"a": "' + "x" * (2 * 1024 * 1024 + 10) + '"}')
    out = ctxscope("render", ws)
    assert out.returncode == 2
    assert "larger than the 2 MiB read cap" in out.stderr and "openclaw.json" in out.stderr


# --- no traceback --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [("timeoutMs", "NaN"), ("timeoutMs", "Infinity"), ("timeoutMs", "1e308"), ("priority", "NaN")],
)
def test_non_finite_script_numbers_are_config_errors(
    make_workspace, field: str, value: str
) -> None:  # type: ignore[no-untyped-def]
    entry = "{id: 's', uri: 'x.sh', " + f"{field}: {value}" + "}"
    config = "{agents: {defaults: {subagents: {contextScripts: {run: [" + entry + "]}}}}}"
    ws = make_workspace({"AGENTS.md": "x"}, config=config)
    out = ctxscope("spawn", ws, "--format", "json", "--trust")
    assert out.returncode == 0, out.stderr
    strict_json(out.stdout)
    text = ctxscope("spawn", ws).stdout
    assert f'"{field}" must be' in text and "openclaw.json" in text


def test_infinite_tool_budget_and_non_json_schemas(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {
            ".ai/directives/d.md": DIRECTIVE,
            ".ai/config/agent/resilience.yaml": "tool_preload:\n  max_tokens: .inf\n",
            ".ai/tools/sets.py": "CONFIG_SCHEMA = {'type': 'object', 'x': {1, 2}}\n",
            ".ai/tools/dots.py": "CONFIG_SCHEMA = {'type': ...}\n",
        }
    )
    out = ctxscope("thread", ws, "d", "--format", "json", "--allow", "refused")
    assert out.returncode == 0, out.stderr
    data = strict_json(out.stdout)
    messages = " ".join(d["message"] for d in data["diagnostics"])  # type: ignore[index]
    assert "max_tokens is not a finite number" in messages
    check = ctxscope("check", ws)
    assert "CONFIG_SCHEMA is not JSON" in check.stdout and "sets.py" in check.stdout


def test_deeply_nested_script_json_is_plain_text() -> None:
    entry = ScriptEntry(id="deep", uri="x")
    deep = "[" * 100_000 + "]" * 100_000
    parsed = parse_output(entry, deep)
    assert (parsed.content, parsed.error, parsed.is_json) == (deep, None, False)


def test_the_last_resort_handler_prints_one_line(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import ctxscope.cli.render as render

    def boom(args: object) -> int:
        raise RuntimeError("unexpected")

    monkeypatch.setattr(render, "run", boom)
    assert main(["render", "somewhere"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "somewhere" in err and "ctxscope render" in err and "report it" in err


# --- clear messages ------------------------------------------------------------------------


def test_spawn_shows_config_diagnostics_and_check_rows_carry_locations(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "x"}, config='{agents: {list: [{id: "main"}]}, bogus: 1}')
    (ws / "openclaw.json").write_text('{\n  agents: {\n    list: [{id: "Bad Id"}]\n  }\n}\n')
    spawn = ctxscope("spawn", ws)
    assert "not a valid agent id" in spawn.stdout and "openclaw.json:3" in spawn.stdout
    check = ctxscope("check", ws, cwd=ws)
    assert "openclaw.json:3" in check.stdout


def test_utf16_files_with_a_bom_are_decoded(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"SOUL.md": "# Soul — héllo\n".encode("utf-16")})
    session = Inspector(ws).session()
    assert "# Soul — héllo" in session.system_prompt
    assert any(d.code == "file-encoding" and "UTF-16" in d.message for d in session.diagnostics)


# --- trust covers the script files ---------------------------------------------------------


def test_changing_a_trusted_script_asks_again(make_workspace) -> None:  # type: ignore[no-untyped-def]
    import os

    from ctxscope.infra.snapshot import Snapshot
    from ctxscope.inputs import load_inputs
    from ctxscope.scripts import TrustStore

    script = "#!/bin/sh\necho one\n"
    ws = make_workspace(
        {"AGENTS.md": "x", "s.sh": script},
        config={
            "agents": {
                "defaults": {"subagents": {"contextScripts": {"run": [{"id": "s", "uri": "s.sh"}]}}}
            }
        },
    )
    (ws / "s.sh").chmod(0o755)
    snap, store = Snapshot(), TrustStore()
    first = load_inputs(ws, snap, trust_store=store)
    assert first.script_files == ((ws / "s.sh"),) and not first.trusted
    store.trust(ws, first.trust_key)
    assert load_inputs(ws, snap, trust_store=store).trusted
    ran = json.loads(ctxscope("spawn", ws, "--format", "json").stdout)["scripts"][0]
    assert (ran["status"], ran["output"].strip()) == ("ok", "one")
    # Same size, mtime put back: only the content (and the ctime) differ.
    st = (ws / "s.sh").stat()
    (ws / "s.sh").write_text(script.replace("one", "two"))
    os.utime(ws / "s.sh", ns=(st.st_atime_ns, st.st_mtime_ns))
    again = load_inputs(ws, snap, trust_store=store)
    assert not again.trusted and again.trust_key != first.trust_key
    out = ctxscope("spawn", ws, "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["scripts"][0]["status"] == "not-run"


# --- profile and scenario paths ------------------------------------------------------------


def test_a_profile_path_in_ctxscope_yaml_is_taken_from_the_workspace(
    make_workspace, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    bundled = (SAMPLE.parent / "src/ctxscope/runtimes/profiles/openclaw-2026.2.yaml").read_text()
    ws = make_workspace(
        {
            "AGENTS.md": "x",
            "profiles/mine.yaml": bundled.replace("name: openclaw-2026.2", "name: mine", 1),
            "ctxscope.yaml": "profile: profiles/mine.yaml\n",
        }
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = ctxscope("render", ws, "--format", "json", cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["profile"] == "mine"


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "folder"])
def test_a_profile_that_is_not_a_regular_file_is_refused(make_workspace, target: str) -> None:  # type: ignore[no-untyped-def]
    import os

    ws = make_workspace({"AGENTS.md": "x", "folder/x": ""})
    if target == "fifo":
        os.mkfifo(ws / "fifo")
    (ws / "ctxscope.yaml").write_text(f"profile: {target}\n")
    before = tree_digest(ws)
    out = ctxscope("render", ws)
    assert out.returncode == 2
    assert "not a regular file" in out.stderr and target in out.stderr
    assert tree_digest(ws) == before


def test_a_fifo_scenario_file_is_named_and_the_rest_renders(make_workspace) -> None:  # type: ignore[no-untyped-def]
    import os

    ws = make_workspace({"AGENTS.md": "hello agents"})
    os.mkfifo(ws / "ctxscope.yaml")
    out = ctxscope("render", ws)
    assert out.returncode == 0
    assert "hello agents" in out.stdout
    assert "cannot read the scenario: not a regular file" in out.stdout + out.stderr


def test_non_numeric_spawn_limits_and_negative_budgets_are_named(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {"AGENTS.md": "x"},
        config="{ agents: { defaults: {\n bootstrapMaxChars: -5,\n subagents: {\n"
        ' maxSpawnDepth: "two",\n maxChildrenPerAgent: {a: 1} } } } }',
    )
    out = ctxscope("spawn", ws)
    assert out.returncode == 0, out.stderr
    text = out.stdout + out.stderr
    assert (
        "openclaw.json:4: warning: agents.defaults.subagents.maxSpawnDepth must be a "
        'non-negative integer, not "two"' in text
    )
    assert "maxChildrenPerAgent must be a non-negative integer, not an object" in text
    assert "openclaw.json:2: warning: agents.defaults.bootstrapMaxChars must be" in text
    assert "verdict: ALLOWED" in text  # the defaults apply and the rest is computed


def as_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user that file permissions apply to (root reads a mode-000 file)."""
    command = [sys.executable, "-m", "ctxscope", *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be tested")
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env = {**os.environ, "HOME": "/nonexistent", "XDG_CACHE_HOME": "/nonexistent"}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder any user may enter (pytest's tmp_path is private to its owner)."""
    folder = Path(tempfile.mkdtemp(prefix="ctxscope-perm-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("version", ["2026.2", "2026.9"])
def test_an_unreadable_file_is_named_with_its_reason(open_folder: Path, version: str) -> None:
    ws = open_folder / "ws"
    (ws / "skills" / "shut").mkdir(parents=True)
    (ws / "skills" / "shut" / "SKILL.md").write_text("---\nname: shut\n---\n")
    (ws / "SOUL.md").write_text("private soul")
    (ws / "AGENTS.md").write_text("readable agents")
    for path in [ws, ws / "skills", ws / "skills" / "shut"]:
        path.chmod(0o755)
    (ws / "AGENTS.md").chmod(0o644)
    (ws / "SOUL.md").chmod(0o000)
    (ws / "skills" / "shut" / "SKILL.md").chmod(0o000)
    before = tree_digest(ws)
    out = as_unprivileged("render", str(ws), "--format", "json", "--profile", f"openclaw-{version}")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    soul = next(f for f in report["files"] if f["name"] == "SOUL.md")
    if version == "2026.2":  # a read error counts as a missing file
        assert soul["status"] == "missing"
        assert soul["reason"].startswith("cannot read: Permission denied: read as missing")
    else:  # the runtime injects its own notice, with Node's error text
        unreadable = f"[UNREADABLE: EACCES: permission denied, open '{ws / 'SOUL.md'}']"
        assert (soul["status"], soul["injected_chars"]) == ("unreadable", len(unreadable))
        assert unreadable in report["system_prompt"]
    messages = [(d["path"], d["message"]) for d in report["diagnostics"]]
    assert (
        str(ws / "skills/shut/SKILL.md"),
        "cannot read: Permission denied: the skill is not loaded",
    ) in messages
    assert "readable agents" in out.stdout
    assert tree_digest(ws) == before


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_skill_file_that_is_not_a_file_is_named(make_workspace, kind: str) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {"AGENTS.md": "x", "skills/good/SKILL.md": "---\nname: good\ndescription: ok\n---\n"}
    )
    target = ws / "skills" / "odd" / "SKILL.md"
    target.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    out = ctxscope("render", ws, "--tools", "read")  # 2026.9 lists skills with `read`
    assert out.returncode == 0, out.stderr
    assert (
        f"{target}: warning: not a regular file: the skill is not loaded" in out.stdout + out.stderr
    )
    assert "good" in out.stdout


def test_a_tool_too_deeply_nested_to_parse_says_so(make_workspace) -> None:  # type: ignore[no-untyped-def]
    deep = "CONFIG_SCHEMA = " + "(" * 300 + "1" + ")" * 300 + "\n"
    ws = make_workspace({".ai/tools/deep.py": deep, ".ai/tools/long.py": "X = 1" + "+1" * 200_000})
    out = ctxscope("check", ws)
    text = out.stdout + out.stderr
    assert out.returncode in (0, 1), text
    assert text.count("too deeply nested for Python's parser") == 2, text


@pytest.mark.parametrize("version", ["2026.2", "2026.9"])
def test_linked_bootstrap_files_follow_the_version(make_workspace, version: str) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "agents", "id.txt": "identity text"}, name="ws")
    outside = ws.parent / "secret-soul.md"
    outside.write_text("soul from outside the workspace")
    (ws / "SOUL.md").symlink_to(outside)
    (ws / "IDENTITY.md").hardlink_to(ws / "id.txt")
    before = tree_digest(ws)
    out = ctxscope("render", ws, "--format", "json", "--profile", f"openclaw-{version}")
    assert out.returncode == 0, out.stderr
    files = {f["name"]: f for f in json.loads(out.stdout)["files"]}
    if version == "2026.2":  # links are followed
        assert files["SOUL.md"]["status"] == "injected"
        assert "soul from outside the workspace" in out.stdout
        assert files["IDENTITY.md"]["status"] == "injected"
    else:  # the guarded reader refuses both, and says so in the prompt
        assert "soul from outside" not in out.stdout
        assert files["SOUL.md"]["status"] == "unreadable"
        assert "symlink path component not allowed" in files["SOUL.md"]["reason"]
        assert "[UNREADABLE: path must not be hardlinked]" in out.stdout
    assert tree_digest(ws) == before
