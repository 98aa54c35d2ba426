"""Day one in class (issue 26), item 17: a comms-only operator, a prefill's prompt length T,
the decode crossover without a batch.

Expected values are computed here with fractions from the chip's decimal figures (h100
bf16: 9.89e14 FLOP/s, 3.35e12 bytes/s HBM, 4.5e11 bytes/s NVLink one way) and the model's
published shape, never copied from derive's output.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
import sympy as sp

from tests.conftest import run_cli

LINK = Fraction(45 * 10**10)
PEAK, BANDWIDTH = Fraction(989 * 10**12), Fraction(335 * 10**10)

# Llama 3 8B: 32 layers, d = 4096, 32 heads of 128, 8 KV heads, d_ff = 14336, vocab 128256.
LAYERS, D, HEADS, KV_HEADS, HEAD_DIM, D_FF, VOCAB = 32, 4096, 32, 8, 128, 14336, 128256
KV = KV_HEADS * HEAD_DIM
# (inputs, outputs) of each weight matmul of a block, then the output head
BLOCK_MATMULS = ((D, D), (D, KV), (D, KV), (D, D), (D, D_FF), (D, D_FF), (D_FF, D))
WEIGHTS = LAYERS * sum(i * o for i, o in BLOCK_MATMULS) + D * VOCAB
ACTIVATIONS = LAYERS * sum(i + o for i, o in BLOCK_MATMULS) + D + VOCAB  # per token, in and out


def _ok(argv: list[str]) -> str:
    result = run_cli(argv)
    assert result.code == 0, result
    return result.out


def _refused(argv: list[str]) -> str:
    result = run_cli(argv)
    assert result.code == 2 and result.out == "", result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    return result.err


# (a) an operator that only communicates is timed on its link

ALL_REDUCE = """
from derive import Collective, Operator, Tensor, dims
B, F, P = dims("B F P")
tp_all_reduce = Operator(name="tp_all_reduce", flops=0,
                         comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=P)])
"""


@pytest.fixture
def ops(tmp_path):
    path = tmp_path / "ops.py"
    path.write_text(ALL_REDUCE)
    return ["solve", "tp_all_reduce", "--operators", str(path), "--dtype", "bf16"]


def _ring_time(b: int, f: int, p: int, latency: Fraction) -> Fraction:
    """A ring all-reduce: 2(P−1)/P × the tensor's bytes sent per device, 2(P−1) link hops."""
    size = Fraction(2 * b * f)  # bf16
    return Fraction(2 * (p - 1), p) * size / LINK + 2 * (p - 1) * latency


def test_17_a_a_bare_all_reduce_is_timed_on_the_link(ops):
    argv = [*ops, "--chip", "h100", "--set", "B=8192", "--set", "F=8192", "--set", "P=8"]
    argv += ["--link-latency", "2us"]
    data = json.loads(_ok([*argv, "--format", "json"]))
    expected = _ring_time(8192, 8192, 8, Fraction(2, 10**6))
    assert Fraction(data["t_comms"]) == Fraction(data["t_lower"]) == expected
    assert data["binding"] == "link" and data["flops"] == "0"
    assert data["intensity"] is None and data["crossover"] is None and data["ridge"] is None
    (reduce,) = data["collectives"]
    assert (reduce["group"], reduce["steps"]) == (8, 14)
    text = _ok(argv)
    assert "Link-bound (the interconnect binds)" in text and "no crossover" in text
    for nonsense in ("Arithmetic intensity", "Ridge point", "Crossover", "FLOPs/byte", "T_math"):
        assert nonsense not in text, nonsense
    assert "2(P-1)" in text  # the collective's factor, shown


def test_17_a_a_free_group_stays_in_the_time(ops):
    data = json.loads(_ok([*ops, "--chip", "h100", "--format", "json"]))
    b, f, p = sp.symbols("B F P", positive=True, integer=True)
    # derive's own output string, read in the test (never user text)
    got = sp.sympify(data["t_comms"], locals={"B": b, "F": f, "P": p})
    by_hand = sp.Rational(2) * (p - 1) / p * 2 * b * f / sp.Integer(45 * 10**10)
    assert sp.simplify(got - by_hand) == 0
    assert data["collectives"][0]["group"] == "P"
    bound = json.loads(_ok([*ops, "--chip", "h100", "--set", "P=8", "--format", "json"]))
    assert sp.sympify(bound["t_comms"], locals={"B": b, "F": f}) == by_hand.subs(p, 8)


def test_17_a_without_a_link_one_line_names_the_flag(ops):
    err = _refused([*ops, "--peak", "1e15", "--bandwidth", "3e12"])
    assert "--link-bandwidth" in err
    given = json.loads(_ok([*ops, "--link-bandwidth", "1e11", "--set", "B=1024", "--set", "F=1024",
                            "--set", "P=4", "--format", "json"]))  # fmt: skip
    assert Fraction(given["t_comms"]) == Fraction(3, 2) * 2 * 1024 * 1024 / 10**11
    assert "--regime" in _refused([*ops, "--chip", "h100", "--regime", "B >> 1"])
    assert "--set P=1" in _refused([*ops, "--chip", "h100", "--set", "P=1"])


def test_17_a_the_latex_compiles(ops, tmp_path):
    import shutil
    import subprocess

    from derive.present.key.files import PREAMBLE

    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex not installed")
    body = _ok([*ops, "--chip", "h100", "--set", "P=8", "--format", "tex"])
    (tmp_path / "body.tex").write_text(body)
    doc = [r"\documentclass{article}", *PREAMBLE, r"\begin{document}", r"\input{body}"]
    (tmp_path / "doc.tex").write_text("\n".join([*doc, r"\end{document}", ""]))
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", "doc.tex"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Link-bound" in body and r"\frac{2(P-1)}{P}" in body


def test_17_a_from_python(tmp_path):
    import derive

    b, f = derive.dims("B F")
    op = derive.Operator(
        name="reduce_alone",
        flops=0,
        comms=[derive.Collective("all_reduce", derive.Tensor("Y", (b, f)), group=8)],
    )
    d = derive.solve(op, dtype="bf16", chip="h100", set={"B": 4096, "F": 4096})
    assert d.t_comms == _ring_time(4096, 4096, 8, Fraction(0))
    assert "Link-bound" in d.markdown()


SET = """
title = "Comms"
operators = ["ops.py"]

[[problem]]
id = "ar"
title = "A tensor-parallel all-reduce"
text = "Eight H100s all-reduce an 8192 x 8192 bf16 activation over NVLink. How long does it take?"
operator = "tp_all_reduce"
dtype = "bf16"
chip = "h100"
set = { B = 8192, F = 8192, P = 8 }
"""


def test_17_a_a_set_keys_and_checks_it(tmp_path):
    (tmp_path / "ops.py").write_text(ALL_REDUCE)
    (tmp_path / "set.toml").write_text(SET)
    out = tmp_path / "key"
    assert run_cli(["key", str(tmp_path / "set.toml"), "--trust", "-o", str(out)]).code == 0
    key = (out / "set.md").read_text()
    assert "Link-bound (the interconnect binds)" in key and "none (no compute)" in key
    questions = (out / "set-questions.md").read_text()
    assert "T\\_comms" in questions or "T_comms" in questions
    assert "229376" not in questions  # the sheet never shows the answer
    exact = _ring_time(8192, 8192, 8, Fraction(0))
    argv = ["check", "--problem-set", str(tmp_path / "set.toml"), "--trust", "--problem", "ar"]
    right = run_cli([*argv, "--quantity", "t_comms", "--claim", f"{float(exact) * 1e6:.4g} us"])
    assert right.code == 0, right
    slip = run_cli([*argv, "--quantity", "t_comms", "--claim", f"{float(exact) * 1e3:.4g} us"])
    assert slip.code == 1 and "right in ms" in slip.out
    assert "--quantity crossover" in _refused([*argv, "--quantity", "crossover", "--claim", "1"])


def test_17_a_derive_check_takes_the_python_derivation():
    import derive

    b, f = derive.dims("B F")
    op = derive.Operator(
        name="reduce_alone",
        flops=0,
        comms=[derive.Collective("all_reduce", derive.Tensor("Y", (b, f)), group=8)],
    )
    d = derive.solve(op, dtype="bf16", chip="h100", set={"B": 4096, "F": 4096})
    exact = _ring_time(4096, 4096, 8, Fraction(0))
    assert derive.check(d, "t_comms", f"{float(exact):.6g} s").verdict.value == "correct"
    assert derive.check(d, "t_lower", f"{2 * float(exact):.6g} s").verdict.value == "incorrect"


# (b) a prefill's prompt length is T


PREFILL = ["model", "llama-3-8b", "--chip", "h100", "--phase", "prefill", "--set", "B=1"]


def test_17_b_a_prefill_takes_its_prompt_length_as_T():
    by_t = json.loads(_ok([*PREFILL, "--set", "T=1024", "--format", "json"]))["serving"]
    by_s = json.loads(_ok([*PREFILL, "--set", "S=1024", "--format", "json"]))["serving"]
    assert by_t == by_s  # S stays accepted, and means the same
    # the step reads B·T = 1024 prompt tokens: rate × TTFT is that count, exactly
    assert Fraction(by_t["prefill_tokens_per_s"]) * Fraction(by_t["ttft"]) == 1 * 1024
    same = json.loads(_ok([*PREFILL, "--set", "T=1024", "--set", "S=1024", "--format", "json"]))
    assert same["serving"] == by_t
    err = _refused([*PREFILL, "--set", "T=1024", "--set", "S=2048"])
    assert "T=1024" in err and "S=2048" in err and "prompt length" in err
    assert "T = S" in _ok([*PREFILL, "--set", "T=1024"])  # the solution says T is read as S


def test_17_b_T_outside_a_prefill_names_the_prefill():
    decode = ["model", "llama-3-8b", "--chip", "h100", "--phase", "decode", "--set", "B=1"]
    err = _refused([*decode, "--set", "T=1024"])
    assert "--set T=1024" in err and "prefill" in err


def test_17_b_a_set_names_the_prompt_T(tmp_path):
    path = tmp_path / "set.toml"
    path.write_text(
        '[[problem]]\nid = "ttft"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        'set = { B = 1, T = 1024 }\nphase = "prefill"\nask = ["ttft", "prefill_tokens_per_s"]\n'
        '[[problem]]\nid = "old"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        'set = { B = 1, S = 1024 }\nphase = "prefill"\nask = ["ttft"]\n'
    )
    ttft = json.loads(_ok([*PREFILL, "--set", "T=1024", "--format", "json"]))["serving"]["ttft"]
    for problem in ("ttft", "old"):
        argv = ["check", "--problem-set", str(path), "--problem", problem, "--quantity", "ttft"]
        assert run_cli([*argv, "--claim", f"{ttft} s"]).code == 0
        assert run_cli([*argv, "--claim", f"{2 * Fraction(ttft)} s"]).code == 1
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace("T = 1024 }", "T = 1024, S = 512 }"))
    err = _refused(["key", str(bad), "-o", str(tmp_path / "key.md")])
    assert "problem 'ttft'" in err and "prompt length" in err


# (c) the decode crossover needs no batch


DECODE = ["model", "llama-3-8b", "--chip", "h100", "--phase", "decode"]


def _matmul_crossover() -> Fraction:
    """2·W·B/π = (2·W + 2·a·B)/β, solved for B (bf16: 2 bytes a weight, a activation)."""
    return (2 * WEIGHTS / BANDWIDTH) / (2 * WEIGHTS / PEAK - 2 * ACTIVATIONS / BANDWIDTH)


def test_17_c_the_decode_crossover_needs_no_batch():
    exact = _matmul_crossover()
    data = json.loads(_ok([*DECODE, "--format", "json"]))["serving"]
    assert Fraction(data["crossover"]["exact"]) == exact
    assert data["crossover"]["min_compute_bound"] == math.ceil(exact)
    assert data["step"] is None and "step" in data["left_out"]  # no batch, no step time
    text = _ok(DECODE)
    assert f"compute-bound for B ≥ {math.ceil(exact)}" in text
    assert "no step is timed without a batch" in text
    assert "memory-bound for every B" in text  # the KV reads at long contexts, stated


def _step_counts(s: int) -> tuple[Fraction, Fraction, Fraction]:
    """The whole decode step per sequence, bf16: FLOPs per B, bytes per B, bytes fixed.

    Attention: 4·h·d_h·S FLOPs a token a layer; it reads q and writes its output (h·d_h
    each) and reads the KV cache of S positions (2·h_kv·d_h·S). The 2·L + 1 RMS norms read
    and write d a token and hold d weights; the embedding reads a row and writes it.
    """
    norms = 2 * LAYERS + 1
    flops = 2 * WEIGHTS + LAYERS * 4 * HEADS * HEAD_DIM * s
    per_b = 2 * (ACTIVATIONS + LAYERS * (2 * HEADS * HEAD_DIM + 2 * KV * s) + norms * 2 * D + 2 * D)
    return Fraction(flops), Fraction(per_b), Fraction(2 * WEIGHTS + 2 * norms * D)


def test_17_c_with_a_context_the_whole_step_is_solved_too():
    """At S = 128 the step adds attention and the norms; the matmuls' crossover does not move."""
    data = json.loads(_ok([*DECODE, "--set", "S=128", "--format", "json"]))["serving"]
    assert Fraction(data["crossover"]["exact"]) == _matmul_crossover()
    whole = data["crossover_step"]
    flops, per_b, fixed = _step_counts(128)
    b_star = (fixed / BANDWIDTH) / (flops / PEAK - per_b / BANDWIDTH)  # F·B/π = (c + b·B)/β
    assert whole["status"] == "crosses" and Fraction(whole["exact"]) == b_star
    assert whole["min_compute_bound"] == math.ceil(b_star)
    free = json.loads(_ok([*DECODE, "--format", "json"]))["serving"]
    # with S free, the step turns compute-bound only while F(S)/π > b(S)/β: S below the root
    f0, b0, _ = _step_counts(0)
    f1, b1, _ = _step_counts(1)
    limit = -(f0 / PEAK - b0 / BANDWIDTH) / ((f1 - f0) / PEAK - (b1 - b0) / BANDWIDTH)
    assert Fraction(free["crossover_step_context_limit"]) == limit
    text = _ok(DECODE)
    assert f"S ≤ {math.ceil(limit) - 1}" in text and f"from S = {math.ceil(limit)} on" in text
    at_8k = json.loads(_ok([*DECODE, "--set", "S=8192", "--format", "json"]))["serving"]
    assert at_8k["crossover_step"]["status"] == "never"


def test_17_c_with_a_batch_the_step_is_as_before():
    data = json.loads(_ok([*DECODE, "--set", "B=8", "--set", "S=128", "--format", "json"]))
    assert data["serving"]["step"] is not None
    assert Fraction(data["serving"]["crossover"]["exact"]) == _matmul_crossover()
    err = _refused(["model", "llama-3-8b", "--chip", "h100", "--phase", "prefill"])
    assert "--set B=" in err
    timed = _refused([*DECODE, "--measured-time", "16ms"])  # no step to measure
    assert "--measured-time 16ms" in timed and "--set B=" in timed


def test_17_c_derive_check_judges_the_crossover_without_a_batch():
    exact = _matmul_crossover()
    argv = ["check", "llama-3-8b", "--chip", "h100", "--phase", "decode", "--quantity"]
    right = run_cli([*argv, "crossover", "--claim", f"B \\geq {math.ceil(exact)}"])
    assert right.code == 0, right
    assert run_cli([*argv, "crossover", "--claim", f"{float(exact):.5g}"]).code == 0
    assert run_cli([*argv, "crossover", "--claim", f"{math.ceil(exact) + 40}"]).code == 1
    assert "--set B=" in _refused([*argv, "tokens_per_s", "--claim", "100"])


def test_17_c_the_crossover_alone_renders_in_every_format():
    tex = _ok([*DECODE, "--format", "tex"])
    assert r"B^{*}_{\text{step}}(S)" in tex and "Decode crossover" in tex


def test_17_c_from_python():
    import derive

    d = derive.solve_model("llama-3-8b", chip="h100", phase="decode", set={"S": 128})
    assert d.phase.crossover.exact == _matmul_crossover()
    prefill = derive.solve_model("llama-3-8b", chip="h100", phase="prefill", set={"B": 1, "T": 64})
    assert prefill.phase.tokens == 64
