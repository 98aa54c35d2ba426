"""The error hierarchy: every class survives pickling (worker pools send errors between
processes) with its fields, its message and its built-in base."""

from __future__ import annotations

import inspect
import pickle

import pytest

from derive import errors
from derive.errors import DeriveError

CLASSES = [
    cls
    for _, cls in inspect.getmembers(errors, inspect.isclass)
    if issubclass(cls, DeriveError) and cls.__module__ == errors.__name__
]


def test_every_class_is_listed():
    assert {cls.__name__ for cls in CLASSES} == {n for n in errors.__all__ if n[0].isupper()}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("protocol", [0, pickle.HIGHEST_PROTOCOL])
def test_pickle_round_trip(cls, protocol):
    error = cls("--set D=0", "dims are positive integers")
    back = pickle.loads(pickle.dumps(error, protocol=protocol))
    assert type(back) is cls
    assert (back.what, back.why) == ("--set D=0", "dims are positive integers")
    assert str(back) == str(error) == "--set D=0: dims are positive integers"
    assert back.one_line() == "error: --set D=0: dims are positive integers"
    assert back.args == error.args


def test_pickle_keeps_extra_attributes_and_builtin_base():
    error = errors.OutputError("output file 'x'", "is a folder")
    error.note = "kept"
    back = pickle.loads(pickle.dumps(error))
    assert isinstance(back, OSError) and back.note == "kept"
    assert isinstance(pickle.loads(pickle.dumps(errors.UnknownNameError("a", "b"))), KeyError)
