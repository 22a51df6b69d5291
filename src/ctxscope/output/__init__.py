"""Every rendering of engine results: text and markdown for the CLI and exports, and the one
JSON encoding of the `to_dict()` shapes."""

from __future__ import annotations

import json
from typing import Any


def dump_json(data: Any) -> str:
    """Indented JSON, non-ASCII kept as is (no trailing newline)."""
    return json.dumps(data, indent=2, ensure_ascii=False)
