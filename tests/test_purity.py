"""The engine never imports Textual: only ctxscope.tui (and the CLI's tui launcher) may."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import ctxscope


def engine_modules() -> list[str]:
    names = []
    for mod in pkgutil.walk_packages(ctxscope.__path__, "ctxscope."):
        if mod.name.startswith("ctxscope.tui") or mod.name in (
            "ctxscope.cli.tui",
            "ctxscope.__main__",
        ):
            continue
        names.append(mod.name)
    return names


def test_engine_modules_do_not_import_textual():
    modules = engine_modules()
    assert "ctxscope.api" in modules and "ctxscope.runtimes.openclaw.prompt" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"textual imported by the engine: {out.stdout}"
