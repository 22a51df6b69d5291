"""Bootstrap files and truncation, to the character."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import ctxscope
from ctxscope import Inspector
from ctxscope.runtimes.openclaw.bootstrap import clamp_to_budget
from ctxscope.runtimes.openclaw.truncation import truncation_marker
from tests.conftest import WorkspaceFactory, as_on_disk, pinned


@pytest.fixture
def make_workspace(make_workspace: WorkspaceFactory) -> WorkspaceFactory:
    """These tests pin OpenClaw 2026.2.19's rules (2026.9's are in test_openclaw_2026_9), on
    the files each folder holds (skipBootstrap: no first-run template)."""
    return pinned(as_on_disk(make_workspace), "openclaw-2026.2")


CORE = [
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
]


def main_session(ws: Path, **scenario: object) -> ctxscope.core.model.Session:
    return Inspector(ws, scenario=scenario or None).session()


def limits(per_file: int, total: int) -> dict[str, object]:
    return {
        "agents": {"defaults": {"bootstrapMaxChars": per_file, "bootstrapTotalMaxChars": total}}
    }


def test_order_and_missing_markers_for_the_seven_core_files(make_workspace):
    ws = make_workspace({"TOOLS.md": "tools", "AGENTS.md": "agents"})
    s = main_session(ws)
    assert [f.name for f in s.files] == CORE
    soul = s.file("SOUL.md")
    assert soul.status == "missing"
    assert soul.body == f"[MISSING] Expected at: {ws / 'SOUL.md'}"
    assert soul.injected_chars == len(soul.body)
    assert s.file("AGENTS.md").status == "injected"
    # Missing files still get their `## <path>` heading in the prompt.
    assert f"## {ws / 'HEARTBEAT.md'}\n[MISSING] Expected at: {ws / 'HEARTBEAT.md'}" in (
        s.system_prompt
    )


def test_memory_files_absent_get_no_entry(make_workspace):
    s = main_session(make_workspace({"AGENTS.md": "a"}))
    assert "MEMORY.md" not in [f.name for f in s.files]
    assert "memory.md" not in [f.name for f in s.files]
    assert s.section("file:MEMORY.md") is None and "## MEMORY.md" not in s.system_prompt


def test_both_memory_files_injected_when_distinct(make_workspace):
    s = main_session(make_workspace({"MEMORY.md": "upper", "memory.md": "lower"}))
    names = [f.name for f in s.files]
    assert names[-2:] == ["MEMORY.md", "memory.md"]
    assert s.file("MEMORY.md").status == "injected"
    assert s.file("memory.md").status == "injected"
    assert s.system_prompt.index("upper") < s.system_prompt.index("lower")


def test_memory_symlink_to_memory_keeps_only_memory_upper(make_workspace):
    ws = make_workspace({"MEMORY.md": "the one memory"})
    os.symlink(ws / "MEMORY.md", ws / "memory.md")
    s = main_session(ws)
    assert s.file("MEMORY.md").status == "injected"
    lower = s.file("memory.md")
    assert lower.status == "not-injected" and lower.injected_chars == 0
    assert "same file as MEMORY.md" in lower.reason
    assert s.system_prompt.count("the one memory") == 1


def test_empty_and_whitespace_only_files_are_skipped_silently(make_workspace):
    ws = make_workspace({"AGENTS.md": "", "SOUL.md": "  \n\t\n", "TOOLS.md": "tools"})
    s = main_session(ws)
    for name in ("AGENTS.md", "SOUL.md"):
        entry = s.file(name)
        assert entry.status == "empty" and entry.injected_chars == 0
        assert f"## {ws / name}" not in s.system_prompt
    # An empty SOUL.md is not injected, so the persona line is absent.
    assert "SOUL.md is loaded" not in s.system_prompt


def test_soul_line_present_even_for_a_missing_soul(make_workspace):
    s = main_session(make_workspace({"AGENTS.md": "a"}))
    assert s.file("SOUL.md").status == "missing"
    assert "SOUL.md is loaded" in s.system_prompt


def test_memory_notes_are_listed_but_never_injected(make_workspace):
    ws = make_workspace(
        {
            "AGENTS.md": "a",
            "memory/2026-01-01.md": "note one\n\n",
            "memory/2026-01-02.md": "note two",
            "memory/skip.txt": "x",
        }
    )
    s = main_session(ws)
    notes = [f for f in s.files if f.name.startswith("memory/")]
    assert [n.name for n in notes] == ["memory/2026-01-01.md", "memory/2026-01-02.md"]
    assert all(n.status == "not-injected" and n.injected_chars == 0 for n in notes)
    assert notes[0].raw_chars == len("note one")
    assert "memory tools" in notes[0].reason
    assert "note one" not in s.system_prompt


def test_right_trim_before_measuring(make_workspace):
    s = main_session(make_workspace({"AGENTS.md": "body  \n\n\n \t"}))
    entry = s.file("AGENTS.md")
    assert entry.raw_chars == 4 and entry.injected_chars == 4 and entry.body == "body"


def test_per_file_truncation_keeps_70_percent_head_and_20_percent_tail(make_workspace):
    content = "".join(chr(ord("a") + i % 26) for i in range(1000))
    ws = make_workspace({"AGENTS.md": content}, config=limits(100, 150000))
    entry = main_session(ws).file("AGENTS.md")
    expected = content[:70] + truncation_marker("AGENTS.md", 70, 20, 1000) + content[-20:]
    assert entry.status == "truncated"
    assert entry.body == expected
    assert entry.injected_chars == len(expected)
    assert entry.raw_chars == 1000
    assert (
        "\n\n[...truncated, read AGENTS.md for full content...]\n"
        "…(truncated AGENTS.md: kept 70+20 chars of 1000)…\n\n"
    ) in entry.body


def test_file_at_exactly_the_limit_is_not_truncated(make_workspace):
    ws = make_workspace({"AGENTS.md": "x" * 100}, config=limits(100, 150000))
    assert main_session(ws).file("AGENTS.md").status == "injected"


def test_result_over_remaining_budget_is_hard_cut_with_ellipsis(make_workspace):
    # limit = min(100, 100) → head+marker+tail is longer than 100 → cut to 99 chars + "…".
    content = "y" * 1000
    ws = make_workspace({"AGENTS.md": content}, config=limits(100, 100))
    s = main_session(ws)
    entry = s.file("AGENTS.md")
    trimmed = content[:70] + truncation_marker("AGENTS.md", 70, 20, 1000) + content[-20:]
    assert entry.body == trimmed[:99] + "…"
    assert entry.injected_chars == 100
    # The budget is spent: every later file is dropped.
    for name in CORE[1:]:
        later = s.file(name)
        assert later.injected_chars == 0 and "dropped" in later.reason


def test_fewer_than_64_chars_left_drops_that_file_and_all_later(make_workspace):
    ws = make_workspace(
        {"AGENTS.md": "a" * 50, "SOUL.md": "soul", "TOOLS.md": "tools"}, config=limits(20000, 100)
    )
    s = main_session(ws)
    assert s.file("AGENTS.md").injected_chars == 50
    for name in ("SOUL.md", "TOOLS.md", "IDENTITY.md"):
        entry = s.file(name)
        assert entry.injected_chars == 0
        assert "dropped" in entry.reason
    assert s.file("SOUL.md").status == "truncated"
    assert "64" in s.file("SOUL.md").reason
    assert "soul" not in s.system_prompt.split("# Project Context")[1]


def test_missing_markers_count_against_the_total_budget(make_workspace):
    ws = make_workspace({"TOOLS.md": "t" * 500}, config=limits(20000, 150000))
    s = main_session(ws)
    markers = sum(f.injected_chars for f in s.files[:2])  # AGENTS.md, SOUL.md missing
    assert markers == sum(len(f"[MISSING] Expected at: {ws / n}") for n in CORE[:2])
    # With a tight total, the markers alone spend it and TOOLS.md is cut.
    budget = markers + 100
    ws2 = make_workspace({"TOOLS.md": "t" * 500}, config=limits(20000, budget), name="ws2")
    s2 = main_session(ws2)
    tools = s2.file("TOOLS.md")
    first_two = sum(f.injected_chars for f in s2.files[:2])
    assert tools.status == "truncated"
    assert first_two + tools.injected_chars == budget


def test_missing_marker_is_clamped_when_budget_is_short(make_workspace):
    ws = make_workspace({}, config=limits(20000, 30))
    s = main_session(ws)
    agents = s.file("AGENTS.md")
    assert agents.status == "missing"
    assert agents.injected_chars == 30
    assert agents.body.endswith("…")
    assert all(f.injected_chars == 0 for f in s.files[1:])


def test_injected_lengths_follow_the_budget_in_load_order(make_workspace):
    files = {name: name[0] * (3000 + 100 * i) for i, name in enumerate(CORE)}
    ws = make_workspace(files, config=limits(2500, 9000))
    s = main_session(ws)
    remaining = 9000
    for name in CORE:
        entry = s.file(name)
        raw = len(files[name])
        if remaining < 64:
            assert entry.injected_chars == 0
            continue
        limit = max(1, min(2500, remaining))
        head, tail = int(limit * 0.7), int(limit * 0.2)
        body = files[name][:head] + truncation_marker(name, head, tail, raw) + files[name][-tail:]
        expected = len(body) if len(body) <= remaining else remaining
        assert entry.injected_chars == expected, name
        remaining -= expected


def test_two_mib_read_cap(make_workspace):
    ws = make_workspace({"AGENTS.md": "z" * (3 * 1024 * 1024)})
    s = main_session(ws)
    entry = s.file("AGENTS.md")
    assert entry.raw_chars == 2 * 1024 * 1024
    assert entry.status == "truncated"
    assert any(d.code == "file-over-cap" and d.path == str(ws / "AGENTS.md") for d in s.diagnostics)


def test_lengths_are_utf16_code_units_like_the_runtime(make_workspace):
    s = main_session(make_workspace({"AGENTS.md": "\U0001f600" * 10 + "é"}))
    assert s.file("AGENTS.md").raw_chars == 21


def test_hard_cut_never_splits_an_emoji():
    # budget 6 → keep 5 units, which would end inside the third emoji: that half is dropped.
    assert clamp_to_budget("\U0001f600" * 10, 6) == "\U0001f600\U0001f600…"
    assert clamp_to_budget("abcdef", 3) == "abc"
    assert clamp_to_budget("abcdef", 6) == "abcdef"
    assert clamp_to_budget("abcdef", 0) == ""


def test_head_slice_counts_utf16_units_like_javascript(make_workspace):
    ws = make_workspace({"AGENTS.md": "\U0001f600" * 100}, config=limits(65, 150000))
    entry = main_session(ws).file("AGENTS.md")
    # head = 45 units: 22 emoji and half of one (shown as U+FFFD, one unit, as in JS).
    assert entry.body.startswith("\U0001f600" * 22 + "\ufffd\n\n[...truncated")
    assert "kept 45+13 chars of 200" in entry.body


def test_subagent_allowlist_excludes_with_reason(make_workspace):
    ws = make_workspace({n: n for n in [*CORE, "MEMORY.md"]})
    s = Inspector(ws).session("agent:main:subagent:abc")
    injected = [f.name for f in s.files if f.status == "injected"]
    assert injected == ["AGENTS.md", "TOOLS.md"]
    for name in ("SOUL.md", "USER.md", "IDENTITY.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md"):
        entry = s.file(name)
        assert entry.status == "excluded"
        assert "subagent sessions get only AGENTS.md, TOOLS.md" in entry.reason
        assert entry.injected_chars == 0 and entry.raw_chars == len(name)


def test_excluded_and_absent_says_so(make_workspace):
    s = Inspector(make_workspace({"AGENTS.md": "a"})).session("agent:main:subagent:x")
    assert s.file("SOUL.md").status == "excluded"
    assert s.file("SOUL.md").reason.endswith("; the file is absent anyway")
    assert s.file("TOOLS.md").status == "missing"


def test_cron_sessions_use_the_allowlist_too(make_workspace):
    ws = make_workspace({n: n for n in CORE})
    s = Inspector(ws).session("agent:main:cron:nightly")
    assert s.file("SOUL.md").status == "excluded"
    assert "cron sessions" in s.file("SOUL.md").reason


def test_excluded_files_do_not_spend_the_budget(make_workspace):
    files = {"AGENTS.md": "a" * 100, "SOUL.md": "s" * 5000, "TOOLS.md": "t" * 100}
    ws = make_workspace(files, config=limits(20000, 300))
    s = Inspector(ws).session("agent:main:subagent:x")
    assert s.file("TOOLS.md").injected_chars == 100


def test_unreadable_inputs_become_diagnostics_not_crashes(make_workspace):
    ws = make_workspace({"AGENTS.md": b"ok\x00\x01binary", "SOUL.md": b"caf\xe9 latin-1\n"})
    os.symlink("loop-b", ws / "loop-a")
    os.symlink("loop-a", ws / "loop-b")
    os.symlink(ws / "loop-a", ws / "TOOLS.md")
    (ws / "USER.md").mkdir()
    os.mkfifo(ws / "IDENTITY.md")
    s = main_session(ws)
    codes = {d.code: d for d in s.diagnostics}
    assert codes["file-binary"].path == str(ws / "AGENTS.md")
    assert codes["file-encoding"].path == str(ws / "SOUL.md")
    assert codes["file-encoding"].line == 1
    assert codes["file-symlink-loop"].path == str(ws / "TOOLS.md")
    assert s.file("SOUL.md").body == "caf\ufffd latin-1"
    assert s.file("TOOLS.md").status == "missing"
    assert s.file("USER.md").status == "missing"
    assert s.file("IDENTITY.md").status == "missing"  # a FIFO is never opened
    assert any(d.code == "file-not-regular" for d in s.diagnostics)
