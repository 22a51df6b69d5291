"""A tool file's metadata from its text, read without running anything.

`.py` tool files: AST literal evaluation of `CONFIG_SCHEMA` and `__tool_description__` (the
file is parsed, never imported or executed). `.yaml` tool files: `config_schema` or a
`parameters` list. `.js`/`.ts`/`.mjs`/`.cjs`: the `CONFIG_SCHEMA` object literal and
`__tool_description__`, found by pattern as ryeos's javascript parser finds them. Each
result carries the tool's palette size as each runtime measures it.

Nothing here reads a file or keeps a result (`toolmeta` does), and little is imported: a
worker process parsing tool files starts with this module alone.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from typing import Any

from ctxscope.core.model import Diagnostic

_PY_NAMES = ("CONFIG_SCHEMA", "__tool_description__", "__version__", "__category__")

# Text where JSON and a Python literal could disagree: JSON's own words, `\/` (an escape in
# JSON, two characters in Python) and escaped surrogates (JSON joins a pair into one
# character). Anywhere else, text that parses as JSON means the same thing as a Python
# literal, and json.loads is an order of magnitude faster than literal_eval.
_NOT_PLAIN_JSON = re.compile(r"\b(?:true|false|null|NaN|Infinity)\b|\\/|\\u[dD][89a-fA-F]")


def _plain_json(segment: str) -> bool:
    """No text in `segment` where JSON and a Python literal could disagree. Each thing the
    pattern looks for holds one of these words or a backslash, and most schemas hold none:
    the pattern is only searched for when one is there (a search costs several times more)."""
    maybe = (
        "\\" in segment
        or "true" in segment
        or "false" in segment
        or "null" in segment
        or "NaN" in segment
        or "Infinity" in segment
    )
    return not maybe or not _NOT_PLAIN_JSON.search(segment)


_JSON = json.JSONDecoder()
_STRICT_JSON = json.JSONEncoder(allow_nan=False)
"""`json.loads` and `json.dumps(allow_nan=False)`, made once (not on each call)."""


_NEWLINE = re.compile(r"\r\n|\r|\n")

_TOO_DEEP = "tool file is too deeply nested for Python's parser; the runtime cannot load it either"
NOT_REGISTERED = "the tool is not registered"


def _segment(lines: list[str], node: ast.expr) -> str | None:
    """The source text of `node` (AST columns are UTF-8 byte offsets)."""
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None:
        return None
    first = lines[node.lineno - 1].encode()
    if node.lineno == end_line:
        return first[node.col_offset : end_col].decode(errors="replace")
    parts = [first[node.col_offset :].decode(errors="replace")]
    parts += lines[node.lineno : end_line - 1]
    parts.append(lines[end_line - 1].encode()[:end_col].decode(errors="replace"))
    return "\n".join(parts)


def _literal(lines: list[str], node: ast.expr) -> Any:
    """`ast.literal_eval(node)`, through json.loads when the source is plain JSON."""
    if isinstance(node, ast.Constant):
        return node.value  # what literal_eval gives for it, without reading the source
    segment = _segment(lines, node)
    if segment and segment[0] in '{["' and _plain_json(segment):
        try:
            return _JSON.decode(segment)
        except ValueError:
            pass
    return ast.literal_eval(node)


class _Substitute(ast.NodeTransformer):
    def __init__(self, constants: dict[str, str]) -> None:
        self.constants = constants

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.constants:
            return ast.copy_location(ast.Constant(self.constants[node.id]), node)
        return node


def extract_python(
    text: str, path: str, constants: dict[str, str] | None = None
) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """Top-level literal assignments of a tool file, by AST only (the file is never run).
    Names in `constants` (string constants the file imports) count as literals."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        deep = "too many nested" in (exc.msg or "")
        return None, [
            Diagnostic(
                "error",
                (_TOO_DEEP if deep else f"tool file has a syntax error: {exc.msg}")
                + f"; {NOT_REGISTERED}",
                path,
                exc.lineno,
                exc.offset,
                code="rye-tool-syntax",
            )
        ]
    except (RecursionError, MemoryError):
        return None, [
            Diagnostic("error", f"{_TOO_DEEP}; {NOT_REGISTERED}", path, code="rye-tool-syntax")
        ]
    except ValueError as exc:
        return None, [
            Diagnostic(
                "error",
                f"tool file cannot be parsed: {exc}; {NOT_REGISTERED}",
                path,
                code="rye-tool-syntax",
            )
        ]
    found: dict[str, Any] = {}
    where: dict[str, int] = {}
    diags: list[Diagnostic] = []
    lines = _NEWLINE.split(text)
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name) and t.id in _PY_NAMES and value is not None:
                if constants:
                    value = _Substitute(constants).visit(value)
                where[t.id] = node.lineno
                try:
                    found[t.id] = _literal(lines, value)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    found.pop(t.id, None)  # the last assignment is the one that counts
                    schema = t.id == "CONFIG_SCHEMA"
                    diags.append(
                        Diagnostic(
                            "error" if schema else "warning",
                            f"{t.id} is not a literal; it cannot be read without running the "
                            "file" + (f"; {NOT_REGISTERED}" if schema else ""),
                            path,
                            node.lineno,
                            code="rye-tool-literal",
                        )
                    )
    if "CONFIG_SCHEMA" not in found:
        return None, diags
    schema = found["CONFIG_SCHEMA"]
    line = where["CONFIG_SCHEMA"]
    if not isinstance(schema, dict):
        return None, [*diags, _not_a_mapping("CONFIG_SCHEMA", schema, path, line)]
    meta, problem = checked_meta(
        schema, str(found.get("__tool_description__") or ""), path, "CONFIG_SCHEMA", line
    )
    return meta, diags if problem is None else [*diags, problem]


def _not_a_mapping(name: str, value: Any, path: str, line: int | None) -> Diagnostic:
    from ctxscope.core.secrets import describe  # only for a tool with this problem

    return Diagnostic(
        "error",
        f"{name} is {describe(value)}, not a mapping (a JSON schema object); {NOT_REGISTERED}",
        path,
        line,
        code="rye-tool-schema",
    )


def checked_meta(
    schema: dict[str, Any], desc: str, path: str, name: str, line: int | None = None
) -> tuple[dict[str, Any] | None, Diagnostic | None]:
    """`tool_meta`, or a diagnostic when `schema` holds values JSON cannot carry (a set,
    bytes, `...`, a date, NaN): the runtime could not send such a schema, so the tool is not
    registered. One serialisation both checks and sizes the schema."""
    try:
        text = _STRICT_JSON.encode(schema)
    except (TypeError, ValueError) as exc:
        return None, Diagnostic(
            "error",
            f"{name} is not JSON ({exc}): the runtime could not send it; {NOT_REGISTERED}",
            path,
            line,
            code="rye-tool-schema",
        )
    except RecursionError:
        return None, Diagnostic(
            "error",
            f"{name} is too deeply nested to be sent as JSON; {NOT_REGISTERED}",
            path,
            line,
            code="rye-tool-schema",
        )
    return tool_meta(schema, desc, len(text)), None


def tool_meta(schema: dict[str, Any], desc: str, json_len: int | None = None) -> dict[str, Any]:
    """Tool metadata with its palette size as each runtime measures it: `chars`,
    len(JSON schema) + len(description), and `repr_chars`, with the schema's Python repr
    (ryeos) instead (`json_len`: the schema's JSON length when already known). Both are
    worked out where the file is parsed (in a worker, on a first look) and kept with it."""
    size = len(json.dumps(schema)) if json_len is None else json_len
    return {
        "schema": schema,
        "description": desc,
        "chars": size + len(desc),
        "repr_chars": len(str(schema)) + len(desc),
    }


def extract_yaml(text: str, path: str) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    # Only for YAML tools: a worker parsing Python tools never loads PyYAML.
    from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic

    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        return None, [yaml_diagnostic(exc, path, "rye-yaml", what="tool file")]
    if not isinstance(data, dict):
        return None, []
    desc = str(data.get("description") or "")
    schema = data.get("config_schema") or data.get("CONFIG_SCHEMA")
    params = data.get("parameters")
    if not isinstance(schema, dict) and isinstance(params, list):
        props: dict[str, Any] = {}
        required: list[str] = []
        for p in params:
            if isinstance(p, dict) and p.get("name"):
                name = str(p["name"])
                props[name] = {
                    "type": p.get("type", "string"),
                    "description": p.get("description", ""),
                }
                if p.get("required"):
                    required.append(name)
        if props:
            schema = {"type": "object", "properties": props, "required": required}
    if schema is None:
        return None, []  # no schema at all: not a tool (a helper, a config)
    if not isinstance(schema, dict):
        return None, [_not_a_mapping("the tool's schema", schema, path, _schema_line(text))]
    meta, problem = checked_meta(schema, desc, path, "the tool's schema")
    if problem is None:
        return meta, []
    return meta, [dataclasses.replace(problem, line=_schema_line(text))]


def _schema_line(text: str) -> int | None:
    """The line of a YAML tool's schema key (worked out only for a schema with a problem)."""
    from ctxscope.core.keylines import yaml_key_lines

    keys = yaml_key_lines(text)
    return next(
        (keys[(k,)] for k in ("config_schema", "CONFIG_SCHEMA", "parameters") if (k,) in keys),
        None,
    )


JS_EXTS = (".cjs", ".js", ".mjs", ".ts")
_JS_DUNDER = re.compile(r'(?:export\s+)?(?:const|let|var)\s+(__\w+__)\s*=\s*["\']([^"\']*)["\']')
_JS_SCHEMA = re.compile(
    r"(?:export\s+)?(?:const|let|var)\s+CONFIG_SCHEMA\s*(?::\s*\w+)?\s*=\s*(\{)"
)


def _balanced(text: str, start: int) -> str | None:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def _js_object(text: str) -> Any:
    """A JS object literal read as ryeos's javascript parser reads it (comments dropped,
    bare keys quoted, single quotes made double, trailing commas dropped, then JSON)."""
    cleaned = re.sub(r"//[^\n]*", "", text)
    cleaned = re.sub(r"/\*.*?\*/", "", cleaned, flags=re.DOTALL)
    cleaned = re.sub(r"(?<=[{,\n])\s*(\w+)\s*:", r' "\1":', cleaned)
    cleaned = cleaned.replace("'", '"')
    cleaned = re.sub(r",\s*([}\]])", r"\1", cleaned)
    try:
        return json.loads(cleaned)
    except (ValueError, RecursionError):
        return None


def extract_javascript(text: str, path: str) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """A JavaScript/TypeScript tool's metadata as ryeos 0.1 reads it (by pattern, never run):
    `CONFIG_SCHEMA = {…}` and `__tool_description__ = "…"`."""
    found = _JS_SCHEMA.search(text)
    literal = _balanced(text, found.start(1)) if found else None
    schema = _js_object(literal) if literal else None
    if not schema or not isinstance(schema, dict):
        return None, [
            Diagnostic(
                "warning",
                "no CONFIG_SCHEMA object literal readable in this JavaScript tool; the tool is "
                "not registered",
                path,
                code="rye-tool",
            )
        ]
    desc = dict(_JS_DUNDER.findall(text)).get("__tool_description__", "")
    return tool_meta(schema, desc), []


def parse_tool(text: str, path: str) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """A tool file's metadata from its text, by the file's type."""
    if path.endswith(".py"):
        return extract_python(text, path)
    if path.endswith(JS_EXTS):
        return extract_javascript(text, path)
    return extract_yaml(text, path)


def module_constants(text: str) -> dict[str, str]:
    """Top-level `NAME = "text"` (or implicitly joined strings) of a module, by AST only."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    value = ast.literal_eval(node.value)
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    continue
                if isinstance(value, str):
                    out[target.id] = value
    return out
