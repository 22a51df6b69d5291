"""Session-key classification and prompt modes."""

from __future__ import annotations

import pytest

from ctxscope.runtimes.openclaw.sessionkeys import child_session_key, classify
from ctxscope.runtimes.profiles import load_profile

OPENCLAW = load_profile("openclaw-2026.2")
GOCLAW = load_profile("goclaw-plan")  # the plan: `:spawn:` keys are subagents


@pytest.mark.parametrize(
    ("key", "agent", "kind", "mode"),
    [
        ("agent:main:main", "main", "main", "full"),
        ("main", "main", "main", "full"),
        ("agent:coder:telegram:direct:12345", "coder", "other", "full"),
        ("agent:main:subagent:4f2a", "main", "subagent", "minimal"),
        ("agent:main:SubAgent:4f2a", "main", "subagent", "minimal"),
        ("agent:x:CRON:y", "x", "cron", "minimal"),
        ("agent:main:cron:nightly", "main", "cron", "minimal"),
        ("subagent:legacy", "main", "subagent", "minimal"),
        ("SUBAGENT:legacy", "main", "subagent", "minimal"),
        ("AGENT:MAIN:CRON:J", "main", "other", "full"),
        ("agent:main", "main", "other", "full"),
        ("agent:Coder:main", "coder", "main", "full"),
    ],
)
def test_openclaw_classification(key, agent, kind, mode):
    info = classify(key, OPENCLAW)
    assert (info.agent_id, info.kind, info.mode) == (agent, kind, mode)
    assert info.rule


def test_case_sensitive_agent_prefix_is_explained():
    info = classify("AGENT:MAIN:CRON:J", OPENCLAW)
    assert "case-sensitive" in info.rule


def test_forced_mode_none():
    info = classify("agent:main:main", OPENCLAW, forced_mode="none")
    assert info.mode == "none" and "forced" in info.rule


def test_goclaw_uses_spawn_marker():
    assert classify("agent:main:spawn:abc123", GOCLAW).kind == "subagent"
    assert classify("agent:main:spawn:abc123", GOCLAW).mode == "minimal"
    assert classify("agent:main:subagent:abc", GOCLAW).kind == "other"
    assert classify("agent:main:spawn:abc123", OPENCLAW).kind == "other"


def test_child_keys():
    assert child_session_key(OPENCLAW, "coder", "fixed") == "agent:coder:subagent:fixed"
    assert child_session_key(GOCLAW, "main", "abc") == "agent:main:spawn:abc"
    key = child_session_key(OPENCLAW, "coder")
    assert key.startswith("agent:coder:subagent:") and len(key.split(":")[-1]) == 36
