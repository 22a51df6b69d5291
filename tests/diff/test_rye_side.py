"""A Rye thread compared: chain, hooks and tool palette."""

from __future__ import annotations

import shutil
from pathlib import Path

import ctxscope
from ctxscope.diff import compare_specs
from ctxscope.output import render

from ..conftest import SAMPLE


def applied(thread) -> set[str]:  # type: ignore[no-untyped-def]
    hooks = [*thread.resolve_hooks, *thread.context_hooks, *thread.system_hooks]
    return {h.id for h in hooks if h.applied}


def test_a_continued_thread_loses_the_hooks_that_fire_only_at_start(tmp_path: Path):
    ws = tmp_path / "sample"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    scenario = tmp_path / "continued.yaml"
    scenario.write_text((ws / "ctxscope.yaml").read_text() + "continued: true\n")
    result = compare_specs(ws, "now", str(scenario))
    rye = next(s for s in result.sessions if s.role == "rye")
    started = ctxscope.inspect(ws).thread
    continued = ctxscope.inspect(ws, continued=True).thread
    assert started is not None and continued is not None
    assert rye.thread is not None
    assert set(rye.thread.hooks_lost) == applied(started) - applied(continued)
    assert rye.thread.hooks_lost
    assert rye.before is not None and rye.after is not None
    assert rye.delta == rye.after["total"] - rye.before["total"] != 0
    removed = {c.id for c in rye.sections if c.change == "removed"}
    assert removed  # the hooks' items leave the first message
    # Everything else is the same.
    assert not any(s.changed for s in result.sessions if s.role != "rye")
    # A thread's tokens are shown as a session's, its message sizes in its sections.
    text = render(result, "text")
    assert f"──── {rye.session_key}:" in text and "prompt chars" not in text


def test_a_rye_profile_side_changes_the_palette(tmp_path: Path):
    ws = tmp_path / "sample"
    shutil.copytree(SAMPLE, ws, symlinks=True)
    scenario = tmp_path / "docs.yaml"
    scenario.write_text((ws / "ctxscope.yaml").read_text() + "rye_profile: rye-docs\n")
    result = compare_specs(ws, "now", f"scenario:{scenario}")
    rye = next(s for s in result.sessions if s.role == "rye")
    old = {t.id for t in ctxscope.inspect(ws).thread.palette.registered}  # type: ignore[union-attr]
    new = {
        t.id
        for t in ctxscope.inspect(ws, rye_profile="rye-docs").thread.palette.registered  # type: ignore[union-attr]
    }
    assert {t.name for t in rye.tools if t.change == "gained"} == new - old
    assert {t.name for t in rye.tools if t.change == "lost"} == old - new
    assert new != old
