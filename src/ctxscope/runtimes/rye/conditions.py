"""The hook condition evaluator.

A condition is either a leaf `{path, op, value}` or a combinator `{not: c}`, `{any: [c...]}`,
`{all: [c...]}`. `path` is dotted over the hook context (dict keys, list indices). An empty or
missing condition always matches. Operators: eq ne gt gte lt lte in contains regex exists.

`evaluate` raises `ConditionError` (never anything else) for an unknown operator, an invalid
regex or a malformed condition; `validate` lists every such problem without evaluating.

A pattern is checked with Python's `re` (what Rye compiles it with). One that could backtrack
(a quantifier, an alternation) is matched with the `regex` package in its `re`-compatible mode
under a time bound (`REGEX_TIMEOUT_S`): a pattern that backtracks catastrophically on the value
is reported instead of hanging the build. Any other is matched with `re` itself.
"""

from __future__ import annotations

import operator
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import regex

if TYPE_CHECKING:
    import regex

OPS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "regex", "exists")
ORDERINGS = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}
COMBINATORS = ("not", "any", "all")
REGEX_TIMEOUT_S = 0.25


class ConditionError(Exception):
    """A condition that cannot be evaluated: unknown op, bad regex, wrong shape."""


_BRACKET = re.compile(r"\[(\d+)\]")


def resolve_path(doc: Any, path: str) -> Any:
    """The value at dotted `path` (`items.0.name` or `items[0].name`) in `doc`, or None when
    any step is absent."""
    if path in ("", None):
        return doc
    current = doc
    for part in _BRACKET.sub(r".\1", str(path)).split("."):
        if not part:
            continue
        if isinstance(current, dict):
            current = current.get(part)
        elif isinstance(current, list | tuple):
            try:
                current = current[int(part)]
            except (ValueError, IndexError):
                return None
        else:
            return None
    return current


_CHOICES = frozenset("*+?{|")
"""What every quantifier, alternation, conditional and group extension is written with: a
pattern without any of them has no choice to go back on (at most one try per position)."""


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str] | regex.Pattern[str]:
    """`pattern` as Rye compiles it (`re`); matched through the `regex` package, which can
    give up after a time, only when it could backtrack (a plain one cannot hang)."""
    try:
        plain = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ConditionError(f"invalid regex {pattern!r}: {exc}") from None
    if not _CHOICES.intersection(pattern):
        return plain

    try:
        return regex.compile(pattern, flags=regex.V0)
    except (regex.error, RecursionError, OverflowError) as exc:
        raise ConditionError(f"invalid regex {pattern!r}: {exc}") from None


def _search(pattern: str, text: str) -> bool:
    compiled = _compile(pattern)
    if isinstance(compiled, re.Pattern):
        return compiled.search(text) is not None
    try:
        return compiled.search(text, timeout=REGEX_TIMEOUT_S) is not None
    except TimeoutError:
        raise ConditionError(
            f"regex {pattern!r} did not finish within {int(REGEX_TIMEOUT_S * 1000)} ms on a "
            f"{len(text):,}-char value (catastrophic backtracking: Rye would hang here)"
        ) from None


def apply_operator(actual: Any, op: str, expected: Any) -> bool:
    if op == "eq":
        return bool(actual == expected)
    if op == "ne":
        return bool(actual != expected)
    if op in ORDERINGS:
        if actual is None or expected is None:
            return False
        try:
            return bool(ORDERINGS[op](actual, expected))
        except TypeError:
            return False
    if op == "in":
        if not isinstance(expected, list | tuple):
            raise ConditionError(f"op 'in' needs a list value, got {type(expected).__name__}")
        return actual in expected
    if op == "contains":
        if actual is None:
            return False
        if isinstance(actual, str):
            return str(expected) in actual
        if isinstance(actual, list | tuple | dict):
            try:
                return expected in actual
            except TypeError:  # an unhashable value is never a key
                return False
        return str(expected) in str(actual)
    if op == "regex":
        if not isinstance(expected, str):
            raise ConditionError("op 'regex' needs a string pattern")
        _compile(expected)
        return actual is not None and _search(expected, str(actual))
    if op == "exists":
        # `value: false` asks for absence; any other value (or none) for presence.
        return (actual is None) if expected is False else (actual is not None)
    raise ConditionError(f"unknown condition op {op!r} (known: {', '.join(OPS)})")


def evaluate(condition: Any, context: dict[str, Any]) -> bool:
    """True when `condition` matches `context`."""
    if condition is None or condition == {}:
        return True
    if not isinstance(condition, dict):
        raise ConditionError(f"a condition must be a mapping, got {type(condition).__name__}")
    if "any" in condition:
        children = condition["any"]
        if not isinstance(children, list):
            raise ConditionError("'any' needs a list of conditions")
        return any(evaluate(c, context) for c in children)
    if "all" in condition:
        children = condition["all"]
        if not isinstance(children, list):
            raise ConditionError("'all' needs a list of conditions")
        return all(evaluate(c, context) for c in children)
    if "not" in condition:
        return not evaluate(condition["not"], context)
    if "path" not in condition:
        raise ConditionError("a condition needs 'path' (or one of not/any/all)")
    path = condition["path"]
    if not isinstance(path, str):
        raise ConditionError("'path' must be a string")
    op = condition.get("op", "eq")
    if not isinstance(op, str):
        raise ConditionError(f"unknown condition op {op!r}")
    return apply_operator(resolve_path(context, path), op, condition.get("value"))


def validate(condition: Any) -> list[str]:
    """Every problem in `condition`, without evaluating it (all branches are visited)."""
    problems: list[str] = []
    if condition is None or condition == {}:
        return problems
    if not isinstance(condition, dict):
        return [f"a condition must be a mapping, got {type(condition).__name__}"]
    for key in ("any", "all"):
        if key in condition:
            if not isinstance(condition[key], list):
                problems.append(f"'{key}' needs a list of conditions")
            else:
                for child in condition[key]:
                    problems.extend(validate(child))
            return problems
    if "not" in condition:
        return validate(condition["not"])
    if "path" not in condition:
        return ["a condition needs 'path' (or one of not/any/all)"]
    op = condition.get("op", "eq")
    value = condition.get("value")
    if op not in OPS:
        problems.append(f"unknown condition op {op!r} (known: {', '.join(OPS)})")
    elif op == "regex":
        if not isinstance(value, str):
            problems.append("op 'regex' needs a string pattern")
        else:
            try:
                _compile(value)
            except ConditionError as exc:
                problems.append(str(exc))
    elif op == "in" and not isinstance(value, list | tuple):
        problems.append(f"op 'in' needs a list value, got {type(value).__name__}")
    return problems


def describe(condition: Any) -> str:
    """A short human rendering: `directive contains 'deploy'`."""
    if condition is None or condition == {}:
        return "always"
    if not isinstance(condition, dict):
        return repr(condition)
    for key in ("any", "all"):
        if key in condition and isinstance(condition[key], list):
            inner = ", ".join(describe(c) for c in condition[key])
            return f"{key}({inner})"
    if "not" in condition:
        return f"not({describe(condition['not'])})"
    return f"{condition.get('path')} {condition.get('op', 'eq')} {condition.get('value')!r}"


def _ryeos_op(actual: Any, op: str, expected: Any) -> bool:
    """One operator as ryeos 0.1 applies it: an unknown op is false, `exists` ignores its
    value, `in` needs a list (else false); a comparison Python refuses (str > int, a
    non-string `contains` or `regex` value, a bad pattern) is an error that aborts the
    thread, reported here as ConditionError."""
    try:
        if op == "eq":
            return bool(actual == expected)
        if op == "ne":
            return bool(actual != expected)
        if op in ORDERINGS:
            return actual is not None and bool(ORDERINGS[op](actual, expected))
        if op == "in":
            return actual in expected if isinstance(expected, list | tuple | set) else False
        if op == "contains":
            return bool(expected in str(actual)) if actual is not None else False
        if op == "regex":
            if actual is None:
                return False
            if not isinstance(expected, str):
                raise TypeError(f"a pattern must be a string, not {type(expected).__name__}")
            _compile(expected)
            return _search(expected, str(actual))
        if op == "exists":
            return actual is not None
    except TypeError as exc:
        raise ConditionError(f"op {op!r} raised TypeError: {exc}") from None
    return False


def evaluate_ryeos(condition: Any, context: dict[str, Any]) -> bool:
    """`condition` as ryeos 0.1's condition evaluator reads it (see `_ryeos_op`); a shape it
    cannot read raises ConditionError, as the runtime's own exception would end the thread."""
    if not condition:
        return True
    if not isinstance(condition, dict):
        raise ConditionError(f"a condition must be a mapping, got {type(condition).__name__}")
    for key in ("any", "all"):
        if key in condition:
            children = condition[key]
            if not isinstance(children, list):
                raise ConditionError(f"'{key}' needs a list of conditions")
            results = (evaluate_ryeos(c, context) for c in children)
            return any(results) if key == "any" else all(results)
    if "not" in condition:
        return not evaluate_ryeos(condition["not"], context)
    path = condition.get("path", "")
    if not isinstance(path, str):
        raise ConditionError("'path' must be a string")
    op = condition.get("op", "eq")
    return _ryeos_op(resolve_path(context, path), str(op), condition.get("value"))
