"""`check --against REV`: what a change does that a CI job should fail on — a session that
loses a file, crosses a budget, gets a file cut or a cut file cut further — as `check`
findings."""

from __future__ import annotations

from ctxscope.check import Finding, stable_scope
from ctxscope.diff.compare import Comparison, SessionDiff

GUARD_KINDS = ("lost", "truncated", "cut-more", "budget")
"""The finding kinds a change can add: `lost` (a file that reached the session no longer
does), `truncated` (a file newly cut), `cut-more` (a file cut on both sides whose cut now
leaves more of it out), `budget` (a session or section newly over its budget)."""


def regressions(result: Comparison, *, max_section_tokens: int | None = None) -> list[Finding]:
    """The findings the change from `result.before` to `result.after` adds."""
    out: list[Finding] = []
    for s in result.sessions:
        scope = stable_scope(s.session_key)
        out += _files(s, scope, result.before)
        out += _budget(s, scope, result.before, max_section_tokens)
    return out


def _files(s: SessionDiff, scope: str, before: str) -> list[Finding]:
    out = []
    for f in s.files:
        if f.lost:
            was = f.before or {}
            out.append(
                Finding(
                    "lost",
                    scope,
                    f"{f.name}: {was.get('status')} at {before} "
                    f"({int(was.get('injected_chars', 0)):,} chars), now "
                    f"{(f.after or {}).get('status', 'not listed')}: {f.why}",
                )
            )
        elif f.cut:
            out.append(Finding("truncated", scope, f"{f.name}: newly cut: {f.why}"))
        elif f.cut_more:
            was, now = f.before or {}, f.after or {}
            out.append(
                Finding(
                    "cut-more",
                    scope,
                    f"{f.name}: cut at {before} too, now {f.cut_more:,} chars more left out "
                    f"(injected {int(was.get('injected_chars', 0)):,} → "
                    f"{int(now.get('injected_chars', 0)):,} of "
                    f"{int(now.get('raw_chars', 0)):,} chars): {f.why}",
                )
            )
    return out


def _budget(
    s: SessionDiff, scope: str, before: str, max_section_tokens: int | None
) -> list[Finding]:
    out = []
    old, new = s.before, s.after
    if old is not None and new is not None and new.get("context_window"):
        window = new["context_window"]
        if new["total"] > window and old["total"] <= old["context_window"]:
            out.append(
                Finding(
                    "budget",
                    scope,
                    f"{old['total']:,} → {new['total']:,} tokens: now over the "
                    f"{window:,}-token context window (within it at {before})",
                )
            )
    if max_section_tokens is not None:
        for c in s.sections:
            if c.tokens_after > max_section_tokens >= c.tokens_before:
                out.append(
                    Finding(
                        "budget",
                        scope,
                        f"{c.heading}: {c.tokens_before:,} → {c.tokens_after:,} tokens: now "
                        f"over the {max_section_tokens:,}-token section budget",
                    )
                )
    return out
