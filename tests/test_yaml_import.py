"""PyYAML is imported in one place, which hands its reader a pattern that is quicker to
compile and matches exactly the same characters."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import yaml.reader

import ctxscope
from ctxscope import yamlload

SRC = Path(ctxscope.__file__).parent


def test_the_ranges_match_the_same_code_points_as_pyyamls_pattern() -> None:
    every = "".join(map(chr, range(0x110000)))
    # re.UNICODE is a str pattern's default: the same pattern, compiled apart from the cache.
    pyyaml = re.compile(yamlload.PYYAML_NON_PRINTABLE, re.UNICODE)
    ranges = re.compile(yamlload.NON_PRINTABLE_RANGES)
    found = [m.start() for m in ranges.finditer(every)]
    assert found == [m.start() for m in pyyaml.finditer(every)]
    assert 0 in found and 0x85 not in found and 0xD800 in found and 0x10FFFF not in found


def test_the_pattern_is_pyyamls_own() -> None:
    tree = ast.parse(Path(yaml.reader.__file__).read_text(encoding="utf-8"))
    literals = [
        node.value.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "NON_PRINTABLE" for t in node.targets)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.args[0], ast.Constant)
    ]
    assert literals == [yamlload.PYYAML_NON_PRINTABLE]


def test_pyyamls_reader_takes_the_ranges_and_reports_the_same_character() -> None:
    code = (
        "import ctxscope.yamlload as y, yaml, yaml.reader\n"
        "print(yaml.reader.Reader.NON_PRINTABLE.pattern == y.NON_PRINTABLE_RANGES)\n"
        "try:\n"
        "    yaml.load('a: b\\x07', Loader=yaml.SafeLoader)\n"
        "except yaml.reader.ReaderError as exc:\n"
        "    print(exc.position, hex(exc.character))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["True", "4 0x7"]


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
