"""Issue 36 item 1 (with issue 31 item 4): a price target solved for a serving step's batch,
``derive model … --phase decode --price-per-hour 2.49 --equation
'cost_per_million_tokens = 0.5 $' --unknown B``.

The cost is recomputed here from the step's rate (price · devices / tokens per second, per
million tokens), and the batch found is checked against its neighbour below.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import run_cli

_STEP = ["model", "llama-2-70b", "--chip", "h100", "--phase", "decode", "--set", "S=4096"]
_PRICE = ["--price-per-hour", "2.49"]


def _rate(batch: int) -> Fraction:
    r = run_cli([*_STEP, "--set", f"B={batch}", *_PRICE, "--format", "json"])
    assert r.code == 0, r
    return Fraction(json.loads(r.out)["serving"]["tokens_per_s"])


def _cost(batch: int) -> Fraction:
    # one device at $2.49 an hour: dollars per second over tokens per second, per 10^6 tokens
    return Fraction(249, 100) / 3600 / _rate(batch) * 10**6


@pytest.mark.parametrize("relation", ["=", "<="])
def test_price_target_solved_for_the_batch(relation):
    eq = f"cost_per_million_tokens {relation} 0.5 $"
    r = run_cli([*_STEP, *_PRICE, "--equation", eq, "--unknown", "B", "--format", "json"])
    assert r.code == 0, r
    data = json.loads(r.out)
    batch = int(data["defined"]["B"]["exact"])
    assert _cost(batch) <= Fraction(1, 2) < _cost(batch - 1)
    # the step reported is the step at the batch found
    assert Fraction(data["serving"]["cost_per_million_tokens"]) == _cost(batch)


def test_batch_set_and_unknown_is_refused_in_one_line():
    r = run_cli(
        [
            *_STEP,
            "--set",
            "B=8",
            *_PRICE,
            "--equation",
            "cost_per_million_tokens = 0.5 $",
            "--unknown",
            "B",
        ]
    )
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1 and "--unknown B" in r.err, r


def test_an_unreachable_price_is_refused_in_one_line():
    r = run_cli(
        [*_STEP, *_PRICE, "--equation", "cost_per_million_tokens = 0.0001 $", "--unknown", "B"]
    )
    assert r.code == 2 and r.err.count("\n") == 1 and "no B" in r.err, r


# -- a parameter target solved for a declared width (issue 36 item 2) -------------------------

TINY = """
from derive import Transformer, dims
d, = dims("d")
tiny = Transformer(name="tiny", layers=2, d_model=d, heads=1, kv_heads=1, head_dim=d,
                   d_ff=4*d, mlp="plain", vocab=1000, tied_embeddings=True, positions=None,
                   bias=False)
"""


def _params(
    d: int,
) -> int:  # 2 layers of attention 4d², a plain MLP 8d², 2 norms; embedding, final norm
    return 2 * (4 * d * d + 8 * d * d + 2 * d) + 1000 * d + d


def test_target_params_solves_the_width(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    argv = ["model", "tiny", "--operators", str(path), "--chip", "h100"]
    r = run_cli([*argv, "--target-params", "10.6e6", "--unknown", "d", "--format", "json"])
    assert r.code == 0, r
    d = int(json.loads(r.out)["defined"]["d"]["exact"])
    assert _params(d - 1) < 10_600_000 <= _params(d)  # '=': the smallest integer from the root up
    # the same as the equation it stands for
    same = run_cli([*argv, "--equation", "params = 10.6e6", "--unknown", "d", "--format", "json"])
    assert json.loads(same.out)["defined"] == json.loads(r.out)["defined"]
    md = run_cli([*argv, "--target-params", "10.6e6", "--unknown", "d"]).out
    assert " D = " not in md and ". d = " in md  # a symbol keeps its case


def test_target_params_without_an_unknown_is_refused_in_one_line(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    r = run_cli(["model", "tiny", "--operators", str(path), "--target-params", "10.6e6"])
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1 and "--target-params" in r.err, r
