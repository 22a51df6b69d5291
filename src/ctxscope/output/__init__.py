"""Every rendering of engine results: text and markdown for the CLI and exports, and the one
JSON encoding of the `to_dict()` shapes.

`render(obj, fmt)` is the one door: every command and the app's exports build an object and
ask for it in a format (`text`, `markdown`, `json`, `html`). Each kind of object has its
renderers in one module of this package, which registers them with `renders(...)` when it
is imported; `RENDERERS` says which module that is, so that a command loads only its own.

Workspace text is untrusted: nothing here lets a control character reach a terminal raw
(`terminal_safe`, from `ctxscope.core.safetext`, for text and markdown; `dump_json` escapes
them), and a lone surrogate (a JSON or YAML escape such as `"\udc80"` in a config, or a file
name that is not UTF-8) is written as its escape `\udc80`, so every output encodes as UTF-8."""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable
from json.encoder import encode_basestring as _quote  # the C escaper where there is one
from typing import Any

from ctxscope.core.safetext import terminal_safe

__all__ = ["FORMATS", "dump_json", "render", "renders", "terminal_safe"]

FORMATS = ("text", "markdown", "json", "html")
"""What `render` may be asked for (an object has some of them: `formats(obj)`)."""

RENDERERS: dict[str, str] = {
    "ctxscope.output.views.SessionView": "ctxscope.output.views",
    "ctxscope.output.views.SpawnView": "ctxscope.output.views",
    "ctxscope.runtimes.rye.threadreport.ThreadReport": "ctxscope.output.thread",
    "ctxscope.output.explain.Explained": "ctxscope.output.explain",
    "ctxscope.output.check.Checked": "ctxscope.output.check",
    "ctxscope.report.Report": "ctxscope.output.report",
    "ctxscope.diff.changes.Comparison": "ctxscope.output.diff",
    "ctxscope.diff.runlist.RunsView": "ctxscope.output.runs",
}
"""The class of each object `render` takes (module.name) -> the module that registers its
renderers (imported on first use: a command or an export loads only what it writes)."""

_RENDERED: dict[type, dict[str, Callable[[Any], str]]] = {}


def renders(cls: type, **formats: Callable[[Any], str]) -> None:
    """Register the renderers of `cls`, by format (`text=`, `markdown=`, `json=`, `html=`).
    Text and markdown are made terminal-safe by `render`."""
    unknown = set(formats) - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown format(s) {sorted(unknown)}: one of {FORMATS}")
    _RENDERED[cls] = formats


def formats(obj: object) -> tuple[str, ...]:
    """The formats `obj` renders in."""
    return tuple(f for f in FORMATS if f in _renderers(obj))


def render(obj: object, fmt: str) -> str:
    """`obj` in format `fmt`, as every command prints it and the app exports it. Text and
    markdown are terminal-safe (`terminal_safe`); JSON is `dump_json`'s. Raises TypeError
    for an object nothing renders, ValueError for a format it has none of."""
    found = _renderers(obj)
    if fmt not in found:
        raise ValueError(
            f"{type(obj).__name__} has no {fmt} rendering (it has: {', '.join(formats(obj))})"
        )
    text = found[fmt](obj)
    return terminal_safe(text) if fmt in ("text", "markdown") else text


def _renderers(obj: object) -> dict[str, Callable[[Any], str]]:
    for cls in type(obj).__mro__:
        if cls not in _RENDERED:
            module = RENDERERS.get(f"{cls.__module__}.{cls.__qualname__}")
            if module is not None:
                importlib.import_module(module)
        if cls in _RENDERED:
            return _RENDERED[cls]
    raise TypeError(f"nothing renders a {type(obj).__name__}")


_C1 = re.compile(r"[\x7f-\x9f\ud800-\udfff]")
"""What `dump_json` escapes that JSON's own escaper leaves: DEL, C1, lone surrogates."""


def dump_json(data: Any) -> str:
    """Indented JSON, non-ASCII kept as is but DEL, C1 controls and lone surrogates escaped
    (JSON already escapes C0), so the output is strict JSON, encodes as UTF-8 and is safe on
    a terminal. No trailing newline.

    The text is `json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)`'s with
    those escapes (it leaves DEL, C1 and lone surrogates raw), made faster: with an indent
    the standard library encodes in pure Python, one generator per value; here each string
    goes through its C escaper and the pieces are joined once."""
    parts: list[str] = []
    _encode(data, "", parts.append)
    text = "".join(parts)
    if _may_hold_c1(text):
        text = _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _may_hold_c1(text: str) -> bool:
    """Whether `text` may hold DEL, a C1 control or a lone surrogate, told by quick finds
    instead of a search with the pattern (~20 ms on a 2 MB text with non-ASCII in it): DEL
    itself, and the bytes that lead every C1 control and every surrogate in UTF-8 (`\\xc2`,
    shared with U+00A0-U+00BF; `\\xed`, shared with U+D000-U+D7FF)."""
    if "\x7f" in text:
        return True
    if text.isascii():
        return False
    encoded = text.encode("utf-8", "surrogatepass")
    return b"\xc2" in encoded or b"\xed" in encoded


def _encode(value: Any, pad: str, add: Callable[[str], None]) -> None:
    if isinstance(value, str):
        add(_quote(value))
    elif value is None:
        add("null")
    elif value is True:
        add("true")
    elif value is False:
        add("false")
    elif isinstance(value, int):
        add(int.__repr__(value))
    elif isinstance(value, float):
        add(_float(value))
    elif isinstance(value, dict):
        if not value:
            add("{}")
            return
        inner = pad + "  "
        lead = "{\n" + inner
        for key, item in value.items():
            add(lead + _quote(_key(key)) + ": ")
            lead = ",\n" + inner
            _encode(item, inner, add)
        add("\n" + pad + "}")
    elif isinstance(value, list | tuple):
        if not value:
            add("[]")
            return
        inner = pad + "  "
        lead = "[\n" + inner
        for item in value:
            add(lead)
            lead = ",\n" + inner
            _encode(item, inner, add)
        add("\n" + pad + "]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value or value in (math.inf, -math.inf):
        raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
    return float.__repr__(value)


def _key(key: Any) -> str:
    """A dict key as JSON writes it (JSON keys are strings)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return "true" if key is True else "false" if key is False else "null"
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        return _float(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
