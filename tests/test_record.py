"""`record` behaves as `dataclass` does: the same equality, hash and repr for the same class
body, whichever options and field settings it uses."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from ctxscope.record import record


def both(options: dict[str, Any], make_body: Any) -> tuple[type, type]:
    """The same class body made by `dataclass` and by `record` with `options`."""
    return dataclass(**options)(make_body()), record(**options)(make_body())


def plain() -> type:
    class Point:
        x: int
        y: float = 0.0
        tags: tuple[str, ...] = ()

    return Point


def holder() -> type:
    class Holder:
        items: list[object] = field(default_factory=list)

    return Holder


def settings() -> type:
    class Item:
        name: str
        cached: int = field(default=0, compare=False)
        secret: str = field(default="", repr=False)
        salt: int = field(default=0, compare=False, hash=True)

    return Item


def one_field() -> type:
    class Wrapped:
        value: float

    return Wrapped


def no_fields() -> type:
    class Empty:
        pass

    return Empty


def own_methods() -> type:
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "mine"

    return Own


def own_hash() -> type:
    class Hashed:
        a: int

        def __hash__(self) -> int:
            return 7

    return Hashed


def no_hash() -> type:
    class Unhashable:
        a: int
        __hash__ = None  # type: ignore[assignment]

    return Unhashable


BODIES = [plain, holder, settings, one_field, no_fields, own_methods, own_hash, no_hash]
OPTIONS = [{}, {"frozen": True}, {"eq": False}, {"frozen": True, "eq": False}, {"slots": True}]


NAN = float("nan")
VALUES: dict[str, list[Any]] = {
    "x": [1, 1, 2],
    "y": [0.5, 0.5, 0.5],
    "tags": [("a",), ("a",), ("b",)],
    "items": [[1], [1], [2]],
    "name": ["n", "n", "n"],
    "cached": [1, 2, 1],
    "secret": ["s", "t", "s"],
    "salt": [3, 3, 4],
    "value": [NAN, NAN, 0.5],  # a NaN equals itself inside a tuple, as dataclass compares
    "a": [1, 2, 1],
}


def samples(cls: type) -> list[Any]:
    """Instances of `cls` that differ in every field in turn."""
    names = [f.name for f in dataclasses.fields(cls)]
    return [cls(**{n: VALUES[n][i] for n in names}) for i in range(3)]


def hash_or_error(obj: object) -> object:
    try:
        return hash(obj)
    except TypeError as exc:
        return f"TypeError: {exc}"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("make_body", BODIES, ids=lambda b: b.__name__)
def test_a_record_compares_hashes_and_prints_as_a_dataclass(
    options: dict[str, Any], make_body: Any
) -> None:
    std, ours = both(options, make_body)
    std_items, our_items = samples(std), samples(ours)
    for i in range(3):
        assert repr(our_items[i]) == repr(std_items[i])
        assert hash_or_error(our_items[i]) == hash_or_error(std_items[i]) or (
            # identity hashes differ between two objects; what matters is that both use it
            ours.__hash__ is object.__hash__ and std.__hash__ is object.__hash__
        )
        for j in range(3):
            assert (our_items[i] == our_items[j]) == (std_items[i] == std_items[j]), (i, j)
            assert (our_items[i] != our_items[j]) == (std_items[i] != std_items[j]), (i, j)
        stranger = object()
        assert (our_items[i] == stranger) == (std_items[i] == stranger)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(std)]
    assert ours.__match_args__ == std.__match_args__  # type: ignore[attr-defined]


def test_a_frozen_record_refuses_changes_and_works_with_replace() -> None:
    Point = record(frozen=True)(plain())
    point = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2
    moved = dataclasses.replace(point, x=2)
    assert moved.x == 2 and point.x == 1 and moved != point
    assert dataclasses.asdict(moved) == {"x": 2, "y": 0.0, "tags": ()}
    assert {point, Point(1)} == {point}


def test_a_record_that_holds_itself_prints_an_ellipsis() -> None:
    Holder = record(holder())
    held = Holder()
    held.items.append(held)
    assert repr(held).endswith(".<locals>.Holder(items=[...])")


def test_a_record_subclass_compares_on_all_its_fields_and_not_with_its_base() -> None:
    Base = record(frozen=True)(plain())

    @record(frozen=True)
    class Labelled(Base):  # type: ignore[valid-type, misc]
        label: str = ""

    assert Labelled(1, label="a") != Labelled(1, label="b")
    assert Labelled(1) == Labelled(1) and hash(Labelled(1)) == hash(Labelled(1))
    assert Labelled(1) != Base(1) and Base(1) != Labelled(1)
    assert repr(Labelled(1)).endswith(".<locals>.Labelled(x=1, y=0.0, tags=(), label='')")
