"""YAML loading through libyaml's C parser when PyYAML was built with it (several times
faster than the pure-Python loader), with the same safe semantics and error marks."""

from __future__ import annotations

from typing import Any

import yaml

from ctxscope.model import Diagnostic, Severity

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """`yaml.safe_load`, faster. Raises `yaml.YAMLError` (with `problem_mark`) on bad input."""
    return yaml.load(text, Loader=_Loader)


def compose_yaml(text: str) -> Any:
    """`yaml.compose` (the node tree, with line marks) through the same fast loader."""
    return yaml.compose(text, Loader=_Loader)


def yaml_diagnostic(
    exc: yaml.YAMLError,
    path: str | None,
    code: str,
    *,
    what: str = "",
    line_offset: int = 0,
    severity: Severity = "error",
) -> Diagnostic:
    """A diagnostic for unparsable YAML, naming the file, line and column. `what` says what
    was being read; `line_offset` maps a line inside an embedded block back to its file."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
    prefix = f"{what}: " if what else ""
    line = mark.line + 1 + line_offset if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    return Diagnostic(severity, f"{prefix}invalid YAML: {problem}", path, line, column, code=code)
