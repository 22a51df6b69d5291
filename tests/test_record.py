"""`record` behaves as `dataclass` does: the same equality, hash and repr for the same class
body, whichever options and field settings it uses."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from ctxscope.core.record import record


def both(options: dict[str, Any], make_body: Any) -> tuple[Any, Any]:
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
    assert ours.__match_args__ == std.__match_args__


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


def init_settings() -> type:
    class Made:
        name: str
        count: int = 0
        seen: list[str] = field(default_factory=list)
        derived: int = field(default=5, init=False)
        filled: dict[str, int] = field(default_factory=dict, init=False)
        label: str = field(default="", kw_only=True)
        total: int = field(kw_only=True, default=0)

        def __post_init__(self) -> None:
            object.__setattr__(self, "derived", len(self.name) + self.count)

    return Made


def self_field() -> type:
    class Odd:
        self: int
        other: int = 1

    return Odd


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize(
    "make_body", [*BODIES, init_settings, self_field], ids=lambda b: b.__name__
)
def test_a_record_is_made_and_described_as_a_dataclass(
    options: dict[str, Any], make_body: Any
) -> None:
    std, ours = both(options, make_body)
    for name in ("init", "repr", "eq", "frozen"):
        assert getattr(ours.__dataclass_params__, name) == getattr(std.__dataclass_params__, name)
    fields = [f for f in dataclasses.fields(std) if f.init]
    args = [VALUES.get(f.name, [7])[0] for f in fields if not f.kw_only and f.name != "self"]
    if make_body is self_field:
        args = [3, 4]
    kwargs = {"label": "l"} if make_body is init_settings else {}
    mine, theirs = ours(*args, **kwargs), std(*args, **kwargs)  # the first one compiles __init__
    assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
    # the same names, kinds, annotations and defaults (a factory's shown as `<factory>`)
    assert str(inspect.signature(ours)) == str(inspect.signature(std))
    if make_body is init_settings:
        assert mine.derived == len(mine.name) + mine.count  # __post_init__ ran, after the fields
        assert ours("a").seen is not ours("b").seen  # a factory makes one value per instance
        with pytest.raises(TypeError):
            ours("a", 1, [], "positional label")
    assert dataclasses.is_dataclass(ours)


def test_a_record_refuses_what_dataclass_refuses_when_the_class_is_made() -> None:
    def misordered() -> type:
        class Late:
            first: int = 0
            second: int

        return Late

    with pytest.raises(TypeError) as std_error:
        dataclass(misordered())
    with pytest.raises(TypeError) as our_error:
        record(misordered())
    assert str(our_error.value) == str(std_error.value)

    class WithInitVar:
        seed: dataclasses.InitVar[int]

    with pytest.raises(TypeError, match="InitVar"):
        record(WithInitVar)

    class Guarded:
        a: int

        def __setattr__(self, name: str, value: object) -> None:
            pass

    with pytest.raises(TypeError, match="__setattr__"):
        record(frozen=True)(Guarded)


def test_a_frozen_record_and_a_mutable_dataclass_do_not_inherit_from_one_another() -> None:
    Frozen: Any = record(frozen=True)(plain())
    Mutable: Any = dataclass(plain())
    for base, options in ((Frozen, {}), (Mutable, {"frozen": True})):
        with pytest.raises(TypeError, match="cannot inherit"):

            @record(**options)
            class Child(base):  # type: ignore[valid-type, misc]
                extra: int = 0


def test_a_frozen_record_refuses_setting_and_deleting_any_attribute() -> None:
    std, ours = both({"frozen": True}, plain)
    for cls in (std, ours):
        point = cls(1)
        for name in ("x", "new"):
            with pytest.raises(dataclasses.FrozenInstanceError) as error:
                setattr(point, name, 2)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'x'"):
            del point.x
    assert str(error.value) == "cannot assign to field 'new'"


class Doubling:
    """A data descriptor: what is set through it is kept doubled (0 by default)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = "_" + name

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        return 0 if obj is None else obj.__dict__[self.name]

    def __set__(self, obj: object, value: int) -> None:
        obj.__dict__[self.name] = value * 2


def through_a_descriptor() -> type:
    class Through:
        a: int = Doubling()  # type: ignore[assignment]
        b: int = 1

    return Through


@pytest.mark.parametrize("options", [{}, {"frozen": True}], ids=["mutable", "frozen"])
def test_a_field_with_a_descriptor_is_set_through_it_as_dataclass_does(
    options: dict[str, Any],
) -> None:
    """A frozen record's fields go straight into the instance's dict where no descriptor
    stands in the way: a field that has one is set through it."""
    std, ours = both(options, through_a_descriptor)
    for cls in (std, ours):
        assert (cls().a, cls(3).a, cls(3, 5).b) == (0, 6, 5)
    assert vars(std(3, 5)) == vars(ours(3, 5)) == {"_a": 6, "b": 5}


@record(frozen=True, slots=True)
class Pinned:
    x: int
    tags: tuple[str, ...] = ()


def test_a_frozen_record_with_slots_survives_pickling_and_copying() -> None:
    point = Pinned(1, ("t",))
    assert pickle.loads(pickle.dumps(point)) == point
    assert copy.deepcopy(point) == point and copy.copy(point) == point


def test_on_a_python_it_was_not_checked_on_a_record_is_a_plain_dataclass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ctxscope.core.record as module

    made = record(frozen=True)(plain())
    assert made.__init__.__code__.co_filename == module.__file__  # its own, compiled later
    monkeypatch.setattr(module, "MEASURED", False)
    fallback = record(frozen=True)(plain())
    assert fallback.__init__.__code__.co_filename != module.__file__  # dataclass's own
    assert fallback(1) == fallback(1) and hash(fallback(1)) == hash(fallback(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fallback(1).x = 2  # type: ignore[misc]
