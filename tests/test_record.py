"""``@frozen`` behaves as ``@dataclass(frozen=True)``: same signature, errors, equality, hash, repr.

Each shape is declared twice, once with each decorator, and every observable behaviour is
compared between the twins, so the reference is the standard library, not a copy of it.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import random
import sys
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from derive.record import frozen


def _twins(body: dict, annotations: dict, name: str = "Rec"):
    """The same class body decorated with @frozen and with @dataclass(frozen=True)."""
    made = []
    for deco in (frozen, dataclass(frozen=True)):
        ns = dict(body, __annotations__=dict(annotations), __module__=__name__, __qualname__=name)
        made.append(deco(type(name, (), ns)))
    return made


SHAPES = {
    "empty": ({}, {}),
    "one": ({}, {"a": "int"}),
    "positional": ({}, {"x0": "float", "y0": "float", "x1": "float", "y1": "float"}),
    "defaults": ({"b": "x", "c": ()}, {"a": "int", "b": "str", "c": "tuple"}),
    "factory": ({"c": field(default_factory=list)}, {"a": "int", "c": "list"}),
    "no-compare": ({"s": field(default="", compare=False), "r": field(default=0, repr=False)},
                   {"a": "int", "s": "str", "r": "int"}),
    "not-init": ({"m": field(default_factory=dict, init=False), "n": field(default=7, init=False)},
                 {"m": "dict", "a": "int", "n": "int"}),
    "hash-flags": ({"b": field(default=0, hash=False), "c": field(default=0, compare=False, hash=True)},
                   {"a": "int", "b": "int", "c": "int"}),
    "self-field": ({}, {"self": "int", "other": "int"}),
}

CALLS = [
    ((), {}), ((1,), {}), ((1, 2), {}), ((1, 2, 3), {}), ((1, 2, 3, 4), {}), ((1, 2, 3, 4, 5), {}),
    ((), {"a": 1}), ((1,), {"a": 2}), ((), {"z": 1}), ((1,), {"b": "y"}), ((1,), {"c": [3]}),
    ((), {"x0": 1, "y0": 2, "x1": 3, "y1": 4}), ((1, 2), {"x1": 3, "y1": 4}), ((1,), {"s": "q", "r": 5}),
    ((1,), {"n": 3}), ((), {"b": "y"}), ((), {"self": 1, "other": 2}), ((1, 2), {"c": 3}),
]


def _outcome(cls, args, kwargs):
    try:
        obj = cls(*args, **kwargs)
    except TypeError as exc:  # the same message (Python 3.10 words it without the class name)
        return ("TypeError", str(exc) if sys.version_info >= (3, 11) else "")
    try:
        hashed = hash(obj)
    except TypeError as exc:  # a list field is unhashable either way
        hashed = str(exc)
    return ("ok", repr(obj), hashed, dataclasses.astuple(obj), list(vars(obj).items()))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_construction_matches_dataclass(shape: str) -> None:
    mine, ref = _twins(*SHAPES[shape])
    assert str(inspect.signature(mine)) == str(inspect.signature(ref))
    assert mine.__doc__ == ref.__doc__
    assert mine.__match_args__ == ref.__match_args__
    assert [f.name for f in dataclasses.fields(mine)] == [f.name for f in dataclasses.fields(ref)]
    for args, kwargs in CALLS:
        assert _outcome(mine, args, kwargs) == _outcome(ref, args, kwargs), (args, kwargs)


def test_equality_and_hash_match_dataclass_on_random_values() -> None:
    rng = random.Random(5)
    mine, ref = _twins(*SHAPES["no-compare"])
    values = [0, 1, -1, 2.5, "a", "", (), (1,), None]
    for _ in range(500):
        a, b = ([rng.choice(values), rng.choice(values), rng.choice([0, 1])] for _ in range(2))
        a[0] = b[0] if rng.random() < 0.5 else a[0]
        assert (mine(*a) == mine(*b)) == (ref(*a) == ref(*b))
        assert hash(mine(*a)) == hash(ref(*a))
    assert mine(1) != ref(1)  # another class never compares equal
    assert mine(1).__eq__(1) is NotImplemented


def test_fields_are_frozen() -> None:
    (mine, _) = _twins(*SHAPES["defaults"])
    obj = mine(1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'a'"):
        obj.a = 2
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'other'"):
        obj.other = 2
    with pytest.raises(FrozenInstanceError, match="cannot delete field 'a'"):
        del obj.a
    assert obj.a == 1


def test_dataclass_helpers_work() -> None:
    (mine, _) = _twins(*SHAPES["factory"])
    obj = mine(1)
    assert dataclasses.is_dataclass(obj)
    assert dataclasses.replace(obj, a=2) == mine(2)
    assert dataclasses.asdict(obj) == {"a": 1, "c": []}
    assert mine(1).c is not mine(1).c  # a fresh default per instance
    assert copy.copy(obj) == obj and copy.deepcopy(obj) == obj


def test_pickles() -> None:
    obj = Picklable(1, "x")
    assert pickle.loads(pickle.dumps(obj)) == obj


@frozen
class Picklable:
    """Module level, so pickle can find it."""

    a: int
    b: str = ""


def test_post_init_runs_and_may_normalise() -> None:
    @frozen
    class Norm:
        items: tuple = ()

        def __post_init__(self) -> None:
            object.__setattr__(self, "items", tuple(self.items))

    assert Norm([1, 2]).items == (1, 2)
    assert Norm(items=[3]) == Norm((3,))


def test_own_init_is_kept() -> None:
    @frozen
    class Pair:
        a: int
        b: int = 0

        def __init__(self, both: int) -> None:
            object.__setattr__(self, "a", both)
            object.__setattr__(self, "b", both)

    assert Pair(3) == Pair(3) and (Pair(3).a, Pair(3).b) == (3, 3)


def test_a_dataclass_subclass_behaves_as_with_a_dataclass_base() -> None:
    mine, ref = _twins(*SHAPES["defaults"])
    for base in (mine, ref):
        sub = dataclass(frozen=True)(type("Sub", (base,), {"__annotations__": {"d": "int"}, "d": 0, "__module__": __name__}))
        obj = sub(1, "y", (), 4)
        assert repr(obj) == "Sub(a=1, b='y', c=(), d=4)" and obj == sub(1, "y", (), 4) and obj != base(1, "y", ())
        with pytest.raises(FrozenInstanceError):
            obj.a = 2
    assert mine.__dataclass_params__.frozen and mine.__dataclass_params__.eq


def test_refuses_what_it_does_not_support() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        frozen(type("Bad", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))
    with pytest.raises(TypeError, match="kw_only"):
        frozen(type("Kw", (), {"__annotations__": {"a": "int"}, "a": field(default=1, kw_only=True)}))
    for method in ("__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        with pytest.raises(TypeError, match=f"defines {method}"):
            frozen(type("Own", (), {"__annotations__": {"a": "int"}, method: lambda self, *a: None}))
    (mine, _) = _twins(*SHAPES["one"])
    with pytest.raises(TypeError, match="dataclass base"):
        frozen(type("Sub", (mine,), {"__annotations__": {"b": "int"}}))


def test_recursive_repr_does_not_loop() -> None:
    @frozen
    class Box:
        content: list

    b = Box([])
    b.content.append(b)
    assert repr(b).endswith("(content=[...])")


def test_every_record_in_derive_is_frozen() -> None:
    """Each class decorated with @frozen in derive refuses assignment, as dataclass(frozen=True) did."""
    for name in ("derive.commands.cli", "derive.commands.key", "derive.checking", "derive.commands.compare", "derive.commands.sweep", "derive.analysis.parts"):
        importlib.import_module(name)
    records = {c for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("derive")
               for c in vars(m).values() if isinstance(c, type) and c.__dict__.get("__setattr__") is not None
               and dataclasses.is_dataclass(c) and c.__module__ == m.__name__}
    assert len(records) >= 30
    for c in records:
        with pytest.raises(FrozenInstanceError):
            object.__new__(c).__setattr__("x", 1)
