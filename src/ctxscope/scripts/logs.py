"""The `[context-script]` log lines, word for word as OpenClaw prints them.

- `log: true`: `[context-script] <id> (<uri>) → N chars` once the script has run;
- `log: "verbose"` adds, after it, `[context-script] <id> command: <uri> k=<json> ...`
  (`(no args)` without an argMap), `[context-script] <id> output:` + newline + the output, and
  `[context-script] <id> proposed agentIdOverride: <agent>`;
- a failure is always logged (whatever `log` says): `[context-script] <id> failed: <message>`;
- once per spawn, when any entry is verbose and some script proposed an override, the
  candidates line (see `candidates_line`).

Values shown in a command line (the `cfg` variable above all) and the uri have their secrets masked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxscope.core.secrets import mask_secrets
from ctxscope.scripts.entries import OverrideCandidate, ScriptEntry

PREFIX = "[context-script]"


def summary_line(entry: ScriptEntry, chars: int) -> str:
    return f"{PREFIX} {entry.id} ({entry.shown_uri}) → {chars} chars"


def command_line(entry: ScriptEntry, args: dict[str, Any]) -> str:
    if not entry.arg_map:
        desc = "(no args)"
    else:
        desc = " ".join(f"{k}={_js_json(mask_secrets(v))}" for k, v in args.items())
    return f"{PREFIX} {entry.id} command: {entry.shown_uri} {desc}"


def output_line(entry: ScriptEntry, output: str) -> str:
    return f"{PREFIX} {entry.id} output:\n{output}"


def proposed_line(entry: ScriptEntry, agent_id: str) -> str:
    return f"{PREFIX} {entry.id} proposed agentIdOverride: {agent_id}"


def failed_line(entry: ScriptEntry, message: str) -> str:
    return f"{PREFIX} {entry.id} failed: {message}"


def priority_text(priority: float) -> str:
    """100 → `100`, 2.5 → `2.5` (as JavaScript prints numbers)."""
    if isinstance(priority, float) and priority.is_integer():
        return str(int(priority))
    return str(priority)


def candidates_line(
    candidates: Sequence[OverrideCandidate], winner: OverrideCandidate | None
) -> str:
    desc = ", ".join(
        f"{c.script_id}→{c.agent_id} (pri:{priority_text(c.priority)} {'✓' if c.valid else '✗'})"
        for c in candidates
    )
    tail = f" → winner: {winner.script_id}→{winner.agent_id}" if winner else " → none valid"
    return f"{PREFIX} agentIdOverride candidates: [{desc}]{tail}"


def _js_json(value: Any) -> str:
    """`JSON.stringify(value)`; undefined prints as `undefined`."""
    if value is None:
        return "undefined"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
