"""Widths fixed in a declaration survive --dtype; intermediates are priced at their own dtype (issue 16)."""

from __future__ import annotations

import sympy as sp

from derive.pipeline import solve
from tests.conftest import ROOT, run_cli

OPS = (str(ROOT / "tests" / "sets" / "teacher_ops.py"),)


def test_a_declared_width_is_kept_under_a_bare_dtype():
    d = solve("rmsnorm_scaled", dtype="bf16", chip="h100", operators=OPS)
    T, d_ = sp.symbols("T d", positive=True, integer=True)
    expected = 2 * T * d_ + 1 * d_ + 2 * T * d_  # x and y in bf16, the scale's 1 byte kept
    names = {s.name: s for s in d.analysis.memory.bytes.free_symbols}
    got = d.analysis.memory.bytes.subs({names["T"]: T, names["d"]: d_})
    assert sp.expand(got - expected) == 0


def test_naming_the_tensor_replaces_a_declared_width():
    d = solve("rmsnorm_scaled", dtypes=("bf16", "scale=bf16"), chip="h100", operators=OPS)
    widths = {term.tensor.name: term.width for term in d.analysis.memory.terms}
    assert widths["scale"] == 2


def _extra_bytes(*dtypes: str) -> sp.Expr:
    """Unfused minus fused bytes of the transformer block: the intermediates' traffic."""
    fusion = solve("transformer_block", dtypes=dtypes, chip="h100").analysis.layer.fusion
    return sp.expand(fusion.bytes_unfused - fusion.bytes_fused)


def test_intermediates_take_their_own_dtype():
    B, T, d_ff = sp.symbols("B T d_ff", positive=True, integer=True)
    # up's output, the activation's input and output, and down's input: 4 tensors of B·T·d_ff
    bf16 = _extra_bytes("bf16", "norm1_x=fp8")  # the first read in fp8 no longer sets them
    names = {s.name: s for s in bf16.free_symbols}
    assert bf16.subs({names[n]: s for n, s in (("B", B), ("T", T), ("d_ff", d_ff))}) == (
        4 * 2 * B * T * d_ff
    )
    one_fp8 = _extra_bytes("bf16", "up_Z=fp8")
    names = {s.name: s for s in one_fp8.free_symbols}
    assert one_fp8.subs({names[n]: s for n, s in (("B", B), ("T", T), ("d_ff", d_ff))}) == (
        (1 + 2 + 2 + 2) * B * T * d_ff
    )


def test_an_unknown_intermediate_is_refused_with_a_suggestion():
    result = run_cli(
        ["solve", "transformer_block", "--dtype", "bf16", "--dtype", "up_Zz=fp8", "--chip", "h100"]
    )
    assert result.code == 2 and result.err.count("\n") == 1
    assert "did you mean 'up_Z'?" in result.err
