"""YAML loading through libyaml's C parser when PyYAML was built with it (several times
faster than the pure-Python loader), with the same safe semantics and error marks.

Workspace YAML is untrusted, so a document is composed first and checked before anything is
built from it: aliases that expand to more than `MAX_ALIAS_EXPANSION` nodes (a "billion
laughs" bomb) or that refer to themselves are refused with a marked error."""

from __future__ import annotations

from typing import Any

import yaml

from ctxscope.core.model import Diagnostic, Severity

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


MAX_ALIAS_EXPANSION = 100_000
"""How many nodes aliases may add once expanded, over the nodes written out."""


def load_yaml(text: str) -> Any:
    """`yaml.safe_load`, faster and bounded. Raises `yaml.YAMLError` (with `problem_mark`) on
    bad input, on recursive aliases and on alias expansion past the limit."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _may_alias(text):
            check_aliases(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def compose_yaml(text: str) -> Any:
    """`yaml.compose` (the node tree, with line marks) through the same fast loader, with the
    same checks as `load_yaml`."""
    node = yaml.compose(text, Loader=_Loader)
    if node is not None and _may_alias(text):
        check_aliases(node)
    return node


def _may_alias(text: str) -> bool:
    """False when `text` cannot hold an alias: one needs an anchor (`&`) and its own mark."""
    return "&" in text and "*" in text


def check_aliases(root: yaml.Node) -> None:
    """Refuse a node graph with a cycle (an alias inside its own anchor) or whose expanded
    tree is more than `MAX_ALIAS_EXPANSION` nodes larger than the graph itself. Sizes are
    computed once per shared node, so checking a bomb is as cheap as reading it."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            continue
        if key in size:
            continue
        if key in on_path:
            raise _refused(node, "an alias refers to the node that contains it (recursive)")
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise _refused(child, "an alias refers to the node that contains it (recursive)")
            if id(child) not in size:
                stack.append((child, False))
    if size[id(root)] - len(size) > MAX_ALIAS_EXPANSION:
        raise _refused(
            root,
            f"aliases expand to {size[id(root)]:,} nodes (limit: {MAX_ALIAS_EXPANSION:,} more "
            "than written); refused as an alias bomb",
        )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _refused(node: yaml.Node, problem: str) -> yaml.MarkedYAMLError:
    return yaml.MarkedYAMLError(problem=problem, problem_mark=node.start_mark)


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
