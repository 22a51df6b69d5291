"""A tool file ctxscope cannot register is named, with its line and why, however its metadata
came: parsed in turn, in worker processes, or from the tool cache a previous run left. (That
started workers give what parsing in turn gives, diagnostics included, is
`test_rye_toolprefetch`'s.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.rye.conftest import Space
from tests.test_cli import ctxscope

PROBLEMS = {
    # name: (file text, line, what the message says)
    "deep": (
        '__tool_description__ = "deep"\nCONFIG_SCHEMA = ' + "[" * 300 + "]" * 300 + "\n",
        2,
        "too deeply nested for Python's parser",
    ),
    "dynamic": (
        'import os\n__tool_description__ = "dynamic"\nCONFIG_SCHEMA = dict(a=os.sep)\n',
        3,
        "CONFIG_SCHEMA is not a literal",
    ),
    "sets": (
        '__tool_description__ = "sets"\nCONFIG_SCHEMA = {"type": "object", "enum": {1, 2}}\n',
        2,
        "CONFIG_SCHEMA is not JSON",
    ),
}


def _space(root: Path, fillers: int) -> Space:
    space = Space(root)
    for name, (text, _, _) in PROBLEMS.items():
        space.write(f"tools/x/{name}.py", text)
    for i in range(fillers):  # past 256 unknown files a first look parses in worker processes
        space.write(f"tools/x/f{i:03}.py", f'CONFIG_SCHEMA = {{"type": "object", "n": {i}}}\n')
    space.directive("d", permissions="<execute><tool>x.*</tool></execute>")
    return space


def _assert_named(diagnostics: list[dict[str, object]], skipped: dict[str, str], ws: Path) -> None:
    for name, (_, line, says) in PROBLEMS.items():
        path = str(ws / ".ai" / "tools" / "x" / f"{name}.py")
        mine = [d for d in diagnostics if d["path"] == path]
        assert len(mine) == 1, (name, mine)
        assert mine[0]["severity"] == "error" and mine[0]["line"] == line
        message = str(mine[0]["message"])
        assert says in message and "the tool is not registered" in message
        assert skipped[f"x/{name}"] == f"{message} (line {line})"


@pytest.mark.parametrize(("fillers", "workers"), [(0, "1"), (300, "1"), (300, "")])
def test_each_unregistrable_tool_is_named_cold_and_warm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fillers: int, workers: str
) -> None:
    monkeypatch.setenv("CTXSCOPE_WORKERS", workers)  # "": one per CPU (forked: the CLI)
    cache = Path(os.environ["CTXSCOPE_CACHE_DIR"])
    space = _space(tmp_path / "ws", fillers)
    for run in ("cold", "warm"):
        assert (run == "warm") == any(cache.rglob("*")), run  # the first run writes the cache
        out = ctxscope("thread", space.root, "d", "--format", "json", "--allow", "refused")
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        skipped = {t["id"]: t["reason"] for t in data["tools"]["skipped"]}
        _assert_named(data["diagnostics"], skipped, space.root)
        text = ctxscope("thread", space.root, "d").stdout
        for name, (_, line, says) in PROBLEMS.items():
            assert f"{space.ai / 'tools/x' / name}.py:{line}" in text and says in text
    check = json.loads(ctxscope("check", space.root, "--format", "json").stdout)["findings"]
    for name, (_, line, says) in PROBLEMS.items():
        path = str(space.ai / "tools" / "x" / f"{name}.py")
        assert any(f["path"] == path and f["line"] == line and says in f["message"] for f in check)


@pytest.mark.parametrize(
    ("value", "severity", "says", "budget"),
    [
        ("-50", "warning", "tool_preload.max_tokens is -50, below 0: 0 is used", 0),
        (".inf", "error", "not a finite number; the default 2000 applies", 2000),
    ],
)
def test_a_budget_ctxscope_cannot_use_is_reported_at_its_line(
    tmp_path: Path, value: str, severity: str, says: str, budget: int
) -> None:
    space = _space(tmp_path / "ws", 0)
    path = space.resilience(
        f"# the palette\ntool_preload:\n  enabled: true\n  max_tokens: {value}\n"
    )
    out = ctxscope("thread", space.root, "d", "--format", "json", "--allow", "refused")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    mine = [d for d in data["diagnostics"] if d["path"] == str(path)]
    assert [(d["severity"], d["line"]) for d in mine] == [(severity, 4)]
    assert says in mine[0]["message"]
    assert data["tools"]["budget_tokens"] == budget
    text = ctxscope("thread", space.root, "d").stdout
    assert f"{path}:4: {severity}: {mine[0]['message']}" in text
