"""`trust.json` is ctxscope's own file, but it is read back as untrusted input: whatever is
found there (a FIFO, a folder, a huge or deeply nested file, the wrong shape, a bad entry) is
dropped with a warning naming it, never a crash or a hang, and the scripts do not run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope import Inspector
from ctxscope.scripts import TrustStore

from .helpers import write_script

GUARD_S = 60
"""A read that blocks (a FIFO opened for reading) fails the test instead of holding it."""


def scripted_workspace(root: Path) -> Path:
    ws = root / "ws"
    write_script(ws, "s.sh", "echo from the script")
    (ws / "openclaw.json").write_text(
        json.dumps(
            {
                "agents": {
                    "defaults": {
                        "subagents": {"contextScripts": {"run": [{"id": "s", "uri": "s.sh"}]}}
                    }
                }
            }
        )
    )
    return ws


def spawn(ws: Path) -> tuple[str, str]:
    """(status of the script, the whole text output) of `ctxscope spawn`."""
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "spawn", str(ws), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)["scripts"][0]["status"]
    text = subprocess.run(
        [sys.executable, "-m", "ctxscope", "spawn", str(ws)],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert text.returncode == 0 and "Traceback" not in text.stderr, text.stderr
    return status, text.stdout + text.stderr


def written(ws: Path, extra: str = "") -> str:
    """trust.json as ctxscope writes it, trusting `ws` (`extra` goes inside the object)."""
    key = Inspector(ws).inputs.trust_key
    return json.dumps({"version": 1, "workspaces": {str(ws.resolve()): key}})[:-1] + extra + "}"


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("nested", "nested too deeply"),
        ("fifo", "not a regular file"),
        ("folder", "not a regular file"),
        ("oversized", "larger than the 2 MiB read cap"),
        ("list", 'not an object with "workspaces"'),
        ("version", "version 7, not 1"),
    ],
)
def test_a_trust_file_that_is_not_what_ctxscope_writes_is_dropped(
    tmp_path: Path, kind: str, why: str
) -> None:
    ws = scripted_workspace(tmp_path)
    path = TrustStore().path
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "nested":
        path.write_text('{"version": 1, "workspaces": ' + "[" * 200_000 + "]" * 200_000 + "}")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "oversized":  # trusts the workspace, but is larger than the cap
        path.write_text(written(ws, ', "pad": "' + "x" * (2 * 1024 * 1024) + '"'))
    elif kind == "list":
        path.write_text(json.dumps([written(ws)]))
    else:
        path.write_text(written(ws).replace('"version": 1', '"version": 7'))
    status, text = spawn(ws)
    assert status == "not-run"
    assert f"{path}: warning: trust file: " in text and f"{why}: ignored" in text
    if kind != "folder":  # trusting again writes a good file over it
        TrustStore().trust(ws, Inspector(ws).inputs.trust_key)
        status, text = spawn(ws)
        assert status == "ok" and "trust file" not in text


def test_bad_entries_are_dropped_and_the_good_ones_kept(tmp_path: Path) -> None:
    ws = scripted_workspace(tmp_path)
    path = TrustStore().path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(written(ws)[:-2] + ', "relative/folder": "' + "a" * 64 + '", "/x": [1]}}')
    status, text = spawn(ws)
    assert status == "ok"
    assert f"{path}: warning: trust file: 2 entries not an absolute folder with a trust key" in text
