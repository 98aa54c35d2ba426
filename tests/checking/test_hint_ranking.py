"""Every hint earned, in general (issue 33, item 4): one diagnosis at most, and only one that fits.

Every numeric quantity of every problem of the built-in set is claimed at its exact value
times the classic slip factors (2, 1/2, 1000, 1/1000, 2^30/10^9, 8, 1/8). Each verdict
names at most one diagnosis; every slip row it names went through the one rule of
:mod:`derive.checking.hints` (its premise fits the quantity and its value reproduces the
claim); and, read as text, no hint's premise contradicts the quantity (no GiB for a count
or a rate of tokens, no K and V outside the K/V cache, no multiply-adds for bytes or
tokens). With the expected value hidden, the same claims get sentences that state no
number of the answer's (test_hidden's check, at the slip distances this time).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from test_hidden import _cases, _judge, _numeric, assert_states_nothing

import derive
from derive.catalogue import Computation, find
from derive.checking import hints
from derive.formula.units import Dimension

FACTORS = {
    "2": Fraction(2),
    "1/2": Fraction(1, 2),
    "1000": Fraction(1000),
    "1/1000": Fraction(1, 1000),
    "GiB/GB": Fraction(2**30, 10**9),
    "8": Fraction(8),
    "1/8": Fraction(1, 8),
}
# (what a sentence says, the dimensions of the quantities it may be said of: its premise)
_NO_BYTES = (Dimension.COUNT, Dimension.TOKEN_RATE, Dimension.FLOPS, Dimension.FLOP_RATE)
_PREMISES = (
    ("GiB", _NO_BYTES),
    ("bits and bytes", _NO_BYTES + (Dimension.TIME,)),
    ("multiply-a", (Dimension.BYTES, Dimension.BYTE_RATE, Dimension.TOKEN_RATE)),
    ("MACs", (Dimension.BYTES, Dimension.BYTE_RATE, Dimension.TOKEN_RATE)),
)
_FROM_BYTES = (Computation.BYTES, Computation.TRANSFER_TIME, Computation.CROSSOVER)


def _claim(value: sp.Expr, factor: Fraction) -> str:
    return f"{float(value * sp.Rational(factor.numerator, factor.denominator)):.6g}"


class _Spy:
    """Every slip row the one rule weighs, whether it fits, and whether it reproduces the claim."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.fits: dict[str, bool] = {}
        self.reproduced: set[str] = set()
        fits, reproduces = hints._fits, hints.reproduces

        def spy_fits(slip, quantity):
            ok = fits(slip, quantity)
            self.fits[slip.why] = self.fits.get(slip.why, False) or ok
            return ok

        def spy_reproduces(slip, claim, rtol):
            near = reproduces(slip, claim, rtol)
            if near is not None:
                self.reproduced.add(slip.why)
            return near

        monkeypatch.setattr(hints, "_fits", spy_fits)
        monkeypatch.setattr(hints, "reproduces", spy_reproduces)

    def reset(self) -> None:
        self.fits.clear()
        self.reproduced.clear()

    def shown(self, text: str) -> list[str]:
        """The rows weighed whose sentence the output holds (one inside another counted once)."""
        said = [why for why in self.fits if why in text]
        return [w for w in said if not any(w != o and w in o for o in said)]


@pytest.mark.parametrize("entry_id,quantity", _cases())
def test_one_earned_diagnosis_at_every_slip_distance(entry_id, quantity, monkeypatch):
    value = _numeric(entry_id, quantity)
    if value is None:
        pytest.skip("not a number here (a formula, a truth value, or not derived)")
    spy = _Spy(monkeypatch)
    row = find(quantity)
    dimension = row.dimension if row is not None else None
    for name, factor in FACTORS.items():
        claim = _claim(value, factor)
        spy.reset()
        r = _judge(entry_id, quantity, claim, hide=False)
        if r.verdict is not derive.Verdict.INCORRECT:
            continue
        assert len(r.diagnosis) <= 1, (name, claim, r.diagnosis)
        text = " ".join(r.diagnosis)
        shown = spy.shown(text)
        assert len(shown) <= 1, (name, claim, shown)
        for why in shown:
            assert spy.fits[why] and why in spy.reproduced, (name, claim, why)
        for words, not_for in _PREMISES:
            if words == "bits and bytes" and row is not None and row.computation in _FROM_BYTES:
                continue  # a crossover, a transfer time: computed from bytes moved
            assert not (words in text and dimension in not_for), (name, claim, text)
        if "K and V" in text:
            assert quantity.startswith("kv_"), (name, claim, text)


@pytest.mark.parametrize("entry_id,quantity", _cases())
def test_hidden_slips_state_no_number_of_the_answer(entry_id, quantity):
    value = _numeric(entry_id, quantity)
    if value is None:
        pytest.skip("not a number here (a formula, a truth value, or not derived)")
    for factor in FACTORS.values():
        claim = _claim(value, factor)
        r = _judge(entry_id, quantity, claim)
        assert r.expected is None and r.relative_error is None
        if r.verdict is derive.Verdict.INCORRECT:
            assert_states_nothing(claim, r)


def test_the_most_specific_slip_is_named_when_several_reproduce_the_claim():
    """A named slip of the quantity beats a unit slip, which beats a bare factor; among
    equals, the value closer to the claim."""
    half = sp.Integer(50)
    rows = [
        hints.Slip(half, "a factor of 2", hints.Rank.GENERIC),
        hints.Slip(half, "GiB read as GB", hints.Rank.UNITS, frozenset({hints.Facet.BYTES})),
        hints.Slip(half * sp.Rational(1001, 1000), "another peak", hints.Rank.VARIANT),
        hints.Slip(half, "MACs counted once", hints.Rank.VARIANT),
        hints.Slip(half, "one of K and V", hints.Rank.NAMED, frozenset({hints.Facet.KV})),
    ]
    rtol = sp.Rational(1, 100)
    kv, count = hints.facets("kv_bytes_per_token"), hints.facets("params")
    assert hints.earned(rows, half, rtol, kv).why == "one of K and V"
    assert hints.earned(rows, half, rtol, count).why == "MACs counted once"  # closer
    assert hints.earned(rows[:2], half, rtol, count).why == "a factor of 2"  # no GiB: a count
    assert hints.earned(rows[:2], half, rtol, hints.facets("weights_bytes")).why == "GiB read as GB"
    assert hints.earned(rows, half * 3, rtol, kv) is None  # nothing reproduces 150


QWEN2_7B = {  # Qwen/Qwen2-7B's config.json (the fields derive reads)
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_act": "silu",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 131072,
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "vocab_size": 152064,
}


def _qwen(tmp_path):
    import json

    from derive.problem.sets.problem_set import load_problem_set

    (tmp_path / "qwen2-7b.json").write_text(json.dumps(QWEN2_7B))
    (tmp_path / "set.toml").write_text(
        'title = "t"\n[[problem]]\nid = "qwen"\ntitle = "Qwen2-7B"\ntext = "Count it."\n'
        'model = "qwen2-7b.json"\nask = ["params", "weights_bytes"]\n'
    )
    return next(e for e in load_problem_set(tmp_path / "set.toml").entries() if e.id == "qwen")


def test_untied_tables_of_one_size_are_one_slip_and_a_weight_width_is_named(tmp_path):
    from derive.checking.api import model_values

    entry = _qwen(tmp_path)
    ((_, params, _),) = model_values(entry, ["params"])
    table = 152064 * 3584  # V·d: the embedding and the (untied) head are the same size
    r = derive.check(entry, "params", str(int(params) - table))
    assert r.diagnosis[0].endswith(
        "that leaves out one of the embedding table and the output head (each V·d): "
        "the parameters count every table"
    )
    r = derive.check(entry, "params", str(int(params) - 2 * table))
    assert "leaves out the embedding table and the output head" in r.diagnosis[0]
    weights = 2 * int(params)  # bf16: 2 bytes a parameter
    r = derive.check(entry, "weights_bytes", str(weights // 2))
    said = r.diagnosis[0]
    assert "1 byte per parameter" in said and "K and V" not in said and "multiply" not in said
    hidden = derive.check(entry, "weights_bytes", str(weights // 2), hide_expected=True)
    assert "1 byte per parameter" in hidden.diagnosis[0] and str(weights) not in hidden.diagnosis[0]


def test_a_tied_head_is_not_said_to_be_left_out():
    # GPT-2 small ties its head to the token embedding: 50257·768 parameters counted once
    ((_, params, _),) = model_values_of("gpt2-small")
    r = derive.check("gpt2-small", "params", str(int(params) - 50257 * 768))
    assert r.diagnosis[0].endswith(
        "that leaves out the embedding table: the parameters count every table"
    )


def model_values_of(name):
    from derive.checking.api import model_values
    from derive.problem.model_spec import ModelSpec

    return model_values(ModelSpec(name), ["params"])
