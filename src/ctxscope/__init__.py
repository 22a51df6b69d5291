"""ctxscope: see exactly what an agent and each of its subagents is told before it runs."""

from __future__ import annotations

from typing import Any

from ctxscope.core.version import __version__

__all__ = ["Inspector", "__version__", "inspect"]


def __getattr__(name: str) -> Any:
    # Lazy, so that importing one engine module does not import the whole engine.
    if name in ("inspect", "Inspector"):
        from ctxscope import api

        return getattr(api, name)
    raise AttributeError(name)
