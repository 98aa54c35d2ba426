"""The problem-kind protocol: every record names its kind, and each kind derives through the pipeline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from derive.catalogue import ProblemKind
from derive.checking import api
from derive.errors import ProblemError
from derive.pipeline import derive_kernel, derive_operator, solve_model
from derive.pipeline.kinds import KINDS, _Table, kind_of
from derive.problem.binding import ProblemSpec
from derive.problem.kernel_spec import KernelSpec
from derive.problem.model_spec import ModelSpec
from derive.problem.serving_spec import ServingSpec
from derive.problem.sets.kernels import KernelEntry
from derive.problem.sets.natives import BudgetSpec, NativeEntry, WhatIfSpec
from derive.problem.sets.problem_set import ModelEntry, ProblemEntry

ROOT = Path(__file__).resolve().parents[2]

MATMUL = ProblemSpec("matmul", dtypes=("bf16",), chip="h100")
KERNEL = KernelSpec(flops="1e12", bytes="2.5e9", chip="h100")
GPT2 = ModelSpec("gpt2-small", chip="h100", sets=("B=8", "S=1024"))
DECODE = ModelEntry("d", "decode", "", GPT2, (), ServingSpec("decode"))
BUDGET = BudgetSpec(compute="5.76e23")
COMMS_OPS = Path(__file__).parents[1] / "sets" / "comms_ops.py"
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
    assert set(api._JUDGES) == {kind.judged_as for kind in ProblemKind}
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


def _kind_tables() -> dict[str, object]:
    """Every table keyed by kind, by name (a new one goes here); a kind's label, parent and
    the kind it is judged as are its member's own (derive/catalogue/kinds.py)."""
    from derive.catalogue.groups import ASKED_WITHIN
    from derive.commands import grade

    return {"KINDS": KINDS, "ASKED_WITHIN": ASKED_WITHIN, "grade._KNOWN": grade._KNOWN}


def _judged_as_tables() -> dict[str, object]:
    """Every table keyed by the kind a claim is judged as (``ProblemKind.judged_as``)."""
    from derive.commands import check
    from derive.web import grading

    return {
        "api._JUDGES": api._JUDGES,
        "check._CLAIMS": check._CLAIMS,
        "grading._READERS": grading._READERS,
        "grading._RESULTS": grading._RESULTS,
    }


@pytest.mark.parametrize("kind", list(ProblemKind), ids=lambda k: k.value)
@pytest.mark.parametrize("name", list(_kind_tables()) + list(_judged_as_tables()))
def test_every_kind_table_lists_every_kind(name, kind):
    tables = {**_kind_tables(), **_judged_as_tables()}
    key = kind if name in _kind_tables() else kind.judged_as
    table = tables[name]
    assert key in table, f"{name} has no row for {key}"  # a lookup would be a KeyError
    assert table[key] is not None
    assert kind.judged_as.judged_as is kind.judged_as  # judged as a kind judged as itself


def test_a_kind_missing_from_a_table_is_a_key_error():
    """No table falls back to another kind's row: a kind it lacks is a KeyError."""
    from types import MappingProxyType

    for name, table in {**_kind_tables(), **_judged_as_tables()}.items():
        short = MappingProxyType({k: v for k, v in table.items() if k is not ProblemKind.COMMS})
        with pytest.raises(KeyError):
            short[ProblemKind.COMMS]  # as the table would be, lacking its row
        assert type(table) in (dict, MappingProxyType, _Table), name  # no __missing__, no default
    lazy = _Table({ProblemKind.OPERATOR: ("operator", "OperatorKind")})  # KINDS' own type
    with pytest.raises(KeyError):
        lazy[ProblemKind.COMMS]
    assert ProblemKind.COMMS not in lazy and list(lazy) == [ProblemKind.OPERATOR]


def test_the_kinds_table_loads_a_kind_on_first_use():
    """An operator's key imports no model, serving, training or question layer: KINDS
    imports a kind's module when it is looked up (benchmarks/README.md, the cold key)."""
    code = (
        "import sys, derive.pipeline, derive.pipeline.key\n"
        "from derive.pipeline.kinds import KINDS\n"
        "from derive.catalogue import ProblemKind\n"
        "lazy = ('kinds.training', 'kinds.serving', 'kinds.model', 'kinds.questions', 'budget')\n"
        "print(any('derive.pipeline.' + m in sys.modules for m in lazy))\n"
        "KINDS[ProblemKind.TRAINING]\n"
        "print('derive.pipeline.kinds.training' in sys.modules)\n"
        "print(derive.pipeline.TrainingDerivation.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.split() == ["False", "True", "derive.pipeline.kinds.training"]


_OPERATOR_KEY = """
import sys
from pathlib import Path
from derive.pipeline.key import build_key
from derive.problem.sets.problem_set import load_problem_set
build_key(load_problem_set(Path("benchmarks/set20.toml")), "set20", jobs=1, time_limit=None)
print(sorted(m for m in sys.modules if m.startswith(LAZY)))
"""


def test_a_key_of_operator_problems_loads_no_other_kind():
    """The layers a set of operator problems does not use stay unloaded, in the key's one
    process (each module costs a cold key its import: benchmarks/README.md)."""
    lazy = (
        "derive.model",
        "derive.training",
        "derive.questions",
        "derive.pipeline.kinds.training",
        "derive.pipeline.kinds.serving",
        "derive.pipeline.kinds.model",
        "derive.pipeline.kinds.comms",
        "derive.pipeline.kinds.kernel",
        "derive.problem.train_spec",
        "derive.problem.serving_spec",
        "derive.problem.model_spec",
        "derive.problem.sets.natives",
        "derive.problem.sets.kernels",
        "derive.analysis.kernel_numbers",
        "derive.analysis.comms_only",
    )
    code = f"LAZY = {lazy!r}\n" + _OPERATOR_KEY
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.strip() == "[]"


def test_each_sub_kind_covers_its_problems_of_the_parent_kind():
    from derive.pipeline.kinds import derived_kind

    subs = {
        kind for kind in ProblemKind if kind.parent is not kind
    }  # each tells its problems apart
    assert subs and all(callable(getattr(KINDS[kind], "covers", None)) for kind in subs)
    comms = ProblemSpec("tp_all_reduce", dtypes=("bf16",), chip="h100", sets=("P=8",))
    operators = (str(COMMS_OPS),)
    assert derived_kind(comms, operators) is ProblemKind.COMMS
    assert derived_kind(MATMUL) is ProblemKind.OPERATOR
    assert derived_kind(ProblemSpec("no_such_op")) is ProblemKind.OPERATOR  # its error comes later


def test_a_derivation_names_its_own_kind_and_derives_again_through_it():
    from derive.pipeline.kinds import derived_kind

    comms = ProblemSpec("tp_all_reduce", dtypes=("bf16",), chip="h100", sets=("B=8", "F=8", "P=8"))
    d = kind_of(comms).derive(comms, (str(COMMS_OPS),))
    assert d.kind is ProblemKind.COMMS and derived_kind(d) is ProblemKind.COMMS
    assert kind_of(d).derive(comms, (str(COMMS_OPS),)).as_json() == d.as_json()
    with pytest.raises(ProblemError, match="computes: not comms-only"):
        KINDS[ProblemKind.COMMS].derive(MATMUL)


def test_a_decode_with_no_batch_is_the_decode_crossover_kind():
    from derive.pipeline.kinds import derived_kind

    crossover = ModelEntry(
        "c", "t", "", ModelSpec("gpt2-small", chip="h100"), (), ServingSpec("decode")
    )
    assert derived_kind(crossover) is ProblemKind.DECODE_CROSSOVER
    assert derived_kind(DECODE) is ProblemKind.SERVING  # B bound: a timed step
    x = KINDS[ProblemKind.DECODE_CROSSOVER].derive(crossover)
    assert x.kind is ProblemKind.DECODE_CROSSOVER and x.kind.parent is ProblemKind.SERVING
    assert x.as_json() == solve_model("gpt2-small", chip="h100", phase="decode").as_json()
    with pytest.raises(ProblemError, match="its batch is bound"):
        KINDS[ProblemKind.DECODE_CROSSOVER].derive(DECODE)


def test_a_questions_only_problem_is_a_kind():
    from derive.pipeline.kinds.questions import question_spec_of
    from derive.problem.sets.problem_set import QuestionEntry

    spec = question_spec_of(given={"price": "2 $/h", "t": "3 h"}, define={"cost": "price * t"})
    entry = QuestionEntry("q", "t", "", (), spec)
    assert entry.kind is ProblemKind.QUESTIONS and kind_of(entry).kind is ProblemKind.QUESTIONS
    d = kind_of(entry).derive(entry)
    assert d.kind is ProblemKind.QUESTIONS and not d.values()
    assert d.questions.answer("cost").value == 6  # 2 $/h · 3 h, by hand
    assert "cost" in kind_of(entry).asks(entry)
    with pytest.raises(ProblemError, match="givens and equations alone"):
        api.check(entry, "cost", "6 $")


def test_no_isinstance_dispatch_on_a_sub_kind_outside_its_module():
    """A sub-kind is told apart by its kind (``result.kind``, ``derived_kind``), never by
    the class of its record: adding a kind is a module and rows."""
    import re
    from pathlib import Path

    import derive

    records = r"CommsDerivation|DecodeCrossoverDerivation|DecodeCrossover|QuestionsDerivation"
    pattern = re.compile(rf"isinstance\([^)]*\b({records})\b")
    root = Path(derive.__file__).parent
    found = [
        f"{path.relative_to(root)}:{n}"
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


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
