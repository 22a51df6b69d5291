"""The size rules that keep the code walkable: no module of ctxscope over 600 lines, no
function over 80 (the import rules, cycles included, are `lint-imports` contracts)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

SOURCE = REPO / "src" / "ctxscope"
MODULE_LINES = 600
FUNCTION_LINES = 80


def modules() -> list[Path]:
    found = sorted(SOURCE.rglob("*.py"))
    assert len(found) > 100  # the whole tree, not an empty glob
    return found


def test_no_module_is_longer_than_600_lines() -> None:
    long = {
        str(p.relative_to(SOURCE)): n
        for p in modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_no_function_is_longer_than_80_lines() -> None:
    long = {}
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LINES:
                    long[f"{path.relative_to(SOURCE)}:{node.lineno} {node.name}"] = lines
    assert long == {}
