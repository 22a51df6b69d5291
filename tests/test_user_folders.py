"""The user's config and cache folders come from the environment, and a relative value there
(`XDG_CACHE_HOME=.cache`, an empty one, `CTXSCOPE_CACHE_DIR=cache`) is ignored as the XDG
Base Directory specification says: run from inside a workspace it would name a folder of the
workspace. Every command is run for real, from inside the workspace, and the workspace is
compared file by file before and after."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope import __version__
from ctxscope.infra.paths import openclaw_home, openclaw_state_dir
from ctxscope.infra.snapshot import Snapshot
from ctxscope.inputs import load_inputs
from ctxscope.runs.store import state_dir, store_candidates
from ctxscope.runtimes.openclaw.places import configured_cwd
from tests.conftest import SAMPLE
from tests.tui.conftest import tree_digest
from tests.tui.test_terminal import Terminal

RELATIVE = {
    "XDG relative": {"XDG_CACHE_HOME": ".cache", "XDG_CONFIG_HOME": ".config"},
    "XDG dot": {"XDG_CACHE_HOME": ".", "XDG_CONFIG_HOME": "."},
    "ctxscope's own": {"CTXSCOPE_CACHE_DIR": "cache", "CTXSCOPE_CONFIG_DIR": "config"},
    "both": {
        "CTXSCOPE_CACHE_DIR": "./c",
        "CTXSCOPE_CONFIG_DIR": "./k",
        "XDG_CACHE_HOME": "x",
        "XDG_CONFIG_HOME": "y",
    },
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    dest = tmp_path / "ws"
    shutil.copytree(SAMPLE, dest, symlinks=True)
    return dest


def environment(home: Path, values: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTXSCOPE_", "XDG_"))}
    env["HOME"] = str(home)
    env.update(values)
    return env


def tool_caches(home: Path) -> list[Path]:
    return sorted((home / ".cache" / "ctxscope").glob(f"rye-tools-{__version__}-*.marshal"))


@pytest.mark.parametrize("values", RELATIVE.values(), ids=list(RELATIVE))
def test_relative_folders_never_put_the_cache_in_the_workspace(
    ws: Path, tmp_path: Path, values: dict[str, str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = environment(home, values)
    before = tree_digest(ws)
    for args in (
        ["thread", ".", "project/deploy/deploy_staging"],
        ["render", "."],
        ["spawn", "."],
        ["check", "."],
        ["explain", ".", "SOUL.md"],
    ):
        out = subprocess.run(
            [sys.executable, "-m", "ctxscope", *args],
            capture_output=True,
            text=True,
            cwd=ws,
            env=env,
            timeout=120,
        )
        assert out.returncode in (0, 1), out.stderr
        assert tree_digest(ws) == before, args
    # The tool cache was written: in the default folder under the home folder.
    assert len(tool_caches(home)) == 1


def test_a_relative_home_is_not_a_folder_of_the_workspace(ws: Path, tmp_path: Path) -> None:
    """`HOME=.` (and no XDG folders) falls back to the home the password database names."""
    env = environment(tmp_path, {"HOME": ".", "XDG_CACHE_HOME": "", "XDG_CONFIG_HOME": ""})
    env["CTXSCOPE_CACHE_DIR"] = str(tmp_path / "cache")  # keep the real home's cache out
    before = tree_digest(ws)
    probe = (
        "from ctxscope.infra import paths; "
        "print(paths.config_dir()); print(paths.exports_dir()); print(paths.home())"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ws, env=env
    )
    assert out.returncode == 0, out.stderr
    for line in out.stdout.splitlines():
        assert os.path.isabs(line) and not line.startswith(str(ws)), line
    assert tree_digest(ws) == before


@pytest.mark.terminal
def test_tui_exports_from_inside_the_workspace_leave_it_alone(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TUI run in the workspace exports to the user's config folder; with a relative
    `XDG_CONFIG_HOME` that is the default one under the home folder, not the workspace's."""
    home = tmp_path / "home"
    home.mkdir()
    for name in ("CTXSCOPE_CONFIG_DIR", "CTXSCOPE_CACHE_DIR"):
        monkeypatch.delenv(name)  # the terminal's program inherits this environment
    env = environment(home, RELATIVE["XDG relative"])
    before = tree_digest(ws)
    monkeypatch.chdir(ws)  # ... and starts in the workspace
    term = Terminal("tui", ".", "--no-watch", env=env)
    try:
        assert term.read_until(b"MAIN")
        assert term.read_until(b"Lost in the subagent")
        term.press("x")
        assert term.read_until(b"exported")
        term.press("q")
        assert term.wait(20) == 0
    finally:
        term.close()
    exports = home / ".config" / "ctxscope" / "exports"
    assert sorted(p.suffix for p in exports.iterdir()) == [".html", ".json", ".md", ".svg"]
    assert tree_digest(ws) == before


def test_one_rule_finds_openclaw_s_state_folder_for_its_stores_and_its_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`$OPENCLAW_STATE_DIR` with a `~` names the same folder where the runs are read and
    where the prompt's skill and sandbox paths point; unset, both are `~/.openclaw`."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OPENCLAW_HOME", raising=False)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", "~/state")
    home = {"HOME": str(tmp_path)}
    assert state_dir() == openclaw_state_dir({**home, "OPENCLAW_STATE_DIR": "~/state"})
    assert state_dir() == tmp_path / "state"
    monkeypatch.delenv("OPENCLAW_STATE_DIR")
    assert state_dir() == openclaw_state_dir(home) == tmp_path / ".openclaw"


def test_openclaw_s_home_is_openclaw_home_when_set(tmp_path: Path) -> None:
    """OpenClaw's `~` (in its state folder and the paths its config names) is
    `$OPENCLAW_HOME` when set, its own `~` the system's home; an empty, "undefined" or
    "null" value counts as unset; a legacy `~/.clawdbot` is the state folder when only it
    exists."""
    system = {"HOME": str(tmp_path / "me")}
    assert openclaw_home(system) == tmp_path / "me"
    assert openclaw_home({**system, "OPENCLAW_HOME": str(tmp_path / "oc")}) == tmp_path / "oc"
    assert openclaw_home({**system, "OPENCLAW_HOME": "~/oc"}) == tmp_path / "me" / "oc"
    assert openclaw_home({**system, "OPENCLAW_HOME": " undefined "}) == tmp_path / "me"
    assert openclaw_home({"USERPROFILE": str(tmp_path / "w"), "HOME": ""}) == tmp_path / "w"
    env = {**system, "OPENCLAW_HOME": str(tmp_path / "oc")}
    assert openclaw_state_dir(env) == tmp_path / "oc" / ".openclaw"
    assert openclaw_state_dir({**env, "OPENCLAW_STATE_DIR": "~/s"}) == tmp_path / "oc" / "s"
    (tmp_path / "oc" / ".clawdbot").mkdir(parents=True)
    assert openclaw_state_dir(env) == tmp_path / "oc" / ".clawdbot"
    (tmp_path / "oc" / ".openclaw").mkdir()
    assert openclaw_state_dir(env) == tmp_path / "oc" / ".openclaw"


def test_the_session_store_the_config_names_is_under_openclaw_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`session.store: ~/stores/{agentId}.sqlite` is read where OpenClaw writes it: under
    `$OPENCLAW_HOME` when set."""
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.setenv("OPENCLAW_HOME", str(tmp_path / "oc"))
    config = {"session": {"store": "~/stores/{agentId}.sqlite"}}
    found = store_candidates(tmp_path / "state", config, agents=["main"])
    assert found == [tmp_path / "oc" / "stores" / "main.sqlite"]


def test_an_agent_s_workspace_and_cwd_under_openclaw_home(tmp_path: Path) -> None:
    """`~` in an agent's `workspace` and `cwd` is OpenClaw's home, from the environment the
    inputs were read with."""
    ws = tmp_path / "ws"
    ws.mkdir()
    config = {
        "agents": {
            "defaults": {"cwd": "~/runs"},
            "list": [{"id": "main", "default": True}, {"id": "ops", "workspace": "~/ops"}],
        }
    }
    (ws / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    env = {"HOME": str(tmp_path / "me"), "OPENCLAW_HOME": str(tmp_path / "oc")}
    inputs = load_inputs(ws, Snapshot(), environ=env)
    assert inputs.workspace_for("ops") == tmp_path / "oc" / "ops"
    assert configured_cwd(inputs.config, "main") == str(tmp_path / "oc" / "runs")
    plain = load_inputs(ws, Snapshot(), environ={"HOME": str(tmp_path / "me")})
    assert plain.workspace_for("ops") == tmp_path / "me" / "ops"
