"""Where each key of a config file is written: a map from key path to 1-based line, so a
diagnostic about `agents.list[1].id` points at that `id`, not the first `id` in the file.

JSON5 is scanned token by token (strings, comments, unquoted keys); YAML through its node
marks. Only keys are located; a file that does not scan yields what was found before the
problem.
"""

from __future__ import annotations

import re
from typing import Any

from ctxscope.core.yamlload import compose_yaml, yaml

KeyPath = tuple[str | int, ...]

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<punct>[{}\[\]:,])
  | (?P<word>[^\s{}\[\]:,"'/]+|/)
    """,
    re.VERBOSE | re.DOTALL,
)


def parse_path(dotted: str) -> KeyPath:
    """`agents.list[1].id` -> ("agents", "list", 1, "id")."""
    out: list[str | int] = []
    for part in dotted.split("."):
        name, *indexes = part.split("[")
        if name:
            out.append(name)
        out += [int(i.rstrip("]")) for i in indexes if i.rstrip("]").isdigit()]
    return tuple(out)


def json5_key_lines(text: str) -> dict[KeyPath, int]:
    lines: dict[KeyPath, int] = {}
    # Each frame: [kind, key or index, expecting a key]
    stack: list[list[Any]] = []
    line = 1
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            break
        kind, value = m.lastgroup, m.group()
        if kind == "punct":
            top = stack[-1] if stack else None
            if value in "{[":
                stack.append(["obj", None, True] if value == "{" else ["arr", 0, False])
            elif value in "}]":
                if stack:
                    stack.pop()
            elif value == ":" and top is not None and top[0] == "obj":
                top[2] = False
            elif value == "," and top is not None:
                if top[0] == "obj":
                    top[2] = True
                else:
                    top[1] += 1
        elif kind in ("string", "word") and stack and stack[-1][0] == "obj" and stack[-1][2]:
            key = value[1:-1] if kind == "string" else value
            stack[-1][1] = key
            path = tuple(frame[1] for frame in stack)
            lines.setdefault(path, line)
        line += value.count("\n")
        pos = m.end()
    return lines


def yaml_key_lines(text: str) -> dict[KeyPath, int]:
    lines: dict[KeyPath, int] = {}
    try:
        root = compose_yaml(text)
    except yaml.YAMLError:
        return lines

    def walk(node: Any, path: KeyPath) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    here = (*path, key.value)
                    lines.setdefault(here, key.start_mark.line + 1)
                    walk(value, here)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*path, i))

    walk(root, ())
    return lines


def key_lines(text: str, path: str | None) -> dict[KeyPath, int]:
    """Every key's line in a config's text (YAML by the file's name, else JSON5)."""
    if path and path.endswith((".yaml", ".yml")):
        return yaml_key_lines(text)
    return json5_key_lines(text)
