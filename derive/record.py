"""``@frozen``: a frozen dataclass whose methods are shared instead of compiled per class.

``@dataclass(frozen=True)`` writes six functions as source text for every class
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``)
and compiles each one. On Python 3.11 that compiling was the largest single cost of
importing derive: about 0.7 ms a class, for the 44 record classes a key imports.

``@frozen`` makes the same class without compiling anything:

- it is a dataclass (``dataclasses.fields``, ``replace``, ``asdict`` and
  ``is_dataclass`` work, ``__match_args__`` is set);
- ``__init__`` takes the same arguments (``inspect.signature`` shows them), fills
  defaults and default factories, calls ``__post_init__``, and raises the same
  ``TypeError`` messages for a missing, repeated or unexpected argument;
- assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``;
- instances compare equal when of the same class with equal ``compare`` fields, hash
  as the tuple of those fields (the same values dataclass gives), and print as
  ``Name(field=value, ...)`` over the ``repr`` fields.

The methods are closures over each class's field plan, so nothing is written as text
and nothing is evaluated (tests/test_no_eval.py scans for that). tests/test_record.py
checks the behaviour against ``dataclass(frozen=True)``.

A class that defines its own ``__init__`` keeps it (it sets fields with
``object.__setattr__``). Not supported, with a TypeError that says so: ``kw_only``
fields and ``InitVar``.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from reprlib import recursive_repr

__all__ = ["frozen"]

_KEY = "__record_key__"  # class attribute: instance -> tuple of its compare fields
_SHOWN = "__record_repr__"  # class attribute: the field names repr shows


class _Factory:
    """Stands for a default factory in a signature, shown as dataclass shows it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _eq(self, other):
    if other.__class__ is self.__class__:
        key = getattr(self.__class__, _KEY)
        return key(self) == key(other)
    return NotImplemented


def _hash(self):
    return hash(getattr(self.__class__, _KEY)(self))


@recursive_repr()
def _repr(self):
    shown = getattr(self.__class__, _SHOWN)
    return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"


def _key(names: tuple[str, ...]):
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return attrgetter(*names)


def _listed(names: list[str]) -> str:
    """Python's wording: 'a', 'a' and 'b', 'a', 'b', and 'c'."""
    quoted = [repr(n) for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _init(cls, fields: tuple[dataclasses.Field, ...]):
    """The ``__init__`` ``dataclass(frozen=True)`` would write, as a closure over the field plan."""
    params = [f for f in fields if f.init]
    names = tuple(f.name for f in params)
    required = 0
    for i, f in enumerate(params):
        if f.default is MISSING and f.default_factory is MISSING:
            if i > required:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            required += 1
    # trailing defaults, for the positional fast path (None when a factory must be called)
    tail = None if any(f.default_factory is not MISSING for f in params) else tuple(f.default for f in params[required:])
    # init=False fields: a factory is called per instance; a plain default stays a class attribute
    later = tuple((f.name, f.default_factory) for f in fields if not f.init and f.default_factory is not MISSING)
    post_init = hasattr(cls, "__post_init__")
    where = f"{cls.__qualname__}.__init__()"
    most = len(names)

    def __init__(self, *args, **kwargs):
        given = len(args)
        if not kwargs and tail is not None and required <= given <= most:
            values = dict(zip(names, args + tail[given - required:]))
        else:  # CPython's order: keyword errors, then too many positional, then missing
            values = dict(zip(names, args))
            for k, v in kwargs.items():
                if k not in names:
                    raise TypeError(f"{where} got an unexpected keyword argument {k!r}")
                if k in values:
                    raise TypeError(f"{where} got multiple values for argument {k!r}")
                values[k] = v
            if given > most:
                takes = (f"{most + 1} positional argument{'s' if most else ''}" if required == most
                         else f"from {required + 1} to {most + 1} positional arguments")
                raise TypeError(f"{where} takes {takes} but {given + 1} were given")
            missing = [n for n in names[:required] if n not in values]
            if missing:
                s = "s" if len(missing) > 1 else ""
                raise TypeError(f"{where} missing {len(missing)} required positional argument{s}: {_listed(missing)}")
            for f in params[required:]:
                if f.name not in values:
                    values[f.name] = f.default if f.default is not MISSING else f.default_factory()
            values = {n: values[n] for n in names}
        for name, factory in later:
            values[name] = factory()
        self.__dict__.update(values)
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=f.type,
                             default=f.default if f.default is not MISSING else (
                                 _FACTORY if f.default_factory is not MISSING else inspect.Parameter.empty))
           for f in params],
        return_annotation=None,
    )
    return __init__


def frozen(cls: type) -> type:
    """Decorate a class like ``@dataclass(frozen=True)``; see the module docstring."""
    own_doc = cls.__dict__.get("__doc__")
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)  # the fields only: nothing compiled
    fields = dataclasses.fields(cls)
    for f in cls.__dataclass_fields__.values():
        if getattr(f, "kw_only", False) is True:
            raise TypeError(f"{cls.__name__}.{f.name}: @frozen does not support kw_only fields")
        if isinstance(f.type, dataclasses.InitVar) or (isinstance(f.type, str) and "InitVar" in f.type):
            raise TypeError(f"{cls.__name__}.{f.name}: @frozen does not support InitVar")
    if "__init__" not in cls.__dict__:
        cls.__init__ = _init(cls, fields)
    setattr(cls, _KEY, _key(tuple(f.name for f in fields if f.compare)))
    setattr(cls, _SHOWN, tuple(f.name for f in fields if f.repr))
    cls.__setattr__, cls.__delattr__ = _setattr, _delattr
    cls.__repr__, cls.__eq__, cls.__hash__ = _repr, _eq, _hash
    if own_doc is None:  # dataclass wrote the docstring from the signature before __init__ existed
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls
