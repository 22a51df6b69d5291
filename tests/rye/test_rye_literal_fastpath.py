"""The JSON fast path for tool schemas must agree with ast.literal_eval on every input."""

from __future__ import annotations

import ast
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxscope.runtimes.rye.toolparse import _literal, extract_python

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
values = st.recursive(
    scalars,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=6), kids, max_size=4)
    ),
    max_leaves=20,
)


def both(source: str) -> tuple[object, object]:
    node = ast.parse(f"X = {source}").body[0].value  # type: ignore[attr-defined]
    return _literal([f"X = {source}"], node), ast.literal_eval(node)


@given(values)
def test_python_repr_agrees(value):
    fast, slow = both(repr(value))
    assert fast == slow and type(fast) is type(slow)


@given(values)
def test_json_text_agrees_or_falls_back(value):
    text = json.dumps(value)
    node = ast.parse(f"X = {text}").body[0].value  # type: ignore[attr-defined]
    try:
        expected = ast.literal_eval(node)
    except ValueError:
        expected = None  # JSON words such as `true` are names in Python: not a literal
        try:
            _literal([f"X = {text}"], node)
        except ValueError:
            return
        raise AssertionError(f"fast path accepted what literal_eval rejects: {text}") from None
    assert _literal([f"X = {text}"], node) == expected


@pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")
def test_escaped_slash_keeps_python_meaning():
    assert both('{"a": "x\\/y"}') == ({"a": "x\\/y"}, {"a": "x\\/y"})


def test_multiline_and_non_ascii_schemas():
    text = 'X = 1\nCONFIG_SCHEMA = {\n    "title": "café ✓",\n    "n": [1,\n 2]}\n'
    meta, diags = extract_python(text, "t.py")
    assert diags == [] and meta["schema"] == {"title": "café ✓", "n": [1, 2]}


@given(
    st.lists(
        st.sampled_from(
            ["true", "false", "null", "NaN", "Infinity", "\\", "/", "u", "d8", "x", " "]
        )
        | st.text(max_size=3),
        max_size=12,
    ).map("".join)
)
def test_the_quick_check_for_plain_json_agrees_with_the_pattern(text):
    from ctxscope.runtimes.rye.toolparse import _NOT_PLAIN_JSON, _plain_json

    assert _plain_json(text) == (not _NOT_PLAIN_JSON.search(text))
