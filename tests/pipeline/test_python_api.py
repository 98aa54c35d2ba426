"""derive from Python (issue 16): objects in, real signatures, attributes named as the JSON keys."""

from __future__ import annotations

import inspect

import derive
from derive.present.json_export import to_json

QUANTITIES = (
    "flops",
    "intensity",
    "intensity_bound",
    "intensity_regime",
    "intensity_regime_bound",
    "ridge",
    "t_math",
    "t_mem",
    "t_lower",
    "t_upper",
    "attainable",
    "fraction_of_peak",
    "regime_holds",
)


def test_solve_shows_its_real_signature_and_docstring():
    parameters = inspect.signature(derive.solve).parameters
    assert list(parameters)[:3] == ["operator", "dtype", "dtypes"]
    assert not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters.values())
    assert "Operator" in (derive.solve.__doc__ or "")


def test_solve_takes_an_operator_object_that_no_file_declares():
    B, D = derive.dims("B D")
    op = derive.Operator(
        name="scaled_sum",
        flops=2 * B * D,
        reads=[derive.Tensor("X", (B, D))],
        writes=[derive.Tensor("Y", (B,))],
    )
    d = derive.solve(op, dtype="bf16", chip="h100")
    assert d.flops == 2 * B * D
    assert d.bytes == 2 * B * D + 2 * B


def test_solve_takes_a_composite_object():
    from derive.declare.registry import load_registry

    builtin = load_registry()
    matmul = builtin.get("matmul")
    (d_model,) = derive.dims("d_model")
    layer = derive.Composite(
        name="two_matmuls",
        parts=[
            ("up", matmul, {matmul.dim("D"): d_model, matmul.dim("F"): 4 * d_model}),
            ("down", matmul, {matmul.dim("D"): 4 * d_model, matmul.dim("F"): d_model}),
        ],
        fused=[("up", "down")],
    )
    d = derive.solve(layer, dtype="bf16", chip="h100")
    assert d.analysis.layer is not None and d.analysis.layer.fusion is not None


def test_attributes_are_the_json_keys():
    d = derive.solve(
        "matmul", dtype="bf16", chip="tpu-v5e", regime="B << D, F", set={"D": 4096, "F": 4096}
    )
    data = to_json(d.analysis)
    for key in QUANTITIES:
        value = getattr(d, key)  # a Value: str is its exact value's, a truth compares equal
        assert data[key] == (value if value is None or isinstance(data[key], bool) else str(value))
        assert value is None or value.exact == d.value(key).exact, key
    assert data["crossover"]["exact"] == str(d.crossover.exact)
    assert data["crossover_regime"]["exact"] == str(d.crossover_regime.exact)


def test_repr_is_one_short_line():
    d = derive.solve("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")
    text = repr(d)
    assert "\n" not in text and len(text) < 200
    assert text.startswith("<Derivation matmul") and "B ≥ 121" in text
