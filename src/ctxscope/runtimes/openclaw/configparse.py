"""An OpenClaw config file's text parsed: JSON5 (through the C parser, the pure one only to
locate an error) or YAML by its extension, and a refusal named with its file, line and
column (`ConfigError`)."""

from __future__ import annotations

import re
from typing import Any

import pyjson5

from ctxscope.core.model import Diagnostic
from ctxscope.core.yamlload import load_yaml, yaml, yaml_diagnostic


class ConfigError(Exception):
    """A config file that cannot be parsed; carries the diagnostic (file, line, column)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def parse_config_text(text: str, path: str) -> dict[str, Any]:
    """Parse config text as JSON5 or YAML (by extension); raise ConfigError with a location."""
    if path.endswith((".yaml", ".yml")):
        try:
            data = load_yaml(text)
        except yaml.YAMLError as exc:
            raise ConfigError(yaml_diagnostic(exc, path, "config-parse")) from None
    else:
        data = parse_json5(text, path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            Diagnostic(
                "error",
                f"the config must be an object, not {type(data).__name__}",
                path,
                1,
                1,
                code="config-shape",
            )
        )
    return data


def parse_json5(text: str, path: str) -> Any:
    """JSON5 through the C parser (pyjson5, hundreds of times faster); when it refuses the
    text, the pure-Python parser decides and names the line and column of the problem."""
    try:
        return pyjson5.decode(text)
    except pyjson5.Json5Exception as exc:
        if len(text) > PURE_PARSER_MAX_CHARS:
            raise ConfigError(_located(exc, text, path)) from None
    import json5  # the pure parser, only to locate an error (it names line and column)

    try:
        return json5.loads(text)
    except ValueError as exc:
        raise ConfigError(json5_diagnostic(exc, path, text)) from None
    except RecursionError:
        raise ConfigError(
            Diagnostic("error", "invalid JSON5: nested too deeply", path, code="config-parse")
        ) from None


PURE_PARSER_MAX_CHARS = 16 * 1024
"""The longest text the pure-Python parser is asked to locate an error in: it reads about
10 kB a second, so a 2 MiB file would hold it for minutes. A longer text is located by the
C parser's offset."""

_NEAR = re.compile(r" near (\d+)")
_CODE_POINT = re.compile(r"U\+([0-9A-Fa-f]{4,6})")
_BYTES_REPR = re.compile(r"\bb'([A-Za-z0-9_ ]*)'")  # the C parser names a token as b'string'


def _quoted(m: re.Match[str]) -> str:
    """`U+006F` -> `"o"`; a character that does not print (a control, a lone surrogate, a
    line break) keeps its code point."""
    ch = chr(min(int(m.group(1), 16), 0x10FFFF))
    return f'"{ch}"' if ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF else m.group()


def _located(exc: Exception, text: str, path: str) -> Diagnostic:
    """The C parser's error (`... near OFFSET ...`) at its line and column."""
    message = str(exc.args[0]) if exc.args else str(exc)
    m = _NEAR.search(message)
    if m is None:
        return Diagnostic(
            "error", f"invalid JSON5: {_one_line(message)}", path, code="config-parse"
        )
    offset = min(int(m.group(1)), len(text))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    detail = message[: m.start()] + message[m.end() :]
    detail = _one_line(_CODE_POINT.sub(_quoted, _BYTES_REPR.sub(r"\1", detail)))
    return Diagnostic("error", f"invalid JSON5: {detail}", path, line, col, code="config-parse")


_JSON5_ERR = re.compile(r"^<string>:(\d+)\s+(.*?)(?: at column (\d+))?$", re.S)


_CONTROL_NAMES = {"\n": "line break", "\r": "carriage return", "\t": "tab"}
_QUOTED_CONTROL = re.compile(r'"([\x00-\x1f\x7f])"')
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _one_line(message: str) -> str:
    """The parser's message with the character it quotes named when it is a control
    character (`Unexpected "\n"` -> `Unexpected line break`), on one line."""
    named = _QUOTED_CONTROL.sub(
        lambda m: _CONTROL_NAMES.get(m.group(1), f"control character U+{ord(m.group(1)):04X}"),
        message,
    )
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", named)


def json5_diagnostic(exc: ValueError, path: str, text: str | None = None) -> Diagnostic:
    """The pure parser's error at its line and column. A comma too many (`1,,`, `{,`): the
    parser takes the comma as a trailing one and names the character after it; the
    diagnostic names the comma, where the text is (`text`)."""
    msg = str(exc)
    m = _JSON5_ERR.match(msg)
    if m:
        line, col, detail = int(m.group(1)), int(m.group(3)) if m.group(3) else None, m.group(2)
        if text is not None and col is not None and _comma_too_many(text, line, col):
            col, detail = col - 1, 'Unexpected ","'
        return Diagnostic(
            "error", f"invalid JSON5: {_one_line(detail)}", path, line, col, code="config-parse"
        )
    return Diagnostic("error", f"invalid JSON5: {_one_line(msg)}", path, code="config-parse")


_BLOCK_COMMENT_END = re.compile(r"/\*.*?\*/\s*$", re.S)


def _comma_too_many(text: str, line: int, col: int) -> bool:
    """The character before line `line`, column `col` is a comma that follows another comma
    or an opening bracket (whitespace and comments between)."""
    lines = text.split("\n")
    if not 0 < line <= len(lines) or col < 2 or lines[line - 1][col - 2 : col - 1] != ",":
        return False
    before = "\n".join([*lines[: line - 1], lines[line - 1][: col - 2]])
    while True:
        kept = "\n".join(_no_line_comment(part) for part in before.split("\n")).rstrip()
        if _BLOCK_COMMENT_END.search(kept) is None:
            break
        before = kept[: kept.rfind("/*")]
    return kept.endswith((",", "{", "["))


def _no_line_comment(line: str) -> str:
    """`line` without a `//` comment (one outside a string: a config's strings seldom hold
    `//` before a comma too many)."""
    at = line.find("//")
    return line if at < 0 or line.count('"', 0, at) % 2 else line[:at]
