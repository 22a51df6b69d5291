"""Token counting: the chars/4 estimate, and exact counts that never download anything."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ctxscope.tokens import ESTIMATE, TokenizerError, estimate_tokens, get_tokenizer, text_chars


def test_estimate_is_ceil_chars_over_four():
    assert [estimate_tokens(n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]
    assert ESTIMATE.count("abcde") == 2 and ESTIMATE.label == "≈chars/4"
    assert text_chars("\U0001f600") == 2


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
