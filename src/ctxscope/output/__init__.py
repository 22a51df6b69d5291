"""Every rendering of engine results: text and markdown for the CLI and exports, and the one
JSON encoding of the `to_dict()` shapes.

Workspace text is untrusted: nothing here lets a control character reach a terminal raw
(`terminal_safe` for text and markdown; `dump_json` escapes them)."""

from __future__ import annotations

import json
from typing import Any

_KEEP = {"\n", "\t"}


def _unsafe(ch: str) -> bool:
    code = ord(ch)
    return (code < 0x20 and ch not in _KEEP) or 0x7F <= code <= 0x9F


def terminal_safe(text: str) -> str:
    """`text` with every control character (but newline and tab) shown as a visible stand-in:
    C0 controls as their Unicode control pictures (ESC → ␛, CR → ␍), DEL as ␡ and C1 controls
    as `\\x9b`-style escapes. Escape sequences in workspace files cannot drive the terminal."""
    if not any(_unsafe(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if not _unsafe(ch):
            out.append(ch)
        elif ord(ch) < 0x20:
            out.append(chr(0x2400 + ord(ch)))
        elif ch == "\x7f":
            out.append("\u2421")
        else:
            out.append(f"\\x{ord(ch):02x}")
    return "".join(out)


def dump_json(data: Any) -> str:
    """Indented JSON, non-ASCII kept as is but DEL and C1 controls escaped (JSON already
    escapes C0), so the output is strict JSON and safe on a terminal. No trailing newline."""
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    if any(0x7F <= ord(ch) <= 0x9F for ch in text):
        text = "".join(f"\\u{ord(ch):04x}" if 0x7F <= ord(ch) <= 0x9F else ch for ch in text)
    return text
