"""``@frozen``: a frozen dataclass whose methods are closures instead of compiled source.

``@dataclass(frozen=True)`` writes six functions as source text for every class
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``)
and compiles each one. On Python 3.11 that compiling was the largest single cost of
importing derive: about 0.7 ms a class, for the 40-odd record classes a key imports.

``@frozen`` makes the same class without compiling anything:

- it is a dataclass (``dataclasses.fields``, ``replace``, ``asdict`` and
  ``is_dataclass`` work, ``__match_args__`` is set, ``__dataclass_params__`` says
  ``frozen=True``), and a ``@dataclass(frozen=True)`` subclass of it works as usual;
- ``__init__`` takes the same arguments (``inspect.signature`` shows them), fills
  defaults and default factories in field order, calls ``__post_init__``, and raises the
  same ``TypeError`` messages for a missing, repeated or unexpected argument;
- assigning or deleting a field raises ``dataclasses.FrozenInstanceError``, by the rule
  dataclass uses;
- instances compare equal when of the same class with equal ``compare`` fields, hash as
  the tuple of the ``hash`` fields (the same values dataclass gives), and print as
  ``Name(field=value, ...)`` over the ``repr`` fields.

The methods are closures over each class's field plan, so nothing is written as text and
nothing is evaluated (tests/test_no_eval.py scans for that). tests/test_record.py checks
the behaviour against ``dataclass(frozen=True)`` twins.

Refused with a TypeError (use ``@dataclass(frozen=True)`` for these): ``kw_only`` fields,
``InitVar``, a dataclass base class, and a class body that defines any of the methods
above except ``__init__`` (a hand-written ``__init__`` is kept; it sets fields with
``object.__setattr__``). The declaration API (``Operator``, ``Tensor``, ``Composite``),
which users subclass, stays a plain ``@dataclass(frozen=True)``.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from reprlib import recursive_repr

__all__ = ["frozen"]

_OWN = ("__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


class _Factory:
    """Stands for a default factory in a signature, shown as dataclass shows it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _key(names: tuple[str, ...]):
    """instance -> the tuple of the named fields (what dataclass compares and hashes)."""
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
    # dataclass sets every init field and every init=False field with a factory, in field order
    order = tuple(f.name for f in fields if f.init or f.default_factory is not MISSING)
    factories = {f.name: f.default_factory for f in fields if f.default_factory is not MISSING}
    # the positional fast path: trailing plain defaults, nothing to call
    tail = None if factories else tuple(f.default for f in params[required:])
    post_init = hasattr(cls, "__post_init__")
    where = f"{cls.__qualname__}.__init__()"
    most = len(names)
    self_name = "__dataclass_self__" if "self" in {f.name for f in fields} else "self"  # as dataclass names it

    def __init__(__record_self, *args, **kwargs):  # not "self": a field may be called self
        given = len(args)
        if tail is not None and not kwargs and required <= given <= most:
            __record_self.__dict__.update(zip(names, args + tail[given - required:]))
        else:  # CPython's order: keyword errors, then too many positional, then missing
            values = dict(zip(names, args))
            for k, v in kwargs.items():
                if k not in names and k != self_name:
                    raise TypeError(f"{where} got an unexpected keyword argument {k!r}")
                if k in values or k == self_name:
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
                if f.name not in values and f.default is not MISSING:
                    values[f.name] = f.default
            # what is not given is a default factory's, called in field order as dataclass calls them
            __record_self.__dict__.update({n: values[n] if n in values else factories[n]() for n in order})
        if post_init:
            __record_self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter(self_name, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=f.type,
                             default=f.default if f.default is not MISSING else (
                                 _FACTORY if f.default_factory is not MISSING else inspect.Parameter.empty))
           for f in params],
        return_annotation=None,
    )
    return __init__


def _methods(cls, fields: tuple[dataclasses.Field, ...]) -> dict:
    """__eq__, __hash__, __repr__, __setattr__, __delattr__ as dataclass(frozen=True) writes them."""
    compared = _key(tuple(f.name for f in fields if f.compare))
    hashed = _key(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    shown = tuple(f.name for f in fields if f.repr)
    own = frozenset(f.name for f in fields)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self):
        return hash(hashed(self))

    @recursive_repr()
    def __repr__(self):
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    def __setattr__(self, name, value):
        if type(self) is cls or name in own:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in own:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    methods = {"__eq__": __eq__, "__hash__": __hash__, "__repr__": __repr__, "__setattr__": __setattr__, "__delattr__": __delattr__}
    for name, fn in methods.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
    return methods


def frozen(cls: type) -> type:
    """Decorate a class like ``@dataclass(frozen=True)``; see the module docstring."""
    where = f"@frozen {cls.__qualname__}"
    if any(dataclasses.is_dataclass(b) for b in cls.__mro__[1:]):
        raise TypeError(f"{where}: a dataclass base is not supported; use @dataclass(frozen=True)")
    defined = [m for m in _OWN if m in cls.__dict__ and not (m == "__hash__" and cls.__dict__[m] is None)]
    if defined:
        raise TypeError(f"{where}: defines {', '.join(defined)}; use @dataclass(frozen=True)")
    own_doc = cls.__dict__.get("__doc__")
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)  # the fields only: nothing compiled
    for f in cls.__dataclass_fields__.values():
        if getattr(f, "kw_only", False) is True:
            raise TypeError(f"{where}.{f.name}: kw_only fields are not supported")
        if isinstance(f.type, dataclasses.InitVar) or (isinstance(f.type, str) and "InitVar" in f.type):
            raise TypeError(f"{where}.{f.name}: InitVar is not supported")
    fields = dataclasses.fields(cls)
    if "__init__" not in cls.__dict__:
        cls.__init__ = _init(cls, fields)
    for name, fn in _methods(cls, fields).items():
        setattr(cls, name, fn)
    params = cls.__dataclass_params__  # say what the class now is, for dataclass subclasses and readers
    params.init, params.repr, params.eq, params.frozen = True, True, True, True
    if not own_doc:  # dataclass wrote the docstring from the signature before __init__ existed
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls
