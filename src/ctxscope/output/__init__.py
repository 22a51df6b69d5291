"""Every rendering of engine results: text and markdown for the CLI and exports, and the one
JSON encoding of the `to_dict()` shapes.

Workspace text is untrusted: nothing here lets a control character reach a terminal raw
(`terminal_safe` for text and markdown; `dump_json` escapes them)."""

from __future__ import annotations

import json
import re
from typing import Any

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters but newline and tab: C0, DEL and C1."""
_C1 = re.compile(r"[\x7f-\x9f]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    return "\u2421" if code == 0x7F else f"\\x{code:02x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character (but newline and tab) shown as a visible stand-in:
    C0 controls as their Unicode control pictures (ESC → ␛, CR → ␍), DEL as ␡ and C1 controls
    as `\\x9b`-style escapes. Escape sequences in workspace files cannot drive the terminal."""
    return _UNSAFE.sub(_stand_in, text)


def dump_json(data: Any) -> str:
    """Indented JSON, non-ASCII kept as is but DEL and C1 controls escaped (JSON already
    escapes C0), so the output is strict JSON and safe on a terminal. No trailing newline."""
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
