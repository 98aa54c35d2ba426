"""The worked-solution builder reads the analysis; it never computes.

By the contract in derive/analysis/analyse.py, every value a worked solution shows is a
field of the Analysis record. This test reads derive/solution's source (no import, no
run) and fails on anything that would compute: the algebra, a second ``analyse``, a
sympy function call.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import sympy as sp

SOLUTION = Path(__file__).resolve().parents[2] / "derive" / "solution"
MODULES = sorted(SOLUTION.glob("*.py"))

# what derive/solution may import: the records of earlier stages, and its own LaTeX printer
ALLOWED_FROM = {
    "derive.analysis.analyse": {"Analysis", "IntensityForm", "Roofline", "Threshold"},
    "derive.analysis.crossover.records": {
        "ALWAYS",
        "CROSSES",
        "NEVER",
        "UNDETERMINED",
        "Crossover",
        "CrossoverStatus",
    },
    "derive.analysis.parts": {"Fusion", "LayerBreakdown", "PartRow"},
    "derive.analysis.leading_order": {"LeadingOrder"},
    "derive.analysis.step": {"Binding", "KernelTime", "StepTime"},
    "derive.analysis.measured": {"Measured", "MeasuredVerdict"},
    "derive.analysis.collectives": {"CollectiveTime"},
    "derive.analysis.kernel_numbers": {"KernelNumbers"},
    "derive.model.phase": {"DecodeCrossover", "Phase", "PhaseAnalysis"},
    "derive.analysis.comms_only": {"CommsAnalysis"},
    "derive.model.binding": {"ModelProblem"},
    "derive.model.records": {"ModelAnalysis", "Quantity", "Unit"},
    "derive.model.sized": {"SizedModel"},
    "derive.model.symbols": {"NOTATION", "sym", "tex_names"},  # the notation table
    "derive.training.analysis": {"Critical", "StrategyRow", "TrainingAnalysis"},
    "derive.training.binding": {
        "Recompute",
        "TrainingProblem",
        "ZeroStage",
        "CONVENTIONS",
    },  # presets: text
    "derive.training.comms": {
        "DIMS",
        "Transfer",
        "RERUN",
        "layer_calls",
    },  # the per-layer calls: a table
    "derive.analysis.network": {"Exchange"},  # a closed set of names
    "derive.model.budget": {"Budget", "Given", "CHINCHILLA", "KAPLAN"},  # a record, its conventions
    "derive.model.costs": {"StepCost", "HOUR"},  # a record and the seconds in an hour
    "derive.analysis.what_if": {"WhatIf"},
    "derive.solution.notation": {"tex", "tex_decimal", "tex_sub", "tex_sum", "tex_text_number"},
}
ALLOWED_PREFIXES = (
    "derive.solution.",
    "derive.problem.",
    "derive.declare.",
    "derive.catalogue",  # the names and rules of quantities: data, nothing computed
    "derive.formula.decimals",
    "derive.formula.durations",  # a time as a person reads it: printing, nothing computed
    "__future__",
)
COMPUTING_NAMES = {"analyse", "breakdown", "substitute", "cancel", "cancel_at", "cancel_ratio"}


def _imports(tree: ast.AST) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [(node.module or "", alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_solution_imports_only_records(path):
    for module, name in _imports(ast.parse(path.read_text())):
        if module in ALLOWED_FROM:
            assert name in ALLOWED_FROM[module], f"{path.name} imports {name} from {module}"
        elif module.startswith("derive"):
            assert module.startswith(ALLOWED_PREFIXES), f"{path.name} imports {module}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_solution_calls_no_algebra(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            assert func.value.id not in ("sp", "sympy", "algebra"), (
                f"{path.name}:{node.lineno} calls {func.value.id}.{func.attr}"
            )
        if isinstance(func, ast.Name):
            assert func.id not in COMPUTING_NAMES, f"{path.name}:{node.lineno} calls {func.id}"


def test_the_test_sees_a_violation():
    """The checks above would catch the calls the builder used to make."""
    tree = ast.parse(
        "from derive.analysis.algebra.rings import substitute\n"
        "from derive.analysis.analyse import analyse\n"
        "substitute(e, v)\nsp.Add(a, b)\n"
    )
    imports = _imports(tree)
    assert ("derive.analysis.algebra.rings", "substitute") in imports
    assert "analyse" not in ALLOWED_FROM["derive.analysis.analyse"]
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert any(isinstance(f, ast.Name) and f.id in COMPUTING_NAMES for f in calls)
    assert any(isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "sp" for f in calls)


@pytest.mark.parametrize("sets", [("D=4096", "F=11008"), ("D=64", "F=64"), ()])
def test_the_values_the_solution_reads_are_right(sets):
    """Threshold, intensity forms and values at the bound dims, each against naive sympy."""
    from derive.analysis.analyse import analyse
    from derive.declare.registry import load_registry
    from derive.problem.binding import ProblemSpec, bind

    spec = ProblemSpec("matmul", ("bf16",), peak="1.97e14", bandwidth="8.2e11", sets=sets)
    a = analyse(bind(spec, load_registry().get("matmul")))
    x, bound = a.problem.solve_for, a.problem.bound_subs()
    but_x = a.problem.bound_subs(except_dim=x)
    naive_intensity = a.flops.subs(but_x) / sum(t.bytes for t in a.memory.terms).subs(but_x)
    form = a.memory.written_of_x
    assert sp.simplify(form.lowest - naive_intensity) == 0
    assert sp.simplify(form.flops / sum(form.terms) - naive_intensity) == 0
    assert a.flops_bound == a.flops.subs(bound)
    assert a.memory.bytes_bound == sum(t.bytes for t in a.memory.terms).subs(bound)
    threshold, ridge = a.memory.threshold, sp.Rational(197 * 10**12, 82 * 10**10)
    if a.crossover.is_number:
        assert threshold is not None and threshold.at == naive_intensity.subs(x, threshold.smallest)
        assert threshold.at >= ridge and (threshold.below is None or threshold.below < ridge)
    else:
        assert threshold is None
