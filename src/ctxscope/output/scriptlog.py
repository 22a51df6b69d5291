"""Context-script log lines laid out for reading.

A verbose script's command line is logged as the runtime prints it, every argument on one
line (`k=<JSON>`, the whole gateway config for `cfg`: thousands of characters). Shown here,
each argument gets a line of its own and a JSON value too long for one line is indented
over several, as wide as the output allows. The values are those of the log line, whose
secrets are already masked; a line that is not a command line, or that does not read back
as one, is shown as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ctxscope.scripts.entries import ScriptResult
from ctxscope.scripts.logs import PREFIX

INDENT = 2
_UNDEFINED = object()
"""An argument the runtime prints as `undefined` (a variable with no value)."""


def laid_out(line: str, results: Iterable[ScriptResult], width: int) -> list[str]:
    """`line` (one log line of `results`' scripts) as lines of at most about `width`
    columns; a JSON string longer than that stays whole on its line."""
    for r in results:
        head = f"{PREFIX} {r.id} command: {r.uri}"
        if line.startswith(head + " ") and line != f"{head} (no args)":
            args = _arguments(line[len(head) + 1 :])
            if args is not None:
                return [head] + [
                    text for key, value in args for text in _value(value, f"{key}=", INDENT, width)
                ]
    return line.split("\n")


def _arguments(text: str) -> list[tuple[str, Any]] | None:
    """`k=<JSON> k2=undefined ...` read back, or None when it does not read as that."""
    decoder = json.JSONDecoder()
    args: list[tuple[str, Any]] = []
    at = 0
    while at < len(text):
        eq = text.find("=", at)
        if eq <= at:
            return None
        key, at = text[at:eq], eq + 1
        value: Any
        if text.startswith("undefined", at):
            value, at = _UNDEFINED, at + len("undefined")
        else:
            try:
                value, at = decoder.raw_decode(text, at)
            except ValueError:
                return None
        args.append((key, value))
        if at < len(text):
            if text[at] != " ":
                return None
            at += 1
    return args


def _value(value: Any, label: str, indent: int, width: int) -> list[str]:
    """`label` + `value` at `indent`: on one line when it fits, else a JSON object or list
    opened on the first line, one member per line below it, indented one step further."""
    pad = " " * indent
    if value is _UNDEFINED:
        return [f"{pad}{label}undefined"]
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if indent + len(label) + len(flat) <= width or not value or not isinstance(value, dict | list):
        return [pad + label + flat]
    members: list[tuple[str, Any]] = (
        [(json.dumps(k, ensure_ascii=False) + ": ", v) for k, v in value.items()]
        if isinstance(value, dict)
        else [("", v) for v in value]
    )
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    lines = [pad + label + opening]
    for n, (key, member) in enumerate(members):
        block = _value(member, key, indent + INDENT, width - 1)  # room for the comma
        if n < len(members) - 1:
            block[-1] += ","
        lines += block
    lines.append(pad + closing)
    return lines
