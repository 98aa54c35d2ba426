"""docs/architecture.md's "Adding a problem kind", followed on a toy kind in-process.

The toy is a kernel "run twice": its spec holds a kernel's (step 1), its module holds its
:class:`~derive.pipeline.kinds.Kind`, whose ``derive`` calls the kernel's pipeline entry,
named by a row of ``KINDS`` (step 2), and its member of ``ProblemKind`` says its label,
that it is timed on a roofline and that its claims are judged as a kernel's (step 4). With
nothing else, ``kind_of`` and ``derived_kind`` find it and ``derive.check`` judges a claim
about it, naming the toy kind in its result.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass

import pytest

from derive.catalogue import ProblemKind
from derive.catalogue.lookup import spelling_map
from derive.checking.api import Verdict, check
from derive.pipeline.kinds import KINDS, derived_kind, kind_of
from derive.problem.kernel_spec import KernelSpec


@pytest.fixture
def toy(monkeypatch):
    """The toy kind registered for one test: its member, its module and its row."""
    member = ProblemKind.__new_member__(ProblemKind, "toy", "a toy kernel", True, "", "KERNEL")
    member._name_, member.__objclass__ = "TOY", ProblemKind
    type.__setattr__(ProblemKind, "TOY", member)  # the closed set, one member more
    ProblemKind._member_map_["TOY"], ProblemKind._value2member_map_["toy"] = member, member
    ProblemKind._member_names_.append("TOY")

    @dataclass(frozen=True)
    class ToySpec:  # step 1: the problem as typed names its kind and its spec
        spec: KernelSpec

        @property
        def kind(self) -> ProblemKind:
            return member

    @dataclass(frozen=True)
    class ToyKind:  # step 2: the frozen class implementing Kind
        kind: ProblemKind = member
        noun: str = "a toy kernel"
        chains: bool = False

        def derive(self, problem, operators=()):
            from derive.pipeline import derive_kernel

            return derive_kernel(problem.spec)

        def asks(self, problem):
            return ("attainable",)

    module = types.ModuleType("derive.pipeline.kinds.toy")
    module.ToyKind = ToyKind
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(KINDS._rows, member, ("toy", "ToyKind"))  # its row, loaded on first use
    monkeypatch.setattr(KINDS, "_made", {})
    yield member, ToySpec(KernelSpec(intensity="20", chip="h100"))
    ProblemKind._member_names_.remove("TOY")
    del ProblemKind._member_map_["TOY"], ProblemKind._value2member_map_["toy"]
    type.__delattr__(ProblemKind, "TOY")
    spelling_map.cache_clear()  # its one cached row (the toy's spellings: none)


def test_a_toy_kind_is_found_derived_and_checked(toy):
    member, problem = toy
    assert ProblemKind("toy") is member and member in list(ProblemKind)
    assert member.parent is member and member.judged_as is ProblemKind.KERNEL
    assert kind_of(problem).noun == "a toy kernel"
    assert derived_kind(problem) is member
    expected = 20 * 335 * 10**10  # 20 FLOPs/byte on the H100's 3.35 TB/s
    assert kind_of(problem).derive(problem).kernel.attainable == expected
    result = check(problem, "attainable", f"{expected} FLOP/s")
    assert result.verdict is Verdict.CORRECT and result.kind is member
    assert check(problem, "attainable", "1 FLOP/s").verdict is not Verdict.CORRECT


def test_the_toy_is_gone_after_its_test():
    assert "TOY" not in ProblemKind.__members__ and ProblemKind.COMMS in KINDS
    assert [kind.value for kind in ProblemKind][-1] == "questions"
