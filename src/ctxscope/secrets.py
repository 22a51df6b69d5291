"""Masking of secret values before anything is displayed or exported.

Config files hold API keys and tokens. Every face of ctxscope (TUI, CLI, exports, verbose
script logs) passes config values through `mask_secrets` first.
"""

from __future__ import annotations

from typing import Any

MASK = "***"

SECRET_WORDS = ("token", "key", "secret", "password", "passwd", "credential")
"""A mapping key whose lower-cased name contains one of these words holds a secret."""

NOT_SECRET = frozenset(
    {
        "returnkey",
        "errorkey",
        "agentidoverridekey",
        "sessionkey",
        "requestersessionkey",
        "childsessionkey",
        "tokenizer",
    }
)
"""Key names that contain a secret word but are known to hold plain settings."""


def is_secret_key(name: str) -> bool:
    """True when a mapping key named `name` should have its value masked."""
    low = name.lower().replace("_", "").replace("-", "")
    if low in NOT_SECRET or low.endswith("tokens"):
        return False  # `tokens`, `maxTokens`, `used_tokens`: counts, not credentials
    return any(word in low for word in SECRET_WORDS)


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
