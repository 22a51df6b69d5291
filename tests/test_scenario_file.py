"""A broken `ctxscope.yaml` is named with its file and line by every command that reads it:
render, spawn, explain and check, in every format; a bad profile it names too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import ctxscope

BROKEN = "requester: main\ntask: [unclosed\n"
"""Invalid YAML: the error is on line 3 (where the flow sequence should have closed)."""


def _names(text: str, fmt: str, where: str, line: int, message: str) -> bool:
    """The output `text` (in `fmt`) has a diagnostic at `where`:`line` whose message holds
    `message`."""
    if fmt == "json":
        data = json.loads(text)
        found = data.get("diagnostics", [])
        found += [
            d for key in ("requester", "child") for d in data.get(key, {}).get("diagnostics", [])
        ]
        return any(
            d["path"] == where and d["line"] == line and message in d["message"] for d in found
        )
    return any(f"{where}:{line}" in row and message in row for row in text.splitlines())


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize(
    "command",
    [("explain", "SOUL.md"), ("explain", "not-a-known-item"), ("render",), ("spawn",)],
)
def test_a_broken_scenario_file_is_named_with_its_line(
    make_workspace, command: tuple[str, ...], fmt: str
) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "agents", "SOUL.md": "soul", "ctxscope.yaml": BROKEN})
    out = ctxscope(command[0], ws, *command[1:], "--format", fmt)
    assert out.returncode == 0, out.stderr
    assert _names(out.stdout, fmt, str(ws / "ctxscope.yaml"), 3, "invalid YAML")


def test_check_names_a_broken_scenario_file(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "agents", "ctxscope.yaml": BROKEN})
    out = ctxscope("check", ws, "--format", "json")
    findings = json.loads(out.stdout)["findings"]
    assert any(
        f["path"] == str(ws / "ctxscope.yaml") and f["line"] == 3 and "invalid YAML" in f["message"]
        for f in findings
    )


def test_unknown_keys_and_bad_values_point_at_their_line(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace(
        {
            "AGENTS.md": "agents",
            "ctxscope.yaml": "task: review\n\ndepth: -2\ntools: read\nbogus: 1\n",
        }
    )
    out = ctxscope("explain", ws, "AGENTS.md", "--format", "json")
    where = str(ws / "ctxscope.yaml")
    lines = {
        d["message"]: d["line"] for d in json.loads(out.stdout)["diagnostics"] if d["path"] == where
    }
    assert lines == {
        "depth must be a non-negative integer": 3,
        "tools must be a list": 4,
        "unknown scenario key 'bogus' (ignored)": 5,
    }


@pytest.mark.parametrize("command", ["render", "spawn", "explain", "check"])
def test_an_unknown_profile_in_the_scenario_file_is_named_at_its_line(
    make_workspace, command: str
) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "agents", "ctxscope.yaml": "task: x\nprofile: nosuch\n"})
    out = ctxscope(command, ws, *(["AGENTS.md"] if command == "explain" else []))
    assert out.returncode == 2
    assert f"{ws / 'ctxscope.yaml'}:2: error: unknown profile 'nosuch'" in out.stderr
    typed = ctxscope(
        command, ws, "--profile", "other", *(["AGENTS.md"] if command == "explain" else [])
    )
    assert typed.returncode == 2 and "ctxscope.yaml" not in typed.stderr  # typed, not read


def test_a_profile_file_the_scenario_names_says_where_it_is_named(
    make_workspace, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "agents", "ctxscope.yaml": "profile: ./missing.yaml\n"})
    out = ctxscope("explain", ws, "AGENTS.md")
    assert out.returncode == 2
    assert str(ws / "missing.yaml") in out.stderr
    assert f"(the profile {ws / 'ctxscope.yaml'}:1 names)" in out.stderr


def test_an_unknown_rye_profile_in_the_scenario_file_is_named_at_its_line(make_workspace) -> None:  # type: ignore[no-untyped-def]
    ws = make_workspace({"AGENTS.md": "agents", "ctxscope.yaml": "task: x\n\nrye_profile: rye-2\n"})
    out = ctxscope("render", ws, "--format", "json")
    assert out.returncode == 0, out.stderr
    assert _names(out.stdout, "json", str(ws / "ctxscope.yaml"), 3, "unknown Rye profile 'rye-2'")
    kept = make_workspace({"AGENTS.md": "a", "ctxscope.yaml": "rye_profile: rye-docs\n"})
    assert "Rye profile" not in ctxscope("render", kept).stdout


@pytest.mark.parametrize(
    ("line", "mode", "warned"),
    [
        ("exact: off", "off", False),
        ("exact: on", "on", False),
        ("exact: auto", "auto", False),
        ("exact: sometimes", None, True),
    ],
)
def test_the_exact_setting_reads_yamls_on_and_off(
    tmp_path: Path, line: str, mode: str | None, warned: bool
) -> None:
    """`exact:` in ctxscope.yaml takes auto, on and off (YAML reads bare on/off as true and
    false); anything else is named at its line and ignored."""
    from ctxscope.scenario import load_scenario

    (tmp_path / "ctxscope.yaml").write_text(f"requester: main\n{line}\n")
    scenario, diags = load_scenario(tmp_path)
    assert scenario.exact == mode
    assert [d.line for d in diags if d.code == "scenario-value"] == ([2] if warned else [])
