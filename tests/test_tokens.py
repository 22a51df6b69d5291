"""Token counting: the script-aware estimate, chars/4, and exact counts that never download
anything."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ctxscope.core.tokens import (
    CHARS4,
    ESTIMATE,
    TokenizerError,
    estimate_tokens,
    get_tokenizer,
    text_chars,
)

SCRIPTS = Path(__file__).parent / "data" / "scripts"


def test_ascii_counts_chars_over_four_like_the_runtimes():
    assert [estimate_tokens(n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]
    assert ESTIMATE.count("abcde") == 2 and ESTIMATE.label == "≈estimate"
    assert CHARS4.count("abcde") == 2 and CHARS4.label == "≈chars/4"
    assert text_chars("\U0001f600") == 2
    text = (Path(__file__).parents[1] / "README.md").read_text()
    ascii_only = text.encode("ascii", "ignore").decode()
    assert ESTIMATE.count(ascii_only) == CHARS4.count(ascii_only)


@pytest.mark.parametrize("name", ["zh", "ja", "ko", "ru", "emoji", "de-fr"])
def test_the_estimate_follows_a_real_tokenizer_in_every_script(name: str) -> None:
    """Within 25% of o200k_base on each script, where chars/4 is off by up to 3x."""
    text = (SCRIPTS / f"{name}.md").read_text(encoding="utf-8")
    real = get_tokenizer("o200k_base").count(text)
    estimate = ESTIMATE.count(text)
    assert abs(estimate - real) / real <= 0.25, (estimate, real)
    if name in ("zh", "ja", "ko"):
        assert real / CHARS4.count(text) > 2  # what the old default missed


def test_bundled_encodings_count_exactly_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    o200k = get_tokenizer("o200k_base")
    assert o200k.exact and o200k.label == "o200k_base"
    assert o200k.count("hello world") == 2
    assert get_tokenizer("gpt-4o") is o200k  # a model family picks its encoding
    assert get_tokenizer("gpt-4").name == "cl100k_base"
    assert get_tokenizer("cl100k_base").count("hello world") == 2


def test_unknown_tokenizer_spec():
    with pytest.raises(TokenizerError, match="unknown tokenizer"):
        get_tokenizer("bpe:foo")


def test_tiktoken_encoding_is_never_downloaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    attempts: list[object] = []

    def no_network(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise AssertionError("tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    with pytest.raises(TokenizerError, match="not available offline"):
        get_tokenizer("tiktoken:cl100k_base")
    assert attempts == []
    assert list(tmp_path.iterdir()) == []
