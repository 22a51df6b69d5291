"""The hook condition evaluator: every op and combinator, dotted paths, errors."""

from __future__ import annotations

import contextlib
import re

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxscope.runtimes.rye.conditions import ConditionError, _compile, evaluate, validate

CTX = {
    "directive": "project/deploy/deploy_staging",
    "has_extends": True,
    "category": "project/deploy",
    "inputs": {"env": "staging", "replicas": 3, "tags": ["a", "b"]},
    "model": "claude-haiku",
}


@pytest.mark.parametrize(
    ("cond", "expected"),
    [
        ({"path": "directive", "op": "eq", "value": "project/deploy/deploy_staging"}, True),
        ({"path": "category", "op": "ne", "value": "project/deploy"}, False),
        ({"path": "inputs.replicas", "op": "gt", "value": 2}, True),
        ({"path": "inputs.replicas", "op": "gte", "value": 4}, False),
        ({"path": "inputs.replicas", "op": "lt", "value": 4}, True),
        ({"path": "inputs.replicas", "op": "lte", "value": 2}, False),
        ({"path": "inputs.missing", "op": "gt", "value": 1}, False),
        ({"path": "inputs.env", "op": "gt", "value": 1}, False),
        ({"path": "model", "op": "in", "value": ["claude-haiku", "gemini"]}, True),
        ({"path": "directive", "op": "contains", "value": "deploy"}, True),
        ({"path": "inputs.tags", "op": "contains", "value": "c"}, False),
        ({"path": "inputs.tags.1", "op": "eq", "value": "b"}, True),
        ({"path": "directive", "op": "regex", "value": "^project/deploy/"}, True),
        ({"path": "has_extends", "op": "exists"}, True),
        ({"path": "inputs.nope", "op": "exists"}, False),
        ({"path": "inputs.nope", "op": "exists", "value": False}, True),
        ({"path": "has_extends", "op": "eq", "value": True}, True),
        ({"not": {"path": "directive", "op": "contains", "value": "web"}}, True),
        (
            {
                "any": [
                    {"path": "model", "op": "eq", "value": "x"},
                    {"path": "inputs.env", "op": "eq", "value": "staging"},
                ]
            },
            True,
        ),
        (
            {
                "all": [
                    {"path": "model", "op": "eq", "value": "x"},
                    {"path": "inputs.env", "op": "eq", "value": "staging"},
                ]
            },
            False,
        ),
        ({}, True),
        (None, True),
    ],
)
def test_operators_and_combinators(cond: object, expected: bool) -> None:
    assert evaluate(cond, CTX) is expected
    assert validate(cond) == []


@pytest.mark.parametrize(
    ("cond", "fragment"),
    [
        ({"path": "directive", "op": "startswith", "value": "p"}, "unknown condition op"),
        ({"path": "directive", "op": "regex", "value": "(unclosed"}, "invalid regex"),
        ({"path": "model", "op": "in", "value": "claude"}, "needs a list"),
        ({"op": "eq", "value": 1}, "needs 'path'"),
        ("directive == x", "must be a mapping"),
        ({"any": {"path": "x"}}, "needs a list"),
    ],
)
def test_bad_conditions_raise_typed_error_and_validate_lists_them(
    cond: object, fragment: str
) -> None:
    with pytest.raises(ConditionError, match=fragment):
        evaluate(cond, CTX)
    assert any(fragment in p for p in validate(cond))


def test_validate_sees_problems_in_branches_evaluation_would_skip() -> None:
    cond = {
        "any": [
            {"path": "directive", "op": "contains", "value": "deploy"},
            {"path": "x", "op": "bogus"},
        ]
    }
    assert evaluate(cond, CTX) is True  # short-circuits past the bad branch
    assert validate(cond) and "bogus" in validate(cond)[0]


leaf = st.fixed_dictionaries(
    {
        "path": st.sampled_from(["directive", "inputs.env", "inputs.tags.0", "model", "x.y", ""]),
        "op": st.sampled_from(
            ["eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "regex", "exists", "weird"]
        ),
        "value": st.one_of(
            st.none(),
            st.integers(),
            st.text(max_size=8),
            st.lists(st.text(max_size=3), max_size=3),
            st.booleans(),
        ),
    }
)
conds = st.recursive(
    leaf,
    lambda c: st.one_of(
        st.fixed_dictionaries({"not": c}),
        st.fixed_dictionaries({"any": st.lists(c, max_size=3)}),
        st.fixed_dictionaries({"all": st.lists(c, max_size=3)}),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(conds)
def test_evaluator_gives_bool_or_condition_error(cond: dict[str, object]) -> None:
    try:
        result = evaluate(cond, CTX)
    except ConditionError:
        assert validate(cond)  # every runtime error is also found statically
    else:
        assert isinstance(result, bool)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.integers(), st.text(max_size=5)),
        lambda c: st.one_of(
            st.lists(c, max_size=3), st.dictionaries(st.text(max_size=5), c, max_size=3)
        ),
        max_leaves=8,
    )
)
def test_arbitrary_shapes_never_crash(cond: object) -> None:
    with contextlib.suppress(ConditionError):
        assert isinstance(evaluate(cond, CTX), bool)
    validate(cond)


@given(
    st.text(alphabet="ab^$.\\[]()-/0", max_size=8),
    st.text(alphabet="ab./-0\n", max_size=12),
)
@settings(max_examples=200, deadline=None)
@pytest.mark.filterwarnings("ignore:Possible nested set:FutureWarning")  # `[[`: re's own note
def test_a_pattern_that_cannot_backtrack_matches_as_re_does(pattern: str, value: str) -> None:
    """Patterns with no quantifier or alternation are matched by `re` itself, Rye's own
    matcher: the same answer, and the same refusal of an invalid one."""
    import re

    cond = {"path": "v", "op": "regex", "value": pattern}
    try:
        want: bool | str = re.search(pattern, value) is not None
    except re.error:
        want = "invalid"
    try:
        got: bool | str = evaluate(cond, {"v": value})
    except ConditionError:
        got = "invalid"
    assert got == want


def test_plain_patterns_are_matched_by_re_and_backtracking_ones_under_a_time_bound() -> None:
    """A pattern with no quantifier, alternation or group extension cannot hang: Python's
    `re` matches it; one that could backtrack goes through `regex`, which can give up."""
    assert evaluate({"path": "d", "op": "regex", "value": "^gen/c1/"}, {"d": "gen/c1/x"})
    assert not evaluate({"path": "d", "op": "regex", "value": "c2$"}, {"d": "gen/c1/x"})
    assert isinstance(_compile("^gen/c1/"), re.Pattern)
    assert evaluate({"path": "d", "op": "regex", "value": "^(gen|x)/"}, {"d": "gen/c1/x"})
    assert isinstance(_compile("^(gen|x)/"), regex.Pattern)
