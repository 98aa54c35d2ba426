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
