"""`$include` in a hostile config: the work of includes is bounded (files loaded, bytes, values
made, depth), an oversized included file is refused before it is parsed, and a link loop is
named. Each refusal names the file and line of the `$include` and which bound was hit; the rest
of the config still renders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxscope.runtimes.openclaw.configread import MAX_INCLUDE_DEPTH, MAX_INCLUDE_LOADS

GUARD_S = 60
"""The whole command must end well within this (before the bounds, the fan-out ran for
minutes): a hang fails the test instead of holding the suite."""

BIG = 2_200_000


def ctxscope_json(ws: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "render", str(ws), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def include_problem(data: dict[str, Any]) -> dict[str, Any]:
    problems = [d for d in data["diagnostics"] if d["code"] == "config-include"]
    assert len(problems) == 1, problems
    return problems[0]


def workspace(root: Path, files: dict[str, str]) -> Path:
    ws = root / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").write_text("agents text\n")
    for name, text in files.items():
        (ws / name).write_text(text)
    return ws


def top(include: Any) -> str:
    """A top config whose `$include` is on line 3, beside a setting that still applies."""
    return (
        '{\n  agents: { defaults: { bootstrapMaxChars: 5 } },\n  "$include": '
        + json.dumps(include)
        + "\n}\n"
    )


def assert_rest_applies(data: dict[str, Any]) -> None:
    agents = next(f for f in data["files"] if f["name"] == "AGENTS.md")
    assert agents["injected_chars"] <= 5


def test_a_fan_out_of_includes_stops_at_the_load_bound(tmp_path: Path) -> None:
    """Seven files each including the next twelve times: 12**6 loads without a bound."""
    files = {f"f{i}.json5": json.dumps({"$include": [f"f{i + 1}.json5"] * 12}) for i in range(6)}
    files["f6.json5"] = '{ tools: { allow: ["read"] } }'
    ws = workspace(tmp_path, {**files, "openclaw.json": top("f0.json5")})
    data = ctxscope_json(ws)
    problem = include_problem(data)
    assert f"more than {MAX_INCLUDE_LOADS:,} included files loaded in all" in problem["message"]
    assert "ctxscope's bound" in problem["message"]
    # Named at the $include that went past it: one of the fan-out files, on its line 1.
    assert Path(problem["path"]).parent == ws and Path(problem["path"]).name.startswith("f")
    assert problem["line"] == 1
    assert_rest_applies(data)


def test_four_oversized_included_files_are_refused_before_parsing(tmp_path: Path) -> None:
    big = '{ "a": "' + "x" * BIG + '" }'
    names = [f"big{i}.json5" for i in range(4)]
    ws = workspace(tmp_path, {**dict.fromkeys(names, big), "openclaw.json": top(names)})
    data = ctxscope_json(ws)
    problem = include_problem(data)
    assert (problem["path"], problem["line"]) == (str(ws / "openclaw.json"), 3)
    assert (
        f"{ws / 'big0.json5'} is {len(big):,} bytes, larger than the 2 MiB read cap"
        in (problem["message"])
    )
    assert_rest_applies(data)


def test_included_bytes_are_bounded_in_all(tmp_path: Path) -> None:
    """Each file under the cap, but five of them (the same one) make more than 8 MiB."""
    near_cap = '{ "a": "' + "x" * 1_900_000 + '" }'
    ws = workspace(tmp_path, {"near.json5": near_cap, "openclaw.json": top(["near.json5"] * 5)})
    data = ctxscope_json(ws)
    problem = include_problem(data)
    assert (problem["path"], problem["line"]) == (str(ws / "openclaw.json"), 3)
    assert "'near.json5': more than 8 MiB of included files loaded in all" in problem["message"]
    assert_rest_applies(data)


def test_a_list_concatenation_bomb_stops_at_the_value_bound(tmp_path: Path) -> None:
    """A list of a hundred names included nine hundred times: each merge copies the list made
    so far (tens of millions of copies without a bound), under the load and byte bounds."""
    ws = workspace(
        tmp_path,
        {
            "list.json5": json.dumps({"tools": {"allow": ["read"] * 100}}),
            "inc.json5": json.dumps({"$include": ["list.json5"] * 900}),
            "openclaw.json": top("inc.json5"),
        },
    )
    data = ctxscope_json(ws)
    problem = include_problem(data)
    assert (problem["path"], problem["line"]) == (str(ws / "inc.json5"), 1)
    assert "values read from included files and made by merging them" in problem["message"]
    assert_rest_applies(data)


def test_includes_deeper_than_the_depth_bound_name_the_file_and_line(tmp_path: Path) -> None:
    depth = MAX_INCLUDE_DEPTH + 2
    files = {f"d{i}.json5": f'{{\n  "$include": "d{i + 1}.json5"\n}}' for i in range(depth)}
    files[f"d{depth}.json5"] = "{}"
    ws = workspace(tmp_path, {**files, "openclaw.json": top("d0.json5")})
    problem = include_problem(ctxscope_json(ws))
    assert f"more than {MAX_INCLUDE_DEPTH} levels deep" in problem["message"]
    # The top config is level 0: the file at level 10 may not include another.
    deepest = ws / f"d{MAX_INCLUDE_DEPTH - 1}.json5"
    assert (problem["path"], problem["line"]) == (str(deepest), 2)


def test_an_include_through_a_symlink_loop_is_named(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"openclaw.json": top("loop/a.json5")})
    (ws / "loop").mkdir()
    os.symlink("b.json5", ws / "loop" / "a.json5")
    os.symlink("a.json5", ws / "loop" / "b.json5")
    data = ctxscope_json(ws)
    problem = include_problem(data)
    assert (problem["path"], problem["line"]) == (str(ws / "openclaw.json"), 3)
    assert f"{ws / 'loop' / 'a.json5'} is a symlink loop" in problem["message"]
    assert_rest_applies(data)


@pytest.mark.parametrize("where", ["top", "included"])
def test_a_large_invalid_json5_file_is_located_at_once(tmp_path: Path, where: str) -> None:
    """The pure-Python parser that names an error's line reads about 10 kB a second: a 1.8 MB
    file with an error at its end is located from the C parser's offset instead."""
    bad = '{ "tools": { "allow": [\n' + '"read",\n' * 200_000 + "nope ] } }\n"
    files = {"bad.json5": bad, "openclaw.json": top("bad.json5")}
    if where == "top":
        files = {"openclaw.json": bad}
    ws = workspace(tmp_path, files)
    out = subprocess.run(
        [sys.executable, "-m", "ctxscope", "render", str(ws)],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    text = out.stdout + out.stderr
    bad_file = ws / ("bad.json5" if where == "included" else "openclaw.json")
    assert f"{bad_file}:200002:2: " in text
    assert 'Expected "u", found "o"' in text
