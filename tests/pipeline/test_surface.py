"""One surface for every kind: each catalogue quantity reached four ways gives one value.

For each kind and each catalogue quantity its result has, the Python attribute, the
result's ``values()``, ``derive.check(result, q, exact)`` and a one-problem set with
``ask = [q]`` judged by ``derive check --problem-set`` agree with the kind's JSON report.
The JSON's exact text is read here with :class:`fractions.Fraction`, independently of
derive's own reader.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

import derive
from derive.catalogue import ProblemKind, Use
from derive.commands.cli import main
from derive.pipeline.budget import derive_budget
from derive.pipeline.kinds import kind_of
from derive.pipeline.kinds.questions import question_spec_of
from derive.problem.sets.natives import WhatIfSpec
from derive.problem.sets.problem_set import QuestionEntry

B, D, F = 4096, 4096, 4096
WHAT_IF = WhatIfSpec("gemm=0.62,other=0.38", "gemm=1.8", "70 ms", "1000", "tokens/s")
COMMS_OPS = Path(__file__).parents[1] / "sets" / "comms_ops.py"
QUESTIONS = QuestionEntry(
    "q", "cost", "", (), question_spec_of(given={"price": "2.49 $/h", "t": "2 h"}, define={"cost": "price * t"})
)  # fmt: skip
RESULTS = {
    "operator": lambda: derive.solve("matmul", dtype="bf16", chip="h100", set={"B": B, "D": D, "F": F}),
    "comms": lambda: derive.solve(
        "tp_all_reduce", dtype="bf16", chip="h100", set={"B": 8192, "F": 8192, "P": 8},
        operators=(str(COMMS_OPS),),
    ),
    "kernel": lambda: derive.solve(flops="1e12", bytes="2.5e9", chip="h100"),
    "model": lambda: derive.solve_model("gpt2-small", chip="h100", set={"B": 8, "S": 1024}),
    "serving": lambda: derive.solve_model(
        "gpt2-small", chip="h100", set={"B": 8, "S": 1024}, phase="decode"
    ),
    "decode_crossover": lambda: derive.solve_model(
        "gpt2-small", chip="h100", set={"S": 1024}, phase="decode"
    ),
    "training": lambda: derive.solve_training(  # context parallel: every dim's traffic shown
        "llama-3-8b", chip="h100", dp=4, cp=2, zero=1, batch_tokens=4194304, seq=4096
    ),
    "budget": lambda: derive_budget("5.76e23", params="70e9"),  # rational: D = C/(6N)
    "what_if": lambda: kind_of(WHAT_IF).derive(WHAT_IF),
    "questions": lambda: kind_of(QUESTIONS).derive(QUESTIONS),  # no catalogue quantity
}  # fmt: skip

# The same problems as one-problem sets (the ask is filled in per quantity).
SETS = {
    "operator": 'operator = "matmul"\ndtype = "bf16"\nchip = "h100"\n'
    f"set = {{ B = {B}, D = {D}, F = {F} }}\n",
    "comms": f'operators = ["{COMMS_OPS}"]\n[[problem]]\nid = "p"\noperator = "tp_all_reduce"\n'
    'dtype = "bf16"\nchip = "h100"\nset = { B = 8192, F = 8192, P = 8 }\n',
    "kernel": 'kernel = { flops = "1e12", bytes = "2.5e9" }\nchip = "h100"\n',
    "model": 'model = "gpt2-small"\nchip = "h100"\nset = { B = 8, S = 1024 }\n',
    "decode_crossover": 'model = "gpt2-small"\nchip = "h100"\nset = { S = 1024 }\n'
    'phase = "decode"\n',
    "training": 'model = "llama-3-8b"\nchip = "h100"\n'
    "train = { dp = 4, cp = 2, zero = 1, batch_tokens = 4194304, seq = 4096 }\n",
    "serving": 'model = "gpt2-small"\nchip = "h100"\nset = { B = 8, S = 1024 }\nphase = "decode"\n',
    "budget": 'budget = { compute = "5.76e23", params = "70e9" }\n',
    "what_if": 'what_if = { profile = "gemm=0.62,other=0.38", speedup = "gemm=1.8", '
    'measured_time = "70 ms", measured_tokens_per_s = "1000" }\n',
}


def _json_exact(node: object) -> object:
    """The JSON's exact value, read by hand: a number's text as a Fraction, truths as is."""
    if isinstance(node, dict):
        return _json_exact(node["exact"])
    if isinstance(node, bool):
        return node
    if isinstance(node, int):
        return Fraction(node)
    assert isinstance(node, str)
    try:
        return Fraction(node)
    except ValueError:
        return node  # a formula or a word: compared as the JSON prints it


def _as_plain(value: object) -> object:
    if isinstance(value, sp.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, sp.Basic) and not isinstance(value, sp.logic.boolalg.BooleanAtom):
        return str(value)
    return value


def _same(got: object, expected: object) -> bool:
    """Equal; a formula (text) equal as sympy reads both (the JSON prints textbook order)."""
    if isinstance(got, str) and isinstance(expected, str) and got != expected:
        return sp.expand(sp.sympify(got) - sp.sympify(expected)) == 0
    return got == expected


def _report(name: str, result: object) -> dict:
    out = result.as_json()
    if name == "comms":  # the time on the link, where an operator's network time sits
        return {**out, "network": {"t_comms": out["t_comms"]}}
    return {"serving": out} if name in ("serving", "decode_crossover") else out


def _walk(report: dict, path: tuple[str, ...]) -> object:
    node: object = report
    for key in path:
        node = node[key]  # type: ignore[index]
    return node


CASES = [
    (name, row.name)
    for name, make in RESULTS.items()
    for row in make().values()  # every quantity the kind's result has
]


@pytest.mark.parametrize(("name", "quantity"), CASES)
def test_every_way_to_a_quantity_agrees_with_the_json(name, quantity, tmp_path, capsys):
    result = RESULTS[name]()
    row = next(r for r in result.values() if r.name == quantity)
    # a sub-kind (comms-only, a decode's crossover) reads its parent's rows
    kind = result.kind.parent
    expected = _json_exact(_walk(_report(name, result), row.json_path(kind)))
    value = result.values()[row]
    attribute = getattr(result, quantity)  # every kind's attribute is a quantity with .exact
    assert attribute.exact == value.exact, (attribute, value)
    for alias in (a for a in row.aliases if a.isidentifier() and not hasattr(type(result), a)):
        assert getattr(result, alias).exact == value.exact, alias
    for got in (value.exact, attribute.exact):
        assert _same(_as_plain(got), expected), (got, expected)
    if not isinstance(expected, Fraction) or Use.CHECK not in row.uses(kind):
        return  # a formula, a truth or a word: checked as a number it is not
    claim = f"{expected.numerator}/{expected.denominator} {value.unit}".strip()
    if quantity == "crossover":
        claim = f"{expected.numerator}/{expected.denominator}"
    verdict = derive.check(result, quantity, claim).verdict
    assert verdict.value.startswith("correct"), (claim, verdict)
    if name not in SETS:
        return
    toml = tmp_path / "one.toml"
    problem = SETS[name] if name == "comms" else f'[[problem]]\nid = "p"\n{SETS[name]}'
    toml.write_text(f'title = "one"\n{problem}ask = ["{quantity}"]\n')
    code = main(
        [
            "check", "--problem-set", str(toml), "--problem", "p",
            "--quantity", quantity, "--claim", claim, "--format", "json", "--trust",
        ]
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["verdict"].startswith("correct"), out


def test_every_kind_of_result_has_the_surface():
    kinds = {RESULTS[name]().kind for name in RESULTS}
    assert kinds == set(ProblemKind)
    records = {type(RESULTS[name]()).__name__ for name in RESULTS}
    assert len(records) == len(RESULTS)  # the comms-only and decode-crossover sub-kinds too
    for name, make in RESULTS.items():
        result = make()
        assert result.values() or result.kind is ProblemKind.QUESTIONS, name  # its own names
        assert "\n" not in repr(result) and len(repr(result)) < 200, name
        assert result._repr_markdown_().strip() and result._repr_latex_().strip(), name
        for value in result.values().values():  # each quantity shows itself, with its unit
            assert repr(value).startswith(f"<{value.name} = ") and value._repr_latex_(), value
            assert value._repr_markdown_().startswith(value._repr_latex_()), value


def test_an_unknown_attribute_names_what_the_result_has():
    model = RESULTS["model"]()
    with pytest.raises(AttributeError, match="has no quantity 'tokens_per_s'; it has: params"):
        model.tokens_per_s  # noqa: B018  # a model has no serving rate


def test_the_answers_csv_takes_a_quantity_by_its_catalogue_name_or_alias(tmp_path, capsys):
    toml = tmp_path / "one.toml"
    toml.write_text(f'title = "one"\n[[problem]]\nid = "p"\n{SETS["operator"]}ask = ["t_lower"]\n')
    ridge = Fraction("9.89e14") / Fraction("3.35e12")  # the H100's bf16 ridge, by hand
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ann,p,ridge,{ridge.numerator}/{ridge.denominator}\n"
        "bob,p,I,BDF/(BD + DF + BF)\n"
    )
    code = main(["check", "--problem-set", str(toml), "--answers", str(answers)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and [line.split(",")[4] for line in out[1:]] == ["correct", "correct"]


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["matmul", "--dtype", "bf16", "--chip", "h100", "--claim", "BDF/(BD + DF + BF)"], "I"),
        (["--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100", "--claim", "400"], "AI"),
    ],
)
def test_quantity_takes_a_catalogue_alias(argv, name, capsys):
    code = main(["check", *argv, "--quantity", name, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["verdict"] == "correct" and out["quantity"] == "intensity"


def _known_tables(name: str, result: object) -> dict:
    """The names the given/define/equations layer knows for a result (its own reader)."""
    from derive.questions.quantities import quantities_of

    record = {"kernel": "kernel", "serving": "phase"}.get(name, "analysis")
    return quantities_of(getattr(result, record))


@pytest.mark.parametrize("name", ["operator", "kernel", "model", "serving"])
def test_the_formula_layer_knows_each_quantity_as_values_has_it(name):
    """Two readers of one result (values() and the questions layer's known names) agree on
    every quantity both have, in the unit values() states (a Known is in base units; an
    operator's formulas are known at its bound dims)."""
    result = RESULTS[name]()
    bound = result.analysis.problem.bound_subs() if name == "operator" else {}
    known = _known_tables(name, result)
    shared = [(row, v) for row, v in result.values().items() if row.name in known]
    assert shared
    for row, value in shared:
        k = known[row.name]
        if isinstance(value.exact, bool) or k.branches:
            continue
        exact = value.exact.xreplace(bound)
        assert sp.simplify(k.value / k.measure.factor - exact) == 0, row.name


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_a_result_pickles_with_its_values(name):
    """Worker processes hand results back pickled: the values computed once go along."""
    import pickle

    result = RESULTS[name]()
    values = {row.name: value for row, value in result.values().items()}
    again = pickle.loads(pickle.dumps(result))
    assert {row.name: value for row, value in again.values().items()} == values


# The same problems as command lines: ``--define x=<q>`` reads the kind's formula layer.
ARGV = {
    "operator": ["solve", "matmul", "--dtype", "bf16", "--chip", "h100",
                 "--set", f"B={B}", "--set", f"D={D}", "--set", f"F={F}"],
    "kernel": ["solve", "--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100"],
    "model": ["model", "gpt2-small", "--chip", "h100", "--set", "B=8", "--set", "S=1024"],
    "serving": ["model", "gpt2-small", "--chip", "h100", "--set", "B=8", "--set", "S=1024",
                "--phase", "decode"],
}  # fmt: skip

DEFINE_CASES = [
    (name, row.name)
    for name in ARGV
    for row in RESULTS[name]().values()
    if row.name in _known_tables(name, RESULTS[name]())
]


@pytest.mark.parametrize(("name", "quantity"), DEFINE_CASES)
def test_define_of_a_quantity_agrees_with_the_json(name, quantity, capsys):
    """``--define x=<q>`` on the command line is the JSON's value of q (the defined value is
    in base units; the formula layer's measure of q brings it to the unit values() states;
    an operator's formulas at its bound dims)."""
    result = RESULTS[name]()
    row = next(r for r in result.values() if r.name == quantity)
    known = _known_tables(name, result)[quantity]
    if isinstance(result.values()[row].exact, bool) or known.branches:
        return  # a truth or a value by branches: no single exact number to define
    expected = _json_exact(_walk(_report(name, result), row.json_path(result.kind.parent)))
    code = main([*ARGV[name], "--define", f"x={quantity}", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    defined = out["defined"]["x"]
    got = Fraction(defined["exact"]) / Fraction(str(known.measure.factor))
    if not isinstance(expected, Fraction):  # an operator's formula: known at its bound dims
        bound = result.analysis.problem.bound_subs()
        at = sp.sympify(expected, locals={s.name: s for s in bound}).xreplace(bound)
        expected = Fraction(int(at.p), int(at.q))
    assert got == expected, (quantity, defined, expected)


def test_an_operator_quantity_stands_in_for_its_exact_sympy_value():
    """Code written when ``d.t_lower`` was a bare sympy value keeps working: the Value
    sympifies, computes, compares, converts and answers sympy's methods as its exact value."""
    d = RESULTS["operator"]()
    flops, moved = Fraction(2 * B * D * F), Fraction(2 * (B * D + D * F + B * F))
    t_math, t_mem = flops / Fraction("9.89e14"), moved / Fraction("3.35e12")  # by hand
    assert d.t_lower == max(t_math, t_mem) == d.t_lower.exact and d.t_lower.unit == "s"
    assert sp.sympify(d.t_lower) == sp.Rational(t_math.numerator, t_math.denominator)
    assert 2 * d.t_lower - d.t_lower == d.t_lower.exact and d.t_lower / d.t_math == 1
    assert d.t_mem < d.t_math and float(d.t_lower) == float(max(t_math, t_mem))
    assert str(d.t_lower) == str(d.t_lower.exact) and f"{d.t_lower}" == str(d.t_lower.exact)
    assert sp.latex(d.t_lower) == sp.latex(d.t_lower.exact)
    b, dd, f = sp.symbols("B D F", positive=True, integer=True)
    assert d.intensity.free_symbols == {b, dd, f}
    at = d.intensity.subs({b: B, dd: D, f: F})
    assert at == flops / moved == d.intensity_bound
    assert d.regime_holds is None and d.flops == 2 * b * dd * f


def test_a_comms_only_time_is_a_quantity_while_its_dims_are_unbound():
    d = derive.solve(
        "tp_all_reduce", dtype="bf16", chip="h100", operators=(str(COMMS_OPS),)
    )  # no dims bound: T_comms is a formula
    assert d.t_comms.free_symbols and d.t_comms == d.value("t_lower").exact
    at = d.t_comms.subs({s: {"B": 8192, "F": 8192, "P": 8}[s.name] for s in d.t_comms.free_symbols})
    assert at == RESULTS["comms"]().t_comms.exact


@pytest.mark.parametrize("name", ["model", "training", "operator"])
def test_threads_reading_a_fresh_result_all_see_its_values(name):
    """Four threads read one fresh result at once (a barrier starts them together): every
    attribute read and every ``values()`` gives the one answer, none fails."""
    import sys
    import threading

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    try:
        first = next(iter(RESULTS[name]().values())).name
        for _ in range(10):
            result, barrier, got, errors = RESULTS[name](), threading.Barrier(4), [], []

            def read(result=result, barrier=barrier, got=got, errors=errors):
                barrier.wait()
                try:
                    got.append((getattr(result, first).exact, dict(result.values())))
                except Exception as error:  # every failure is counted
                    errors.append(repr(error))

            threads = [threading.Thread(target=read) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert errors == [] and len(got) == 4 and all(g == got[0] for g in got), errors
    finally:
        sys.setswitchinterval(interval)
