"""The problem-kind protocol: every record names its kind, and each kind derives through the pipeline."""

from __future__ import annotations

import pytest

from derive.catalogue import ProblemKind
from derive.checking import api
from derive.errors import ProblemError
from derive.pipeline import derive_kernel, derive_operator, solve_model
from derive.pipeline.kinds import KINDS, kind_of
from derive.problem.binding import ProblemSpec
from derive.problem.kernel_spec import KernelSpec
from derive.problem.model_spec import ModelSpec
from derive.problem.serving_spec import ServingSpec
from derive.problem.sets.kernels import KernelEntry
from derive.problem.sets.natives import BudgetSpec, NativeEntry, WhatIfSpec
from derive.problem.sets.problem_set import ModelEntry, ProblemEntry

MATMUL = ProblemSpec("matmul", dtypes=("bf16",), chip="h100")
KERNEL = KernelSpec(flops="1e12", bytes="2.5e9", chip="h100")
GPT2 = ModelSpec("gpt2-small", chip="h100", sets=("B=8", "S=1024"))
DECODE = ModelEntry("d", "decode", "", GPT2, (), ServingSpec("decode"))
BUDGET = BudgetSpec(compute="5.76e23")
WHAT_IF = WhatIfSpec("gemm=0.62,other=0.38", "gemm=1.8", measured_time="70 ms")


@pytest.mark.parametrize(
    ("problem", "kind"),
    [
        (MATMUL, ProblemKind.OPERATOR),
        (ProblemEntry("p", "t", "", MATMUL, (), None), ProblemKind.OPERATOR),
        (KERNEL, ProblemKind.KERNEL),
        (KernelEntry("k", "t", "", KERNEL), ProblemKind.KERNEL),
        (GPT2, ProblemKind.MODEL),
        (ModelEntry("m", "t", "", GPT2, ()), ProblemKind.MODEL),
        (DECODE, ProblemKind.SERVING),
        (BUDGET, ProblemKind.BUDGET),
        (NativeEntry("b", "t", "", BUDGET), ProblemKind.BUDGET),
        (WHAT_IF, ProblemKind.WHAT_IF),
        (NativeEntry("w", "t", "", WHAT_IF), ProblemKind.WHAT_IF),
    ],
)
def test_every_spec_and_entry_names_its_kind(problem, kind):
    assert problem.kind is kind
    assert kind_of(problem).kind is kind
    assert problem.spec.spec is problem.spec  # a spec is its own spec; an entry holds one


def test_every_kind_is_derived_and_checked():
    answered = set(ProblemKind)
    assert set(KINDS) == answered
    assert set(api._JUDGES) == answered
    assert all(KINDS[kind].kind is kind for kind in KINDS)


def test_a_kind_derives_what_its_pipeline_entry_derives():
    assert kind_of(MATMUL).derive(MATMUL).as_json() == derive_operator(MATMUL).as_json()
    assert kind_of(KERNEL).derive(KERNEL).as_json() == derive_kernel(KERNEL).as_json()
    model = solve_model("gpt2-small", chip="h100", set={"B": 8, "S": 1024})
    assert kind_of(GPT2).derive(GPT2).as_json() == model.as_json()
    step = kind_of(DECODE).derive(DECODE)
    assert step.as_json()["phase"] == "decode" and step.as_json()["tp"] == 1


def test_only_an_operator_problem_takes_a_derivation():
    assert [kind for kind, k in KINDS.items() if k.chains] == [ProblemKind.OPERATOR]
    with pytest.raises(ProblemError, match="a kernel by its numbers: only single claims"):
        api.context_for(KERNEL)


def test_a_kernel_asks_what_it_has():
    has = kind_of(KERNEL).asks(KERNEL)  # both counts: the times; no measurement: no MFU
    assert {"intensity", "ridge", "t_lower"} <= set(has) and "mfu" not in has
    entry = KernelEntry("k", "t", "", KERNEL, ask=("ridge",))
    assert kind_of(entry).asks(entry) == ("ridge",)


def test_what_is_not_a_problem_is_refused_in_one_line():
    with pytest.raises(ProblemError, match=r"expected a ProblemSpec.*got str"):
        kind_of("matmul")  # type: ignore[arg-type]


def test_every_kind_table_lists_every_kind():
    from derive.catalogue.groups import ASKED_WITHIN
    from derive.commands import check, grade
    from derive.web import grading

    tables = (KINDS, api._JUDGES, ASKED_WITHIN, check._CLAIMS, grade._KNOWN)
    for table in (*tables, grading._READERS, grading._RESULTS):
        assert set(table) == set(ProblemKind)


def test_no_kind_table_falls_back_to_the_operator():
    import inspect

    from derive.commands import check
    from derive.web import grading

    for module in (api, check, grading):
        source = inspect.getsource(module)
        for table in ("_JUDGES", "_CLAIMS", "_READERS", "_RESULTS"):
            assert f"{table}.get(" not in source, (module.__name__, table)


def test_derive_check_takes_a_quantity_by_its_alias():
    assert api.check(MATMUL, "I", "BDF/(BD + DF + BF)").verdict.value == "correct"


def test_every_checked_quantity_can_be_asked_by_its_name():
    from derive.catalogue import Use, names_for
    from derive.catalogue.groups import ask_key

    for kind in ProblemKind:
        asks = names_for(kind, Use.ASK)
        for name in names_for(kind, Use.CHECK):
            assert ask_key(kind, name) in asks, (kind, name)
    assert ask_key(ProblemKind.OPERATOR, "t_lower") == "bounds"
    assert ask_key(ProblemKind.OPERATOR, "bounds") == "bounds"  # a group word stays a shorthand


def test_an_operator_set_takes_t_lower_in_ask(tmp_path):
    from derive.problem.sets.problem_set import load_problem_set

    path = tmp_path / "s.toml"
    path.write_text(
        'title = "t"\n[[problem]]\nid = "p"\noperator = "matmul"\ndtype = "bf16"\n'
        'chip = "h100"\nask = ["t_lower", "t_upper", "I"]\n'
    )
    assert load_problem_set(path).problems[0].ask == ("bounds", "intensity")
