"""The output pipeline of a context script: what of its output reaches the task.

Output that is not a JSON object (plain text, invalid JSON, a JSON string/array/number) is
injected as-is. A JSON object goes through, in order: `errorKey`; the standard error shapes
(`error` string/object, `errors` list, `status: "error"`, `ok: false`); `returnKey`; the
first non-null of `message`/`content`/`text`/`result`; else the whole object as JSON.
The `agentIdOverrideKey` value is read from the raw object before all that, so a script can
propose an override and still fail.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ctxscope.core.record import record
from ctxscope.scripts.entries import ScriptEntry

CONTENT_KEYS = ("message", "content", "text", "result")


class ScriptOutputError(Exception):
    """The script's JSON said it failed; the message is the user-facing error text."""


@record
class Parsed:
    content: str
    """What to inject ("" = nothing)."""
    error: str | None = None
    override: str | None = None
    is_json: bool = False
    looks_like_bad_json: str | None = None
    """When the output starts like a JSON object but does not parse: the parser's message."""


def parse_output(entry: ScriptEntry, output: str) -> Parsed:
    """Run the pipeline on a script's (already stripped) output."""
    if not output:
        return Parsed("")
    try:
        obj = json.loads(output)
    except ValueError as exc:
        bad = str(exc) if output.startswith("{") else None
        return Parsed(output, looks_like_bad_json=bad)
    except RecursionError:
        return Parsed(output, looks_like_bad_json="JSON nested too deeply to read")
    if not isinstance(obj, dict):
        return Parsed(output)
    override = _override(entry, obj)
    try:
        content = extract_content(entry, obj)
    except ScriptOutputError as exc:
        return Parsed("", error=str(exc), override=override, is_json=True)
    return Parsed(content.strip(), override=override, is_json=True)


def _override(entry: ScriptEntry, obj: dict[str, Any]) -> str | None:
    key = entry.agent_id_override_key
    if not key:
        return None
    value = obj.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def extract_content(entry: ScriptEntry, obj: dict[str, Any]) -> str:
    """The content to inject from a JSON object, or `ScriptOutputError`."""
    sid = entry.id
    if entry.error_key and js_truthy(obj.get(entry.error_key)):
        value = obj[entry.error_key]
        text = value if isinstance(value, str) else to_json(value)
        raise ScriptOutputError(f"Script {sid} returned error ({entry.error_key}): {text}")
    detect_standard_errors(sid, obj)
    if entry.return_key:
        if entry.return_key not in obj:
            raise ScriptOutputError(
                f'Script {sid}: returnKey "{entry.return_key}" not found in response'
            )
        return as_text(obj[entry.return_key])
    for key in CONTENT_KEYS:
        if obj.get(key) is not None:
            return as_text(obj[key])
    return to_json(obj)


def detect_standard_errors(sid: str, obj: dict[str, Any]) -> None:
    """Raise for the error shapes of OpenAI/Anthropic-style and REST-style responses."""
    error = obj.get("error")
    if js_truthy(error):
        if isinstance(error, str):
            raise ScriptOutputError(f"Script {sid} returned error: {error}")
        if isinstance(error, dict):
            detail = error.get("message")
            if detail is None:
                detail = error.get("type")
            text = to_json(error) if detail is None else js_string(detail)
            raise ScriptOutputError(f"Script {sid} returned error: {text}")
    errors = obj.get("errors")
    if isinstance(errors, list) and errors:
        parts = []
        for item in errors:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, dict) and "message" in item:
                parts.append(js_string(item["message"]))
            else:
                parts.append(to_json(item))
        raise ScriptOutputError(f"Script {sid} returned errors: {'; '.join(parts)}")
    message = obj.get("message")
    if obj.get("status") == "error":
        text = message if isinstance(message, str) else "status=error"
        raise ScriptOutputError(f"Script {sid} returned error: {text}")
    if obj.get("ok") is False:
        text = message if isinstance(message, str) else "ok=false"
        raise ScriptOutputError(f"Script {sid} returned error: {text}")


def as_text(value: Any) -> str:
    """Strings as-is; anything else as compact JSON (null gives "", i.e. nothing to inject)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else to_json(value)


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: empty objects and arrays are true, 0/""/null/false are not."""
    if value is None or value is False or value == "":
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    return True


def js_string(value: Any) -> str:
    """`String(value)` as JavaScript would print it, for JSON values."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    return to_json(value)
