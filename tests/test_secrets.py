"""Secret masking: credentials are hidden in every display and export; counts are not."""

from __future__ import annotations

from ctxscope import Inspector
from ctxscope.secrets import MASK, is_secret_key, mask_secrets


def test_credentials_are_masked_at_any_depth():
    cfg = {
        "models": {"providers": {"openai": {"apiKey": "sk-live-123", "baseUrl": "https://x"}}},
        "gateway": {"auth": {"token": "abc", "password": "pw"}},
        "channels": [{"bot_token": "t", "name": "tg"}],
    }
    masked = mask_secrets(cfg)
    assert masked["models"]["providers"]["openai"] == {"apiKey": MASK, "baseUrl": "https://x"}
    assert masked["gateway"]["auth"] == {"token": MASK, "password": MASK}
    assert masked["channels"] == [{"bot_token": MASK, "name": "tg"}]
    assert cfg["gateway"]["auth"]["token"] == "abc"  # the input is not modified


def test_counts_and_plain_settings_are_not_secrets():
    for name in (
        "tokens",
        "maxTokens",
        "context_tokens",
        "budget_tokens",
        "tokenizer",
        "session_key",
        "requesterSessionKey",
        "returnKey",
        "agentIdOverrideKey",
    ):
        assert not is_secret_key(name), name


def test_a_whole_report_survives_masking_unchanged(make_workspace):
    ws = make_workspace({"AGENTS.md": "a"})
    report = Inspector(ws, scenario={"child_id": "x"}).report()
    data = {"requester": report.requester.to_dict(), "spawn": report.spawn.to_dict()}
    assert mask_secrets(data) == data
