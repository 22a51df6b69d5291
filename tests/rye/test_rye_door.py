"""Rye's one door (`ctxscope.runtimes.rye`): every public name it lists resolves, and
importing the package loads none of the engine until a name is asked for."""

from __future__ import annotations

import subprocess
import sys

import ctxscope.runtimes.rye as rye


def test_the_door_lists_every_name_it_serves_and_each_resolves() -> None:
    assert sorted(rye.__all__) == sorted(rye._HOME)
    for name in rye.__all__:
        assert getattr(rye, name) is not None, name


def test_the_package_loads_the_engine_only_for_a_name_asked_for() -> None:
    code = (
        "import sys, ctxscope.runtimes.rye as rye\n"
        "def loaded():\n"
        "    return sorted(m for m in sys.modules if m.startswith('ctxscope.runtimes.rye.'))\n"
        "print(loaded()); rye.ThreadReport; print(loaded())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after = out.stdout.splitlines()
    assert before == "[]"
    assert "ctxscope.runtimes.rye.threadreport" in after
