"""A lone surrogate (`"\\udc80"` escaped in a JSON config, in a Python tool's string literal)
is text no encoding can write: every command, in every format, writes it as its escape
`\\udc80` and its output is UTF-8 (and JSON output strict JSON that reads back the same id),
whether standard output is strict UTF-8 or the C locale's surrogate-escaping one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLE

ID = "a\udc80"
STREAMS = {
    "strict UTF-8": {"PYTHONIOENCODING": "utf-8"},
    "C locale": {"LC_ALL": "C", "LANG": "C"},
    "ASCII": {"PYTHONIOENCODING": "ascii"},
}


def run(cwd: Path, streams: dict[str, str], *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    env.update(streams)
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", *args],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    err = out.stderr.decode("utf-8", "replace")
    assert out.returncode in (0, 1), err
    assert "internal error" not in err
    return out.stdout.decode("utf-8")  # strict: raw surrogate bytes would fail here


@pytest.fixture
def ws(make_workspace) -> Path:  # type: ignore[no-untyped-def]
    # Written as JSON text: the escape is what the file holds.
    config = '{"agents": {"list": [{"id": "a\\udc80", "default": true}, {"id": "b"}]}}'
    return make_workspace({"AGENTS.md": "rules\n", "SOUL.md": "soul\n"}, config=config)


@pytest.mark.parametrize("streams", STREAMS.values(), ids=list(STREAMS))
@pytest.mark.parametrize("command", ["render", "spawn", "check", "explain"])
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_an_agent_id_with_a_lone_surrogate_is_written_escaped(
    ws: Path, command: str, fmt: str, streams: dict[str, str]
) -> None:
    args = [command, ".", *(["SOUL.md"] if command == "explain" else []), "--format", fmt]
    text = run(ws, streams, *args)
    if fmt == "json":
        data = json.loads(text)
        assert ID in json.dumps(data, ensure_ascii=False)  # the id read back as it was
    else:
        assert "a\\udc80" in text


def test_a_tool_description_with_a_lone_surrogate(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    helm = ws / ".ai/tools/project/deploy/helm.py"
    helm.write_text(helm.read_text().replace('description__ = "', 'description__ = "\\udc80 ', 1))
    for streams in STREAMS.values():
        text = run(ws, streams, "thread", ".", "project/deploy/deploy_staging", "--format", "json")
        tools = json.loads(text)["tools"]
        descriptions = [t["description"] for t in tools["registered"] + tools["skipped"]]
        assert any(d.startswith("\udc80 Install or upgrade") for d in descriptions)


@pytest.mark.terminal
def test_tui_exports_write_the_escape(ws: Path, tmp_path: Path) -> None:
    from tests.tui.test_terminal import Terminal

    out = tmp_path / "exports"
    term = Terminal("tui", str(ws), "--no-watch", "--export-dir", str(out))
    try:
        assert term.read_until(b"MAIN")
        term.press("x")
        assert term.read_until(b"exported")
        term.press("q")
        assert term.wait(20) == 0
    finally:
        term.close()
    files = {p.suffix: p.read_bytes().decode("utf-8") for p in out.iterdir()}
    assert sorted(files) == [".html", ".json", ".md", ".svg"]
    assert ID in json.dumps(json.loads(files[".json"]), ensure_ascii=False)
    assert "a\\udc80" in files[".md"] and "a\\udc80" in files[".html"]
