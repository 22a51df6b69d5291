"""ryeos 0.1.30's own sizes for the items the stand-in system tier stands in for.

`system/measured.json` is written by `benchmarks/measure_ryeos.py` from an installed ryeos
(its tool extractor, its primaries, its knowledge executor): facts only (ids, file types,
sizes, parameter names), no text. Without ryeos installed, a stand-in tool or primary is
charged these sizes, so the budget and which tools fit are ryeos's own.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from ctxscope.runtimes.rye.tiers import SYSTEM_SPACE

FILE = SYSTEM_SPACE.parent / "measured.json"


@cache
def facts() -> dict[str, Any]:
    """The measured facts (empty sections if the file is missing from this install)."""
    try:
        data = json.loads(FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    return data if isinstance(data, dict) else {}


def measured_from() -> str:
    """`ryeos 0.1.30`: the release the sizes were measured on."""
    return f"ryeos {facts().get('ryeos') or '(unknown)'}"


def tool_fact(tool_id: str, primary: str | None = None) -> dict[str, Any] | None:
    """What ryeos measured for tool `tool_id` (or for primary action `primary`)."""
    table = facts().get("primaries" if primary else "tools") or {}
    fact = table.get(primary or tool_id)
    return fact if isinstance(fact, dict) else None


def tool_chars(fact: dict[str, Any], size: str, description: str | None = None) -> int:
    """The palette size ryeos gives the tool: its schema (Python repr, or JSON) plus its
    description (`description`, when the runtime rewrites it, else the measured one)."""
    schema = fact["schema_repr"] if size == "python_repr" else fact["schema_json"]
    desc = len(description) if description is not None else int(fact["description"])
    return int(schema) + desc


def knowledge_chars(item_id: str) -> int | None:
    """The body size ryeos gives bundled knowledge item `item_id`, if measured."""
    fact = (facts().get("knowledge") or {}).get(item_id)
    return int(fact["body"]) if isinstance(fact, dict) and "body" in fact else None
