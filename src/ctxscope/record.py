"""`record`: a dataclass whose comparison, hash and repr are made without compiling code.

`dataclasses.dataclass` writes each method it adds as source text and compiles it. On Python
3.11 that is about a third of a millisecond a method on the machines we measure: some 20 ms
of the 140–200 ms a whole `ctxscope render` takes, for the classes it loads. `record` lets
`dataclass` compile only what must run at full speed (`__init__`, and the guards of a frozen
class) and gives the class `__eq__`, `__hash__` and `__repr__` built from its fields, with
the same meaning as the compiled ones: equal when of the same class and equal field by field
(the fields that compare), a frozen class hashed on its fields (a mutable one unhashable),
and `Name(field=value, ...)` as the repr. A method the class body defines is kept, as
`dataclass` keeps it. `dataclasses.fields`, `replace` and `asdict` work as on any dataclass.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")


@overload
@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type[_T], /) -> type[_T]: ...


@overload
@dataclass_transform(field_specifiers=(field, Field))
def record(
    *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> Callable[[type[_T]], type[_T]]: ...


def record(
    cls: type[_T] | None = None, /, *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """`@dataclass` with the same options (`frozen`, `eq`, `slots`), made faster to define."""

    def make(cls: type[_T]) -> type[_T]:
        body = dict(cls.__dict__)  # what the class itself defines, before dataclass adds to it
        made = dataclass(cls, frozen=frozen, eq=False, repr=False, slots=slots)
        _add_methods(made, body, frozen=frozen, eq=eq)
        return made

    return make if cls is None else make(cls)


def _add_methods(cls: type, body: dict[str, Any], *, frozen: bool, eq: bool) -> None:
    own = fields(cls)
    if "__repr__" not in body:
        cls.__repr__ = _repr([f.name for f in own if f.repr], cls)  # type: ignore[assignment]
    if not eq:
        return
    if "__eq__" not in body:
        cls.__eq__ = _eq(_values([f.name for f in own if f.compare]), cls)  # type: ignore[assignment]
    if "__hash__" in body and not (body["__hash__"] is None and "__eq__" in body):
        return  # the class's own hash (or its own None) stands, as with dataclass
    if frozen:
        hashed = [f.name for f in own if (f.compare if f.hash is None else f.hash)]
        cls.__hash__ = _hash(_values(hashed), cls)  # type: ignore[assignment]
    else:
        cls.__hash__ = None  # type: ignore[assignment]


def _values(names: list[str]) -> Callable[[object], tuple[Any, ...]]:
    """A function giving an instance's values of `names` as a tuple (as dataclass compares)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _named(function: Callable[..., Any], cls: type, name: str) -> Callable[..., Any]:
    function.__name__ = name
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    return function


def _repr(names: list[str], cls: type) -> Callable[[object], str]:
    @reprlib.recursive_repr()
    def __repr__(self: object) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return _named(__repr__, cls, "__repr__")


def _eq(values: Callable[[object], tuple[Any, ...]], cls: type) -> Callable[[object, object], Any]:
    def __eq__(self: object, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return _named(__eq__, cls, "__eq__")


def _hash(values: Callable[[object], tuple[Any, ...]], cls: type) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(values(self))

    return _named(__hash__, cls, "__hash__")
