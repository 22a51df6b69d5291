"""Workspace text made safe to put on a terminal: every control character (but newline and
tab) becomes a visible stand-in, so an escape sequence in a file name, a config value or a
script's output cannot drive the terminal (set the clipboard with OSC 52, retitle the window,
move the cursor). A lone surrogate (a JSON or YAML escape such as `"\\udc80"` in a config, or
a file name that is not UTF-8), which no encoding can write, is shown as its escape. The CLI's
text and markdown output and the TUI use this one function.

A name from input put on one line of output (a table cell, a heading, a diagnostic: a file
name, a session key, a label, a tool name, an agent folder) also goes through `line_safe`,
so that a newline or tab in it cannot start a forged row or diagnostic."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable

UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters but newline and tab (C0, DEL and C1), and lone surrogates."""
_C1 = re.compile(r"[\x80-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    if code >= 0xD800:
        return f"\\u{code:04x}"
    return "\u2421" if code == 0x7F else f"\\x{code:02x}"


_NOT_SUSPECT = bytes(
    b for b in range(256) if not ((b < 0x20 and b not in (0x09, 0x0A)) or b in (0x7F, 0xC2, 0xED))
)
"""The UTF-8 bytes no unsafe character is or starts with: all but C0 (newline and tab
aside), DEL, and the lead bytes of C1 controls (`\\xc2`) and of surrogates (`\\xed`)."""
_LONG = 4096
"""From this length a text is first checked as bytes, at C speed, before it is searched."""


def terminal_safe(text: str) -> str:
    """`text` with every control character (but newline and tab) shown as a visible stand-in:
    C0 controls as their Unicode control pictures (ESC → ␛, CR → ␍), DEL as ␡ and C1 controls
    as `\\x9b`-style escapes, a lone surrogate as its escape `\\udc80`. Escape sequences in
    workspace files cannot drive the terminal."""
    if len(text) >= _LONG and not text.encode("utf-8", "surrogatepass").translate(
        None, _NOT_SUSPECT
    ):
        return text  # not one byte an unsafe character could be made of
    return UNSAFE.sub(_stand_in, text)


def offset_map(text: str) -> Callable[[int], int]:
    """Where each offset into `text` lands in `terminal_safe(text)`: C0 and DEL stand-ins
    are one character, a C1 escape four and a surrogate's six, so offsets after one move on
    by three or five."""
    c1 = [m.start() for m in _C1.finditer(text)]
    lone = [m.start() for m in _SURROGATE.finditer(text)]
    if not c1 and not lone:
        return lambda offset: offset
    return lambda offset: offset + 3 * bisect_left(c1, offset) + 5 * bisect_left(lone, offset)


_LINE_BREAKS = str.maketrans({"\n": "⏎", "\t": "⇥", "\u2028": "⏎", "\u2029": "⏎"})
_BREAK_MARKS = ("\n", "\t", "\u2028", "\u2029")


def one_line(text: str) -> bool:
    """Whether `text` is surely one line as it is (`line_safe` leaves it unchanged)."""
    return "\n" not in text and "\t" not in text and text.isascii()


def all_one_line(texts: Iterable[str]) -> bool:
    """Whether every text of `texts` is one line as it is (`line_safe` leaves each as it is):
    checked on them joined, at C speed (a table of thousands of cells, many of them not
    ASCII, `└─`, checked in a few milliseconds)."""
    joined = "\0".join(texts)
    return not any(mark in joined for mark in _BREAK_MARKS)


def line_safe(text: str) -> str:
    """`text` fit for one line of text or markdown output: a newline (and a Unicode line or
    paragraph separator) shown as ⏎, a tab as ⇥; `terminal_safe` does the rest. JSON keeps
    the text as it is."""
    return text if one_line(text) else text.translate(_LINE_BREAKS)
