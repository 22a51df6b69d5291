"""Exact mode never runs a program or loads a runtime from the workspace: not through a
relative PATH entry (`node_modules/.bin`, an empty entry, a trailing `:`), not through an
absolute one that leads into it, not when `--node`, `$CTXSCOPE_NODE` or `--runtime` name one
there. Each run is a real `ctxscope render . --exact` started in the workspace, with stand-in
Node programs that leave a marker when run; none needs a real runtime."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.conftest import tree_digest

FAKE_VERSION = "v22.99.0"


def program(path: Path, marker: Path, helper_says: str) -> Path:
    """A stand-in `node`: it leaves `marker` whenever it runs, answers `--version` as Node
    22 and, started as exact mode's helper, says `helper_says` and exits."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f"echo \"$0 $*\" >> '{marker}'\n"
        f'if [ "$1" = --version ]; then echo {FAKE_VERSION}; exit 0; fi\n'
        f"echo '{json.dumps({'ready': False, 'error': helper_says})}'\n"
    )
    path.chmod(0o755)
    return path


def package(folder: Path, version: str) -> Path:
    """An `openclaw` package as exact mode recognises one (package.json and dist)."""
    (folder / "dist").mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": "openclaw", "version": version}))
    return folder


class Scene:
    """A hostile workspace and, outside it, a Node and an OpenClaw that may be used."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.marker = root / "workspace-program-ran"
        self.ws = ws = root / "ws"
        ws.mkdir()
        (ws / "AGENTS.md").write_text("# rules\n")
        # node_modules/.bin/{node,openclaw} and node_modules/openclaw, as npm lays them out
        program(ws / "node_modules/.bin/node", self.marker, "the workspace's node ran")
        bundled = package(ws / "node_modules/openclaw", "2026.9.6")
        program(bundled / "openclaw.mjs", self.marker, "the workspace's openclaw ran")
        (ws / "node_modules/.bin/openclaw").symlink_to("../openclaw/openclaw.mjs")
        # ... and the workspace itself shaped as an openclaw package, with its bin at the top
        package(ws, "2026.9.6")
        program(ws / "node", self.marker, "the workspace's node ran")
        program(ws / "openclaw", self.marker, "the workspace's openclaw ran")
        # outside: a link into the workspace, a Node that may run, and npm's global folder
        (root / "linked").mkdir()
        (root / "linked/node").symlink_to(ws / "node")
        self.safe_marker = root / "safe-node-ran"
        self.safe_bin = root / "safe-bin"
        program(self.safe_bin / "node", self.safe_marker, "the safe node ran the helper")
        self.prefix = root / "npm-prefix"
        self.global_package = package(self.prefix / "lib/node_modules/openclaw", "2099.1.0")
        self.home = root / "home"
        self.home.mkdir()

    def render(self, path: str, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
        environ = {
            k: v for k, v in os.environ.items() if not k.startswith(("CTXSCOPE_", "XDG_", "npm_"))
        }
        environ.update(PATH=path, HOME=str(self.home), npm_config_prefix=str(self.prefix), **env)
        before = tree_digest(self.ws)
        out = subprocess.run(
            [sys.executable, "-m", "ctxscope", "render", ".", "--exact=auto", *extra],
            capture_output=True,
            text=True,
            cwd=self.ws,
            env=environ,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert not self.marker.exists(), self.marker.read_text()
        assert "the workspace's" not in out.stderr
        assert tree_digest(self.ws) == before
        return out


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    return Scene(tmp_path)


ATTACKS = {
    "node_modules/.bin first": "node_modules/.bin:{safe}",
    "a leading empty entry": ":{safe}",
    "a dot entry": ".:{safe}",
    "a doubled colon": "{nowhere}::{safe}",
    "an absolute entry into the workspace": "{ws}/node_modules/.bin:{ws}:{safe}",
    "a link into the workspace": "{linked}:{safe}",
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_path_entries_into_the_workspace_are_passed_over(scene: Scene, attack: str) -> None:
    path = ATTACKS[attack].format(
        safe=scene.safe_bin, ws=scene.ws, linked=scene.root / "linked", nowhere=scene.root / "x"
    )
    out = scene.render(path)
    # The Node outside the workspace ran OpenClaw from npm's global folder, not the workspace's.
    assert f"loading OpenClaw 2099.1.0 at {scene.global_package}" in out.stderr
    assert "the safe node ran the helper" in out.stderr
    assert scene.safe_marker.exists()


@pytest.mark.parametrize("path", ["{nowhere}:", ":", "node_modules/.bin", "{ws}/node_modules/.bin"])
def test_a_node_only_in_the_workspace_is_never_run(scene: Scene, path: str) -> None:
    """A trailing `:` (or nothing but workspace folders) leaves no Node to use: exact mode
    says so and the model is shown."""
    out = scene.render(path.format(nowhere=scene.root / "x", ws=scene.ws))
    assert "exact mode needs Node ≥ 22: no `node` on PATH" in out.stderr
    assert "showing ctxscope's model instead" in out.stderr
    assert "session  agent:main:main" in out.stdout


def test_with_runtime_given_the_workspace_node_still_never_runs(scene: Scene) -> None:
    elsewhere = package(scene.root / "elsewhere/openclaw", "2099.2.0")
    for path in ("node_modules/.bin:{safe}", ":{safe}", "{safe}:"):
        scene.safe_marker.unlink(missing_ok=True)
        out = scene.render(path.format(safe=scene.safe_bin), "--runtime", str(elsewhere))
        assert f"loading OpenClaw 2099.2.0 at {elsewhere}" in out.stderr
        assert scene.safe_marker.exists()
    out = scene.render("node_modules/.bin", "--runtime", str(elsewhere))
    assert "no `node` on PATH" in out.stderr


@pytest.mark.parametrize(
    "flags",
    [
        ("--node", "node_modules/.bin/node"),
        ("--node", "./node"),
        ("--node", "{linked}/node"),
        ("--runtime", "node_modules/openclaw"),
        ("--runtime", "."),
        ("--runtime", "dist"),
        ("--runtime", "{ws}/node_modules"),
    ],
)
def test_a_node_or_runtime_named_inside_the_workspace_is_refused(
    scene: Scene, flags: tuple[str, str]
) -> None:
    flag, value = flags
    value = value.format(linked=scene.root / "linked", ws=scene.ws)
    out = scene.render(str(scene.safe_bin), flag, value)
    assert f"lies inside the workspace {scene.ws}" in out.stderr
    what = "program" if flag == "--node" else "runtime"
    assert f"ctxscope never {'runs a' if what == 'program' else 'loads a'} {what}" in out.stderr
    assert not scene.safe_marker.exists()  # refused before anything ran


def test_ctxscope_node_inside_the_workspace_is_refused(scene: Scene) -> None:
    out = scene.render(str(scene.safe_bin), CTXSCOPE_NODE="node_modules/.bin/node")
    assert f"CTXSCOPE_NODE {scene.ws}/node_modules/.bin/node lies inside the workspace" in (
        out.stderr
    )


def test_an_agent_workspace_is_as_untrusted_as_the_inspected_one(scene: Scene) -> None:
    other = scene.root / "agent-b"
    program(other / "bin/node", scene.marker, "the workspace's node ran")
    config = {
        "agents": {
            "ownership": "explicit",
            "list": [{"id": "main"}, {"id": "b", "workspace": str(other)}],
        }
    }
    (scene.ws / "openclaw.json").write_text(json.dumps(config))
    out = scene.render(f"{other}/bin:{scene.safe_bin}")
    assert scene.safe_marker.exists()
    assert "the safe node ran the helper" in out.stderr


def test_a_relative_node_and_runtime_are_taken_from_the_current_folder(tmp_path: Path) -> None:
    """`--node nodebin/node` is made absolute when the command line is read: the helper,
    which starts in a folder of its own, runs that same program."""
    marker = tmp_path / "ran"
    program(tmp_path / "nodebin/node", marker, "the helper ran under nodebin/node")
    package(tmp_path / "rt/openclaw", "2099.1.0")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("a")
    relative = ["--node", "nodebin/node", "--runtime", "rt"]
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "render", "ws", "--exact=auto", *relative],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert f"loading OpenClaw 2099.1.0 at {tmp_path / 'rt/openclaw'}" in out.stderr
    assert "exact mode: the helper ran under nodebin/node" in out.stderr
    runs = marker.read_text().splitlines()
    assert [r.split()[0] for r in runs] == [str(tmp_path / "nodebin/node")] * 2
