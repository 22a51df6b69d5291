"""`record`: a dataclass made without compiling code when its module is imported.

`dataclasses.dataclass` writes each method it adds as source text and compiles it: `__init__`,
`__eq__`, `__repr__`, a frozen class's `__setattr__` and `__delattr__`, and `__hash__`. On
Python 3.11 that is about a third of a millisecond a method: some 30 ms of a whole
`ctxscope render`, for classes most of which a given run never makes an instance of. `record`
gives the class the same methods with the same meaning, built from its fields:

- `__init__` is compiled (it must run at full speed) when the first instance is made, with
  the signature and behaviour `dataclass` gives it: defaults, `default_factory`, `init=False`
  and `kw_only` fields, `__post_init__`, a frozen class's fields set past its guard
  (straight into the instance's dict where no slot or descriptor stands in the way);
- equal when of the same class and equal field by field (the fields that compare), a frozen
  class hashed on its fields (a mutable one unhashable), `Name(field=value, ...)` as repr;
- a frozen class refuses assignment and deletion with `FrozenInstanceError`, and a frozen
  record and a mutable dataclass do not inherit from one another, as with `dataclass`.

Kept because it is worth it: with `record` made a plain `dataclass`, `ctxscope render
sample_workspace --format json` takes 13 % more CPU time (CPython 3.11, 2 × 30 runs: median
147 → 166 ms, user + system time of the process), above the 5 % a trick must save to stay.
`record` lets `dataclass` make the fields and sets the flags of the class's
`__dataclass_params__` (undocumented): it is used on the CPython versions it was checked on
(`MEASURED`: 3.11 to 3.13), and is plain `dataclass` elsewhere. `tests/test_record.py`
compares it with `dataclass` option by option.

A method the class body defines is kept, as `dataclass` keeps it. `dataclasses.fields`,
`replace`, `asdict` and `is_dataclass` work as on any dataclass. Not supported: `InitVar`
fields (refused with a TypeError) and the `order`/`unsafe_hash` options.
"""

from __future__ import annotations

import re
import reprlib
import sys
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, InitVar, dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")

MEASURED = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] < (3, 14)
"""`record` makes its own methods here; elsewhere it is `dataclass` itself."""


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
        if not MEASURED:
            return dataclass(cls, frozen=frozen, eq=eq, slots=slots)
        body = dict(cls.__dict__)  # what the class itself defines, before dataclass adds to it
        # A class that inherits from a dataclass leaves the frozen guards, and the checks that
        # go with inheriting them, to dataclass; on any other, dataclass compiles nothing with
        # these options and its parameters are then set to what the options say.
        inherits = any(hasattr(b, "__dataclass_fields__") for b in cls.__mro__[1:])
        guard = frozen and not inherits
        if guard:
            for name in ("__setattr__", "__delattr__"):
                if name in body:
                    raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        made: Any = dataclass(
            cls, init=False, repr=False, eq=False, frozen=frozen and inherits, slots=slots
        )
        params = made.__dataclass_params__
        params.init, params.repr, params.eq, params.frozen = True, True, eq, frozen
        own = fields(made)
        if "__init__" not in body:
            made.__init__ = _init(made, own, frozen)
        if guard:
            _add_guards(made, [f.name for f in own], slots=slots)
        _add_methods(made, own, body, frozen=frozen, eq=eq)
        return made

    return make if cls is None else make(cls)


class _Factory:
    """The default of a parameter whose field has a `default_factory`."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _init(cls: type, own: tuple[Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """An `__init__` that compiles the real one on its first call and puts it in its place
    (what `dataclass` refuses in a class is refused now, as it would be)."""
    _check_init(cls, own)

    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        source, env = _init_source(cls, own, frozen)
        namespace: dict[str, Any] = {}
        exec(source, env, namespace)  # the source is made from field names
        real = _named(namespace["__init__"], cls, "__init__")
        real.__annotations__ = {f.name: f.type for f in own if f.init} | {"return": None}
        cls.__init__ = real  # type: ignore[misc]
        real(self, *args, **kwargs)

    return _named(__init__, cls, "__init__")


def _check_init(cls: type, own: tuple[Field[Any], ...]) -> None:
    if any(_is_initvar(f.type) for f in cls.__dataclass_fields__.values()):  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: record does not support InitVar fields")
    after_default = False
    for f in own:
        if f.init and not f.kw_only:
            if f.default is MISSING and f.default_factory is MISSING:
                if after_default:
                    raise TypeError(f"non-default argument {f.name!r} follows default argument")
            else:
                after_default = True


def _init_source(
    cls: type, own: tuple[Field[Any], ...], frozen: bool
) -> tuple[str, dict[str, Any]]:
    """The source of `cls.__init__` as `dataclass` would write it, and the names it uses."""
    env: dict[str, Any] = {"__setattr": object.__setattr__, "__factory": _FACTORY}
    self = "__dataclass_self__" if any(f.name == "self" for f in own) else "self"
    positional: list[str] = []
    keyword: list[str] = []
    lines: list[str] = []
    # A frozen instance's fields go straight into its __dict__, as `object.__setattr__` puts
    # them there, where nothing of the class stands in the way (no slots, no descriptor).
    direct = (
        frozen and "__slots__" not in cls.__dict__ and not any(_settable(cls, f.name) for f in own)
    )
    values: list[str] = []
    for f in own:
        name, default, value = f.name, f"__default_{f.name}", f.name
        if f.default is not MISSING:
            env[default] = f.default
        elif f.default_factory is not MISSING:
            env[default] = f.default_factory
        if f.init:
            if f.default is not MISSING:
                param = f"{name}={default}"
            elif f.default_factory is not MISSING:
                param = f"{name}=__factory"
                value = f"{default}() if {name} is __factory else {name}"
            else:
                param = name
            (keyword if f.kw_only else positional).append(param)
        elif f.default is not MISSING:
            value = default
        elif f.default_factory is not MISSING:
            value = f"{default}()"
        else:
            continue
        if direct:
            values.append(f"{name!r}: {value}")
        else:
            lines.append(
                f"__setattr({self}, {name!r}, {value})" if frozen else f"{self}.{name} = {value}"
            )
    if values:
        lines.append(f"{self}.__dict__.update({{{', '.join(values)}}})")
    if hasattr(cls, "__post_init__"):
        lines.append(f"{self}.__post_init__()")
    params = [self, *positional, *(["*", *keyword] if keyword else [])]
    body = "".join(f"    {line}\n" for line in lines) or "    pass\n"
    return f"def __init__({', '.join(params)}):\n{body}", env


def _settable(cls: type, name: str) -> bool:
    """Whether the class attribute `name` (as the class holds it, not as reading it gives
    it) is a data descriptor."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return hasattr(type(klass.__dict__[name]), "__set__")
    return False


def _is_initvar(annotation: object) -> bool:
    if isinstance(annotation, str):  # as written, under `from __future__ import annotations`
        return (
            "InitVar" in annotation
            and re.match(r"\s*(?:\w+\s*\.\s*)?InitVar\b", annotation) is not None
        )
    return annotation is InitVar or isinstance(annotation, InitVar)


def _add_guards(cls: Any, names: list[str], *, slots: bool) -> None:
    """A frozen class's refusal to change its fields (and, with slots, its pickling)."""
    guarded = frozenset(names)

    def __setattr__(self: object, name: str, value: Any) -> None:
        if type(self) is cls or name in guarded:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in guarded:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    cls.__setattr__ = _named(__setattr__, cls, "__setattr__")
    cls.__delattr__ = _named(__delattr__, cls, "__delattr__")
    if slots and "__getstate__" not in cls.__dict__:
        getter = attrgetter(*names) if len(names) > 1 else None

        def __getstate__(self: object) -> list[Any]:
            return list(getter(self)) if getter else [getattr(self, n) for n in names]

        def __setstate__(self: object, state: list[Any]) -> None:
            for name, value in zip(names, state, strict=True):
                object.__setattr__(self, name, value)

        cls.__getstate__ = _named(__getstate__, cls, "__getstate__")
        cls.__setstate__ = _named(__setstate__, cls, "__setstate__")


def _add_methods(
    cls: type, own: tuple[Field[Any], ...], body: dict[str, Any], *, frozen: bool, eq: bool
) -> None:
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
