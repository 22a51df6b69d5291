"""Secret masking: credentials are hidden in every display and export; counts are not."""

from __future__ import annotations

from ctxscope import Inspector
from ctxscope.core.secrets import MASK, describe, is_secret_key, looks_like_credential, mask_secrets


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


def test_a_secret_is_known_by_its_plural_key_its_shape_and_its_place_in_a_url():
    cfg = {
        "apiKeys": ["k-one", "k-two"],
        "ssh_keys": {"deploy": "k-three"},
        "note": "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt",  # a plain key, a credential's shape
        "owner": "ghp_0123456789abcdefABCDEF0123",
        "hook": "https://bot:hunter2@hooks.example/in?token=t-four&room=ops&key=k-five",
        "page": "https://example.com/docs?q=tokens",
        "name": "Wren",
    }
    masked = mask_secrets(cfg)
    assert masked["apiKeys"] == MASK and masked["ssh_keys"] == MASK
    assert masked["note"] == MASK and masked["owner"] == MASK
    assert masked["hook"] == "https://bot:***@hooks.example/in?token=***&room=ops&key=***"
    assert masked["page"] == cfg["page"] and masked["name"] == "Wren"


def test_a_number_under_a_key_named_for_tokens_is_a_count_and_stays_readable():
    cfg = {
        "maxTotalTokens": 8000,
        "reserveTokensFloor": 2000,
        "authTokens": ["t-one"],  # text under the same kind of name is a credential
        "botToken": 123456,  # a singular token is a credential whatever its type
        "compaction": {"maxHistoryTokens": 4096, "summaryTokens": "t-two"},
    }
    masked = mask_secrets(cfg)
    assert masked["maxTotalTokens"] == 8000 and masked["reserveTokensFloor"] == 2000
    assert masked["authTokens"] == MASK and masked["botToken"] == MASK
    assert masked["compaction"] == {"maxHistoryTokens": 4096, "summaryTokens": MASK}


def test_a_diagnostic_names_the_key_and_type_never_the_secret():
    assert describe({"value": "sk-live"}, "apiKey") == "an object"
    assert describe("sk-short", "apiKey") == "a string of 8 characters"
    assert describe("typo", "label") == '"typo"'
    assert describe("https://u:pw@h/x?token=t", "uri") == '"https://u:***@h/x?token=***"'


def test_plain_words_after_basic_bearer_or_sk_stay_readable():
    # an agent's name, a label, a skill: words, not credentials (no digit, nothing encoded)
    cfg = {
        "name": "Basic Assistant",
        "label": "Bearer instructions",
        "skill": "sk-learn-model-configuration",
        "mood": "basic formatting",
    }
    assert mask_secrets(cfg) == cfg
    # the real shapes stay masked
    for value in (
        "Basic dXNlcjpwYXNz",  # user:pass
        "Bearer abcDEF123456ghi",
        "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlMTIz",
        "sk-proj-AbCdEf0123456789xyz",
        "sk-" + "a1" * 24,
    ):
        assert looks_like_credential(value), value


def test_a_token_given_as_a_urls_user_name_is_masked():
    token = "ghp_0123456789abcdefABCDEF0123"
    cfg = {"repo": f"https://{token}@github.com/org/tools.git", "plain": "https://git@host/x"}
    masked = mask_secrets(cfg)
    assert masked["repo"] == "https://***@github.com/org/tools.git"
    assert masked["plain"] == cfg["plain"]


def test_a_secret_in_a_urls_fragment_is_masked():
    # OAuth's implicit flow hands the token back in the fragment
    cfg = {
        "callback": "https://app.example/cb#access_token=t-six&state=ok",
        "docs": "https://example.com/guide#install",
    }
    masked = mask_secrets(cfg)
    assert masked["callback"] == "https://app.example/cb#access_token=***&state=ok"
    assert masked["docs"] == cfg["docs"]


def test_a_url_python_cannot_parse_still_has_its_password_masked():
    # a mistyped IPv6 host: urlsplit refuses it, but the password is still a password
    cfg = {"hook": "http://u:pw-in-url@[::1/x?token=t-seven", "bare": "http://[::1/x"}
    masked = mask_secrets(cfg)
    assert masked["hook"] == "http://u:***@[::1/x?token=***"
    assert masked["bare"] == cfg["bare"]


def test_a_diagnostic_never_quotes_a_credential_shaped_value_under_a_plain_key():
    # `argMap: {target: "sk-..."}`: a key pasted where a spawn variable's name goes
    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"
    assert describe(key, "target") == f"a string of {len(key)} characters"
    assert describe("Bearer abc123456789", None) == "a string of 19 characters"
    assert describe("targetAgentId", "target") == '"targetAgentId"'
