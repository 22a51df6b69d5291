"""Runtime wording ctxscope cannot know without the runtime: read from an installed ryeos.

The instruction ryeos appends to a directive with `<outputs>` is prose in its own source
(`_build_prompt` in `tools/rye/agent/threads/thread_directive.py` of the standard bundle).
With ryeos installed, ctxscope reads that text from the installed file's syntax tree (never
running it); without, it uses its own stand-in wording and says so.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ctxscope.core.model import Diagnostic
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.tiers import parse_cached

THREAD_DIRECTIVE = ("tools", "rye", "agent", "threads", "thread_directive.py")
STAND_IN = (
    "When every step is done, call the `directive_return` tool (as a tool call, not as text) "
    "with these fields:\n{",
    "\n}\n\nIf you cannot finish, call `directive_return` with `status` set to `error` and an "
    "`error_detail` saying what is missing.",
)
"""ctxscope's own words around the field lines (a stand-in for ryeos's)."""


def _split(node: ast.JoinedStr, name: str) -> tuple[str, str] | None:
    """The literal text before and after `{name}` in an f-string."""
    before: list[str] = []
    after: list[str] = []
    seen = False
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            (after if seen else before).append(value.value)
        elif (
            isinstance(value, ast.FormattedValue)
            and isinstance(value.value, ast.Name)
            and value.value.id == name
            and not seen
        ):
            seen = True
        else:
            return None
    return ("".join(before), "".join(after)) if seen else None


def _wording(text: str) -> tuple[tuple[str, str] | None, list[Diagnostic]]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, []
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == "_build_prompt":
            for node in ast.walk(fn):
                if isinstance(node, ast.JoinedStr) and "directive_return" in ast.unparse(node):
                    found = _split(node, "field_lines")
                    if found is not None:
                        return found, []
    return None, []


def outputs_wording(snapshot: Snapshot, system: list[Path]) -> tuple[str, str] | None:
    """(text before the field lines, text after) of the installed ryeos's outputs
    instruction, or None when no installed ryeos (or its text cannot be found). The file is
    parsed once while it is unchanged."""
    for root in system:
        res = parse_cached(
            snapshot, "outputs-wording", str(root.joinpath(*THREAD_DIRECTIVE)), _wording
        )
        if res is not None:
            return res[0]
    return None
