"""One operator's sharding (issue 36): derive solve matmul --shard DIM:P, against hand counts."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import run_cli

_MM = ["solve", "matmul", "--dtype", "bf16", "--chip", "h100",
       "--set", "B=4096", "--set", "D=8192", "--set", "F=8192"]  # fmt: skip
_LINK = Fraction(450 * 10**9)  # the H100's NVLink, one way (chips.toml: 4.5e11)


def _sharding(*more: str) -> dict:
    r = run_cli([*_MM, *more, "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_column_parallel_matmul_all_gathers_the_output():
    out = _sharding("--shard", "F:8")
    s = out["sharding"]
    z = 4096 * 8192 * 2  # the full Z[B,F] in bf16
    assert s["collective"] == "all_gather"
    assert Fraction(s["bytes_sent"]) == Fraction(7, 8) * z  # ring: (P−1)/P of the tensor
    assert Fraction(s["t_comms"]) == Fraction(7, 8) * z / _LINK
    assert Fraction(s["t_math"]) == Fraction(2 * 4096 * 8192 * 8192, 8) / (989 * 10**12)


def test_row_parallel_matmul_all_reduces_the_partial_outputs():
    s = _sharding("--shard", "D:8")["sharding"]
    assert s["collective"] == "all_reduce"
    assert Fraction(s["bytes_sent"]) == 2 * Fraction(7, 8) * 4096 * 8192 * 2


def test_the_largest_group_before_the_link_binds_is_the_largest_divisor_that_keeps_up():
    s = _sharding("--shard", "F:8")["sharding"]
    z, flops = 4096 * 8192 * 2, 2 * 4096 * 8192 * 8192

    def keeps_up(p: int) -> bool:
        t_comms = Fraction(p - 1, p) * z / _LINK
        t_math = Fraction(flops, p) / (989 * 10**12)
        moved = 2 * (4096 * 8192 + 8192 * 8192 // p + 4096 * 8192 // p)
        return t_comms <= max(t_math, Fraction(moved) / (335 * 10**10))

    divisors = [p for p in range(2, 8193) if 8192 % p == 0]
    assert s["largest_group"] == max(p for p in divisors if keeps_up(p))


def test_compare_shardings_lists_every_dim():
    s = _sharding("--shard", "F:8", "--compare-shardings")["sharding"]
    assert [(r["dim"], r["collective"]) for r in s["compared"]] == [
        ("B", "all_gather"), ("D", "all_reduce"), ("F", "all_gather"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("shard", "says"),
    [("Q:8", "no dim 'Q'"), ("F:3", "does not divide F"), ("F:1", "at least 2"), ("F", "DIM:P")],
)
def test_bad_shard_is_one_line_naming_the_flag(shard, says):
    r = run_cli([*_MM, "--shard", shard])
    assert r.code == 2 and "--shard" in r.err and says in r.err and r.err.count("\n") == 1


@pytest.mark.parametrize("fmt", ["md", "tex", "text", "json"])
@pytest.mark.parametrize("bound", [[], ["--set", "F=8192"]], ids=["all-free", "B-and-D-free"])
def test_free_dims_stay_formulas_in_every_format(fmt, bound):
    """Once a traceback (``TypeError: cannot create mpf``) whenever a dim was left free: the
    all-gather of Z[B, F] over 8 is 7/8 of its 2·B·F bytes, a formula while B or F is free."""
    import sympy as sp

    argv = ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--shard", "F:8", *bound]
    r = run_cli([*argv, "--compare-shardings", "--format", fmt])
    assert r.code == 0 and "Traceback" not in r.err, r.err
    b, f = sp.Symbol("B"), sp.Integer(8192) if bound else sp.Symbol("F")
    sent = sp.Rational(7, 8) * 2 * b * f
    if fmt == "json":
        s = json.loads(r.out)["sharding"]
        assert (s["bytes_sent"], s["largest_group"]) == (str(sent), None)
        assert s["t_comms"] == str(sent / sp.Integer(_LINK.numerator))
        return
    section = r.out[r.out.rindex("Sharding") :]
    coefficient = sent / b if bound else None  # 14336 B, or 7 B F/4
    shown = {"text": "(7 B F)/(4)"}.get(fmt, r"\frac{7 B F}{4}")
    assert (f"{coefficient} B" if bound else shown) in section, section
    assert "no largest group is sought" in section
    if fmt == "text":
        assert "frac" not in r.out and "(D F w_Y)/(8)" in r.out  # nested braces read too


def test_a_dim_split_is_a_set_key_and_a_check_flag_so_its_answers_are_graded(cli, tmp_path):
    """``shard = ["F:8"]`` in a set and ``derive check --shard F:8`` judge the sharded step
    as ``derive solve --shard F:8`` derives it (before: the set refused DIM:P as no tensor,
    and check had no --shard)."""
    seconds = Fraction(7, 8) * 4096 * 8192 * 2 / _LINK  # the all-gather of Z[B, F] in bf16
    claim = f"{seconds.numerator}/{seconds.denominator} s"
    toml = tmp_path / "set.toml"
    toml.write_text(
        'title = "Split"\n[[problem]]\nid = "p"\noperator = "matmul"\ndtype = "bf16"\n'
        'chip = "h100"\nshard = ["F:8"]\nset = { B = 4096, D = 8192, F = 8192 }\n'
    )
    check = ["check", "--problem-set", str(toml), "--problem", "p", "--quantity", "t_comms"]
    assert cli([*check, "--claim", claim]).out.startswith("verdict: correct")
    assert cli([*check, "--claim", f"{2 * seconds} s"]).out.startswith("verdict: incorrect")
    flags = ["check", *_MM[1:], "--shard", "F:8", "--quantity", "t_comms", "--claim", claim]
    assert cli(flags).out.startswith("verdict: correct"), cli(flags).err
    refused = cli([*check, "--shard", "F:8", "--claim", claim])
    assert refused.code == 2 and "--shard" in refused.err
    assert cli(["key", str(toml), "-o", str(tmp_path / "key")]).code == 0
