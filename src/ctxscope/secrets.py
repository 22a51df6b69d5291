"""Masking of secret values before anything is displayed or exported.

Config files hold API keys and tokens. Every face of ctxscope (TUI, CLI, exports, verbose
script logs) passes config values through `mask_secrets` first.
"""

from __future__ import annotations

import json
import math
from typing import Any

MASK = "***"

STRONG_WORDS = ("token", "secret", "password", "passwd", "credential", "bearer", "authorization")
"""A key whose lower-cased name contains one of these anywhere holds a secret (`authTokens`,
`refresh_token`, `BEARER`, `dbPassword`)."""

WEAK_WORDS = frozenset({"pass", "pwd", "cookie"})
"""A key with one of these as a whole word holds a secret (`pass`, `db_pwd`), but
`passthrough` or `compass` do not."""

NOT_SECRET = frozenset(
    {
        # Plain settings whose names contain a secret word.
        "returnkey",
        "errorkey",
        "agentidoverridekey",
        "sessionkey",
        "requestersessionkey",
        "childsessionkey",
        "tokenizer",
        # Counts of tokens, not credentials.
        "tokens",
        "maxtokens",
        "mintokens",
        "contexttokens",
        "maxcontexttokens",
        "maxoutputtokens",
        "maxinputtokens",
        "inputtokens",
        "outputtokens",
        "totaltokens",
        "usedtokens",
        "budgettokens",
        "reservetokens",
        "reservetokensfloor",
        "softthresholdtokens",
        "keeprecenttokens",
        "maxcompletiontokens",
        "tokenlimit",
        "maxtokenlimit",
        "contexttokenlimit",
        "inputtokenlimit",
        "outputtokenlimit",
        "tokencount",
        "tokenbudget",
    }
)
"""Key names (lower-cased, `_`/`-` removed) known to hold plain settings or token counts."""


def _words(name: str) -> list[str]:
    """`dbPwd` → [db, pwd]; `api_key` → [api, key]; `APIKey` → [apikey]."""
    out: list[str] = []
    word = ""
    for i, ch in enumerate(name):
        if ch in "_-. ":
            out.append(word)
            word = ""
            continue
        if (
            ch.isupper()
            and word
            and (word[-1].islower() or (i + 1 < len(name) and name[i + 1].islower()))
        ):
            out.append(word)
            word = ""
        word += ch
    out.append(word)
    return [w.lower() for w in out if w]


def is_secret_key(name: str) -> bool:
    """True when a mapping key named `name` should have its value masked."""
    low = name.lower().replace("_", "").replace("-", "")
    if low in NOT_SECRET:
        return False
    if any(word in low for word in STRONG_WORDS):
        return True
    words = _words(name)
    return any(w in WEAK_WORDS or w.endswith("key") for w in words)


def describe(value: Any) -> str:
    """A value for a diagnostic: scalars as JSON, containers by their type only, so a secret
    nested in a wrongly-typed value is never echoed."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:59] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if value is None or isinstance(value, bool | int):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value) if not math.isfinite(value) else json.dumps(value)
    return f"a {type(value).__name__}"


def mask_secrets(obj: Any) -> Any:
    """A copy of `obj` with the value of every secret-named key replaced by `***`.

    Dicts and lists are walked recursively; other values are returned unchanged. The input is
    never modified.
    """
    if isinstance(obj, dict):
        return {
            k: (
                MASK
                if isinstance(k, str) and is_secret_key(k) and v is not None
                else mask_secrets(v)
            )
            for k, v in obj.items()
        }
    if isinstance(obj, list | tuple):
        return [mask_secrets(v) for v in obj]
    return obj
