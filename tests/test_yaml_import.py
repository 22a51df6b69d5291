"""PyYAML is imported in one place (`yamlload`: the C loader and the alias checks)."""

from __future__ import annotations

import ast
from pathlib import Path

import ctxscope

SRC = Path(ctxscope.__file__).parent


def test_no_other_module_imports_pyyaml() -> None:
    importers = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            if any(n == "yaml" or n.startswith("yaml.") for n in names):
                importers.append(path.relative_to(SRC).as_posix())
    assert importers == ["yamlload.py"]
