"""``derive key``: a problem's ``expect`` is checked against the exact value the key derives.

A kernel's and a training run's ``expect`` that disagree with derive's value (by more than
the 0.5 % a defined quantity's ``expect`` may be off) stop the key in one line naming the
file, the problem, the quantity, the stated and the derived value; nothing is written.
Every value here is computed from the problem's inputs and the chip table.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from conftest import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

CHIPS = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text("utf-8"))
H100_PEAK = Fraction(CHIPS["h100"]["peak_bf16_flop_per_s"]["value"])
H100_BANDWIDTH = Fraction(CHIPS["h100"]["hbm_bytes_per_s"]["value"])
FLOPS, MOVED = Fraction("1e12"), Fraction("2.5e9")
T_LOWER = max(FLOPS / H100_PEAK, MOVED / H100_BANDWIDTH)
# 2 replicas of 4 stages, 4Mi tokens in micro-batches of one 4096-token sequence:
# M = 4194304 / (2 · 4096) micro-batches per replica, bubble (pp − 1) / (M + pp − 1)
MICRO = Fraction(4194304, 2 * 4096)
BUBBLE = Fraction(4 - 1) / (MICRO + 4 - 1)


def _text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _kernel(expect: str) -> str:
    return f"""[[problem]]
id = "gemm"
title = "A kernel by its counts"
text = "1e12 FLOPs over 2.5e9 bytes on an H100."
kernel = {{ flops = "1e12", bytes = "2.5e9" }}
chip = "h100"
expect = {{ t_lower = "{expect}" }}
"""


def _training(expect: str) -> str:
    return f"""[[problem]]
id = "pipeline"
title = "Llama 3 70B in a pipeline"
text = "Llama 3 70B on 64 H100s, 4 stages."
model = "llama-3-70b"
chip = "h100"
train = {{ dp = 2, tp = 8, pp = 4, zero = 1, recompute = "selective", batch_tokens = 4194304, seq = 4096 }}
ask = ["bubble_fraction"]
expect = {{ bubble_fraction = "{expect}" }}
"""


# a bf16 matmul at B = D = F = 4096: 2·B·D·F FLOPs over 2 bytes for each of B·D, D·F and B·F
SIDE = 4096
INTENSITY = Fraction(2 * SIDE**3, 2 * 3 * SIDE**2)


def _operator(expect: str) -> str:
    return f"""[[problem]]
id = "mm"
title = "A square matmul"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = {{ B = {SIDE}, D = {SIDE}, F = {SIDE} }}
expect = {{ intensity = "{expect}" }}
"""


def _key(cli, tmp_path, body: str):
    path = tmp_path / "set.toml"
    path.write_text('title = "Expectations"\n\n' + body, encoding="utf-8")
    out = tmp_path / "out"
    return path, out, cli(["key", str(path), "-o", str(out)])


@pytest.mark.parametrize(
    ("body", "pid", "name", "right"),
    [
        (_kernel, "gemm", "t_lower", T_LOWER),
        (_training, "pipeline", "bubble_fraction", BUBBLE),
        (_operator, "mm", "intensity", INTENSITY),
    ],
    ids=["kernel", "training", "operator"],
)
def test_a_wrong_expect_stops_the_key_in_one_line(cli, tmp_path, body, pid, name, right):
    wrong = right * Fraction(101, 100)  # 1 % off: past the 0.5 % an expect may be off
    path, out, result = _key(cli, tmp_path, body(_text(wrong)))
    assert result.code == 2, result
    lines = result.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err, lines
    assert lines[0].startswith(f"error: {path}: problem {pid!r}: key 'expect' ({name})"), lines
    assert f"expected {_text(wrong)}" in lines[0]
    derived = lines[0].rsplit("derives ", 1)[1]
    assert abs(Fraction(derived) - right) <= right / 10**5, (derived, right)
    assert not out.exists()


@pytest.mark.parametrize(
    ("body", "right"),
    [(_kernel, T_LOWER), (_training, BUBBLE), (_operator, INTENSITY)],
    ids=["kernel", "training", "operator"],
)
def test_a_right_expect_keys_as_before(cli, tmp_path, body, right):
    for stated in (right, right * Fraction(1001, 1000)):  # exact, and within 0.5 %
        _, out, result = _key(cli, tmp_path, body(_text(stated)))
        assert result.code == 0, result.err
        assert any(out.iterdir())


def test_every_wrong_expect_of_a_set_is_reported_at_once(cli, tmp_path):
    first = _kernel(_text(T_LOWER * 2))
    second = _kernel(_text(T_LOWER / 2)).replace('id = "gemm"', 'id = "gemm2"')
    _, out, result = _key(cli, tmp_path, first + "\n" + second)
    assert result.code == 2
    assert [line.split(": ")[2] for line in result.err.splitlines()] == [
        "problem 'gemm'",
        "problem 'gemm2'",
    ]
    assert not out.exists()


def test_the_builtin_sets_expectations_hold(cli, tmp_path):
    path = ROOT / "derive" / "data" / "problems" / "rooflines.toml"
    result = cli(["key", str(path), "-o", str(tmp_path / "key")])
    assert result.code == 0, result.err


def _operator_formula(expect: str) -> str:
    return f"""[[problem]]
id = "free"
title = "A matmul with its dims free"
operator = "matmul"
dtype = "bf16"
chip = "h100"
{expect}
"""


@pytest.mark.parametrize(
    ("expect", "name", "derived"),
    [
        # 2 bytes for each element of X[B, D], Y[D, F] and Z[B, F]: B·F written once, not half
        ('expect = { bytes = "2*B*D + 2*D*F + B*F" }', "bytes", "2*B*D + 2*B*F + 2*D*F"),
        ('expect = { flops = "B*D*F" }', "flops", "2*B*D*F"),
    ],
    ids=["bytes", "flops"],
)
def test_a_wrong_formula_expect_stops_the_key(cli, tmp_path, expect, name, derived):
    _, out, result = _key(cli, tmp_path, _operator_formula(expect))
    assert result.code == 2 and len(result.err.splitlines()) == 1, result.err
    assert f"problem 'free': key 'expect' ({name})" in result.err
    assert result.err.rstrip().endswith(f"the key derives {derived}"), result.err
    assert not out.exists()


def test_a_threshold_expect_is_exact(cli, tmp_path):
    """An integer (here the smallest compute-bound B) is judged exactly, not to 0.5 %."""
    side = SIDE  # D = F = 4096; B is the smallest with 2BDF/peak >= 2(BD + DF + BF)/bandwidth
    first = next(
        b
        for b in range(1, 10**4)
        if 2 * b * side * side / H100_PEAK >= 2 * (2 * b * side + side * side) / H100_BANDWIDTH
    )
    for stated, code in ((first, 0), (first - 1, 2)):
        body = f"set = {{ D = {side}, F = {side} }}\nexpect = {{ min_compute_bound = {stated} }}"
        (tmp_path / str(stated)).mkdir()
        _, _, result = _key(cli, tmp_path / str(stated), _operator_formula(body))
        assert result.code == code, result.err


def test_an_operators_whole_flops_at_the_sets_dims_are_exact(cli, tmp_path):
    """An operator's FLOPs at the set's dims are a whole number, judged exactly: one FLOP
    less (well within 0.5 %) stops the key."""
    side = SIDE
    flops = 2 * 64 * side * side  # 2·B·D·F at B = 64, D = F = side
    for stated, code in ((flops, 0), (flops - 1, 2)):
        body = f"set = {{ B = 64, D = {side}, F = {side} }}\nexpect = {{ flops = {stated} }}"
        (tmp_path / str(stated)).mkdir()
        _, _, result = _key(cli, tmp_path / str(stated), _operator_formula(body))
        assert result.code == code, result.err


def test_the_seed_cases_expectations_hold(cli, tmp_path):
    path = ROOT / "tests" / "cases" / "scaling-book-ch1.toml"
    result = cli(["key", str(path), "-o", str(tmp_path / "key")])
    assert result.code == 0, result.err


# -- a model's, a serving step's and a training run's expect (tests/sets/expect_models.toml) --

MODELS_SET = ROOT / "tests" / "sets" / "expect_models.toml"
H100_CAPACITY = Fraction(CHIPS["h100"]["hbm_capacity_bytes"]["value"])
# Llama 3 8B (its published config.json): vocabulary, width, layers, MLP width, KV width
# (8 KV heads of 128); untied embedding and head, two norms a layer and a final one.
V, D, LAYERS, FFN, KV = 128256, 4096, 32, 14336, 8 * 128
LLAMA_PARAMS = 2 * V * D + LAYERS * (2 * D * D + 2 * D * KV + 3 * D * FFN + 2 * D) + D
# A model by its size: every weight read once (bf16), 2·P FLOPs a token, the KV cache read
# whole: two kernels, each bound by its slower side.
P, KV_PER_TOKEN, BATCH, CONTEXT = Fraction("8e9"), 131072, 16, 4096
KV_BYTES = BATCH * CONTEXT * KV_PER_TOKEN
STEP = max(2 * P * BATCH / H100_PEAK, 2 * P / H100_BANDWIDTH) + KV_BYTES / H100_BANDWIDTH
RIGHT = {
    ("llama-params", "params"): LLAMA_PARAMS,
    ("llama-params", "weights_bytes"): 2 * LLAMA_PARAMS,
    ("decode-by-size", "t_lower"): STEP,
    ("decode-by-size", "tokens_per_s"): BATCH / STEP,
    ("decode-by-size", "max_batch"): (H100_CAPACITY - 2 * P) // (CONTEXT * KV_PER_TOKEN),
    ("decode-by-size", "memory_per_device"): 2 * P + KV_BYTES,
    ("pipeline", "bubble_fraction"): BUBBLE,
}
COUNTS = {"params", "max_batch"}  # a count is judged exactly, any other number to 0.5 %


def _models_set(pid: str = "", change=lambda expect: expect) -> str:
    """The set's problems (no title), problem ``pid``'s ``expect = { … }`` line changed."""
    _, *blocks = MODELS_SET.read_text("utf-8").split("[[problem]]\n")
    for k, block in enumerate(blocks):
        if block.startswith(f'id = "{pid}"'):
            blocks[k] = re.sub(r"^expect = .*$", lambda m: change(m[0]), block, flags=re.M)
    return "[[problem]]\n" + "[[problem]]\n".join(blocks)


def _stated(pid: str, name: str, value: str) -> str:
    """The set with problem ``pid``'s expect of ``name`` stated as ``value`` (TOML)."""
    pattern = rf"\b{name} = (\"[^\"]*\"|\d+|true|false)"
    return _models_set(pid, lambda line: re.sub(pattern, f"{name} = {value}", line))


def test_the_sets_model_expectations_are_the_values_counted_by_hand():
    stated = {
        (p["id"], name): text for p in tomllib.loads(_models_set())["problem"]
        for name, text in p["expect"].items()
    }  # fmt: skip
    assert stated.pop(("decode-by-size", "fits")) is True  # 2P + the KV cache ≤ 80 GB
    assert 2 * P + KV_BYTES <= H100_CAPACITY
    assert set(stated) == set(RIGHT)
    for key, right in RIGHT.items():
        value = Fraction(str(stated[key]))
        assert value == right if key[1] in COUNTS else abs(value - right) <= right / 200, key


def test_a_right_model_serving_and_training_expect_keys(cli, tmp_path):
    _, out, result = _key(cli, tmp_path, _models_set())
    assert result.code == 0, result.err
    assert any(out.iterdir())


@pytest.mark.parametrize(("pid", "name"), list(RIGHT), ids=[f"{p}-{n}" for p, n in RIGHT])
def test_a_wrong_model_serving_or_training_expect_stops_the_key(cli, tmp_path, pid, name):
    right = RIGHT[(pid, name)]
    wrong = right + 1 if name in COUNTS else right * Fraction(101, 100)
    said = str(wrong) if name in COUNTS else _text(wrong)
    path, out, result = _key(cli, tmp_path, _stated(pid, name, f'"{said}"'))
    assert result.code == 2, result
    (line,) = result.err.splitlines()
    assert line.startswith(f"error: {path}: problem {pid!r}: key 'expect' ({name}): "), line
    assert f"expected {said}, but the key derives " in line
    derived = Fraction(line.rsplit("derives ", 1)[1])
    assert derived == right if name in COUNTS else abs(derived - right) <= right / 10**5, line
    assert not out.exists()


def test_a_wrong_truth_stops_the_key(cli, tmp_path):
    _, out, result = _key(cli, tmp_path, _stated("decode-by-size", "fits", "false"))
    assert result.code == 2, result.err
    assert "key 'expect' (fits): expected false, but the key derives True" in result.err
    assert not out.exists()


def test_an_expect_that_is_no_exact_value_is_refused(cli, tmp_path):
    _, out, result = _key(cli, tmp_path, _stated("decode-by-size", "fits", '"yes"'))
    assert result.code == 2 and "key 'expect' (fits): an exact value" in result.err, result.err
    assert not out.exists()


@pytest.mark.parametrize(
    ("pid", "expect", "said"),
    [
        # a name no model or serving step has, with a suggestion and the names it takes
        ("decode-by-size", "tokens_per_sec", "unknown quantity 'tokens_per_sec' (did you mean"),
        # a serving step's quantity on a model without a phase
        ("llama-params", "t_lower", "unknown quantity 't_lower'"),
        # a serving step's quantity this step has no value for: no price was given
        (
            "decode-by-size",
            "cost_per_step",
            "this problem has no 'cost_per_step'; its quantities: ",
        ),
    ],
)
def test_an_expect_the_problem_has_not_is_refused_naming_it(cli, tmp_path, pid, expect, said):
    text = _models_set(pid, lambda _: f'expect = {{ {expect} = "1" }}')
    path, out, result = _key(cli, tmp_path, text)
    assert result.code == 2 and len(result.err.splitlines()) == 1, result.err
    assert f"error: {path}: problem {pid!r}: key 'expect'" in result.err and said in result.err
    assert not out.exists()


def _decimal(value: Fraction) -> str:
    """An exact decimal's digits (``value`` has a terminating expansion)."""
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    whole = value * 10**digits
    assert whole.denominator == 1, value
    text = str(whole.numerator).rjust(digits + 1, "0")
    return f"{text[:-digits]}.{text[-digits:]}" if digits else text


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("memory_per_device", f"{_decimal((2 * P + KV_BYTES) / 10**9)} GB"),  # exact
        ("memory_per_device", f"{_decimal((2 * P + KV_BYTES) / 2**30)[:8]} GiB"),  # rounded
        ("t_lower", f"{float(STEP * 1000):.4g} ms"),  # rounded, within 0.5 %
        ("t_lower", f"{float(STEP * 10**6):.6g} µs"),
    ],
)
def test_an_expect_with_a_unit_is_read_as_a_claim_is(cli, tmp_path, name, said):
    """A value written as a student writes it (a number and its unit) is the number of the
    quantity's own unit it reads as, checked as a plain number is."""
    _, out, result = _key(cli, tmp_path, _stated("decode-by-size", name, f'"{said}"'))
    assert result.code == 0, result.err
    assert any(out.iterdir())


def test_an_expect_with_a_unit_is_exact(cli, tmp_path):
    """``24.589934592 GB`` is 24589934592 bytes exactly: a value off by one byte is read
    exactly (and judged to 0.5 %, as the same number without a unit)."""
    from derive.problem.sets.problem_set import exact_expect

    memory = (2 * P + KV_BYTES) / 10**9
    assert exact_expect({"memory_per_device": f"{_decimal(memory)} GB"}, "p") == (
        ("memory_per_device", str(2 * P + KV_BYTES)),
    )
    assert exact_expect({"t_lower": "12.5 ms"}, "p") == (("t_lower", "1/80"),)
    assert exact_expect({"train_days": "36 days"}, "p") == (("train_days", "36"),)
    assert exact_expect({"kv_bytes_per_token": "128 KiB"}, "p") == (
        ("kv_bytes_per_token", "131072"),
    )


def test_a_wrong_expect_with_a_unit_stops_the_key_with_the_value_in_the_own_unit(cli, tmp_path):
    wrong = (2 * P + KV_BYTES) * 2
    said = f"{_decimal(wrong / 10**9)} GB"
    path, out, result = _key(
        cli, tmp_path, _stated("decode-by-size", "memory_per_device", f'"{said}"')
    )
    assert result.code == 2, result
    (line,) = result.err.splitlines()
    assert line.startswith(
        f"error: {path}: problem 'decode-by-size': key 'expect' (memory_per_device): "
    )
    assert f"expected {wrong}, but the key derives {2 * P + KV_BYTES}" in line, line
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "said", "why"),
    [
        ("t_lower", "12.5 GB", "'12.5 GB' is a byte count, but t_lower is a time, in s"),
        ("memory_per_device", "3 ms", "'3 ms' is a time, but memory_per_device is a byte count"),
        ("max_batch", "2 GB", "'2 GB' is a byte count, but max_batch is a plain number"),
        ("t_lower", "12.5 mss", "an exact value: "),  # unreadable
        ("t_lower", "about 12 ms", "an exact value: "),
    ],
)
def test_an_unreadable_or_wrong_unit_expect_stops_the_key_in_one_line(
    cli, tmp_path, name, said, why
):
    path, out, result = _key(cli, tmp_path, _stated("decode-by-size", name, f'"{said}"'))
    assert result.code == 2, result
    (line,) = result.err.splitlines()
    assert "Traceback" not in result.err
    assert line.startswith(f"error: {path}: problem 'decode-by-size': key 'expect' ({name}): "), (
        line
    )
    assert why in line, line
    assert not out.exists()
