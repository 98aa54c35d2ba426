"""Issue 26 items 18–21: compare rows, the Python API, operator files, sweep and model gaps.

Expected values are computed here (Fractions, counts by hand), never copied from derive.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import sympy as sp

from tests.conftest import ROOT, run_cli

# --- item 20: the composite example of docs/composites.md loads with --operators -----------------


def _first_python_block(page: Path) -> str:
    match = re.search(r"```python\n(.*?)```", page.read_text(), re.S)
    assert match is not None
    return match.group(1)


def test_composite_example_of_the_docs_loads_as_an_operators_file(tmp_path: Path) -> None:
    path = tmp_path / "mlp.py"
    path.write_text(_first_python_block(ROOT / "docs" / "composites.md"))
    r = run_cli(["solve", "mlp", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"])
    assert r.code == 0, r
    r = run_cli(
        ["solve", "mlp", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
        + ["--format", "json"]
    )
    B, d = sp.symbols("B d", positive=True, integer=True)
    # up: 2·B·d·4d, act: relu over 4Bd elements (one FLOP each), down: 2·B·4d·d
    expected = 2 * B * d * 4 * d + 4 * B * d + 2 * B * 4 * d * d
    flops = sp.sympify(json.loads(r.out)["flops"], locals={"B": B, "d": d})
    assert sp.expand(flops - expected) == 0


def test_an_imported_operator_is_not_a_new_declaration(tmp_path: Path) -> None:
    (tmp_path / "base.py").write_text(
        "from derive import Operator, Tensor, dims\nN, = dims('N')\n"
        "scale = Operator(name='scale', flops=N, reads=[Tensor('x', (N,))], writes=[Tensor('y', (N,))])\n"
    )
    (tmp_path / "more.py").write_text(
        "from derive import Composite\nfrom derive.declare.registry import load_operator_file\n"
        f"scale = load_operator_file({str(tmp_path / 'base.py')!r}).scale\n"
        "twice = Composite(name='twice', parts=[('a', scale, {}), ('b', scale, {})])\n"
    )
    r = run_cli(
        ["solve", "twice", "--operators", str(tmp_path / "base.py")]
        + ["--operators", str(tmp_path / "more.py"), "--dtype", "bf16", "--chip", "h100"]
    )
    assert r.code == 0, r


def test_a_different_operator_under_a_builtin_name_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "ops.py"
    path.write_text(
        "from derive import Operator, Tensor, dims\nfrom derive.declare.registry import load_registry\n"
        "matmul = load_registry().get('matmul')\nB, = dims('B')\n"
        "mine = Operator(name='MatMul', flops=B, reads=[Tensor('x', (B,))])\n"
    )
    r = run_cli(["solve", "matmul", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"])
    assert r.code == 2 and "duplicate" in r.err, r


# --- item 19: the Python API ------------------------------------------------------------------------


def _gpt2_small_params() -> int:
    """GPT-2 small's parameters by hand: embeddings, 12 blocks (attention, MLP, 2 norms), final norm."""
    vocab, d, ctx, layers = 50257, 768, 1024, 12
    attention = 3 * d * d + 3 * d + d * d + d
    mlp = d * 4 * d + 4 * d + 4 * d * d + d
    norms = 2 * 2 * d
    return vocab * d + ctx * d + layers * (attention + mlp + norms) + 2 * d


def test_solve_model_reaches_a_serving_step_with_the_cli_keywords() -> None:
    import derive

    kwargs = {"chip": "h100", "devices": 8, "set": {"B": 64, "S": 4096}}
    step = derive.solve_model("llama-3-70b", **kwargs, phase="decode", tp=2, launch_overhead="5us")
    assert isinstance(step, derive.ServingDerivation)
    assert step.as_json()["replicas"] == 8 // 2
    flags = ["--chip", "h100", "--devices", "8", "--set", "B=64", "--set", "S=4096"]
    r = run_cli(
        ["model", "llama-3-70b", *flags, "--phase", "decode", "--tp", "2"]
        + ["--launch-overhead", "5us", "--format", "json"]
    )
    assert json.loads(r.out)["serving"] == step.as_json()


def test_solve_model_refuses_a_step_keyword_without_a_phase() -> None:
    import pytest

    import derive

    with pytest.raises(derive.DeriveError, match="tp"):
        derive.solve_model("gpt2-small", chip="h100", tp=2)
    with pytest.raises(derive.DeriveError, match="decode or prefill"):
        derive.solve_model("gpt2-small", chip="h100", phase="train")


def test_every_quantity_attribute_follows_one_rule() -> None:
    """Each attribute is a quantity (a Value: .exact, .unit, and a stand-in for its exact
    sympy value) or None, except the crossovers: records with .exact."""
    import derive
    from derive.analysis.crossover.records import Crossover
    from derive.pipeline import Value

    d = derive.solve("matmul", dtype="bf16", chip="h100", set={"B": 8, "D": 64, "F": 64})
    crossovers = {"crossover", "crossover_regime"}
    for name in derive.Derivation.__dict__:
        value = getattr(d, name)
        if name.startswith("_") or callable(value) or name in ("kind", "spec", "operators"):
            continue
        if name in crossovers:
            assert value is None or isinstance(value, Crossover), name
        else:
            assert value is None or isinstance(value, Value), name
            assert value is None or value == d.value(name).exact, name
    # t_lower = max(FLOPs/peak, bytes/bandwidth) by hand, exactly
    flops, moved = 2 * 8 * 64 * 64, 2 * (8 * 64 + 64 * 64 + 8 * 64)
    t_lower = max(sp.Rational(flops, 989 * 10**12), sp.Rational(moved, 335 * 10**10))
    assert d.t_lower == t_lower and d.t_lower.exact == t_lower and d.t_lower.unit == "s"
    assert sp.sympify(d.t_lower) == t_lower and d.t_lower / t_lower == 1 and float(d.t_lower) > 0
    # the rule is written where a user reads it: the docstring and the Python page
    assert "except the two crossovers" in (derive.Derivation.__doc__ or "")
    assert "One rule for the attributes" in (ROOT / "docs" / "python.md").read_text()


def test_check_takes_a_derivation_or_a_name() -> None:
    import derive

    d = derive.solve("matmul", dtype="bf16", chip="h100")
    assert derive.check(d, "intensity", "BDF/(BD + DF + BF)").verdict is derive.Verdict.CORRECT
    ridge = sp.Rational(989 * 10**12, 335 * 10**10)
    assert derive.check(d, "ridge", str(ridge)).verdict is derive.Verdict.CORRECT
    model = derive.solve_model("gpt2-small", chip="h100")
    params = str(_gpt2_small_params())
    assert derive.check(model, "params", params).verdict is derive.Verdict.CORRECT
    assert derive.check("gpt2-small", "params", params).verdict is derive.Verdict.CORRECT
    assert derive.check_derivation(
        d, "I = 2BDF/(2BD + 2DF + 2BF) = BDF/(BD + DF + BF)"
    ).verdict is (derive.Verdict.CORRECT)


def test_check_takes_a_derivation_of_an_operator_object() -> None:
    import derive
    from derive import Operator, Tensor, dims

    (N,) = dims("N")
    op = Operator(name="scale_api", flops=N, reads=[Tensor("x", (N,))], writes=[Tensor("y", (N,))])
    d = derive.solve(op, dtype="bf16", chip="h100")
    # N FLOPs over 2N + 2N bytes of bf16
    assert derive.check(d, "intensity", str(sp.Rational(1, 4))).verdict is derive.Verdict.CORRECT


def test_chips_are_records_in_catalogue_order() -> None:
    import tomllib

    import derive

    data = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text())
    chips = derive.chips()
    assert all(isinstance(chip, derive.Chip) for chip in chips)
    names = [name for name, table in data.items() if isinstance(table, dict) and "title" in table]
    assert [chip.name for chip in chips] == names


def test_the_public_face_is_all_and_every_name_resolves() -> None:
    import derive

    assert dir(derive) == sorted(derive.__all__)
    assert not {"Any", "TYPE_CHECKING", "annotations"} & set(dir(derive))
    for name in derive.__all__:
        assert getattr(derive, name) is not None
    from derive.problem.timing import TimingSpec

    assert derive.TimingSpec is TimingSpec


def test_derive_registry_is_an_alias_of_its_new_home(tmp_path: Path) -> None:
    import derive.registry
    from derive.declare import registry

    for name in derive.registry.__all__:
        assert getattr(derive.registry, name) is getattr(registry, name)
    path = tmp_path / "old.py"
    path.write_text(
        "from derive import Composite\nfrom derive.registry import load_registry\n"
        "matmul = load_registry().get('matmul')\n"
        "twice = Composite(name='twice_mm', parts=[('a', matmul, {}), ('b', matmul, {})])\n"
    )
    r = run_cli(
        ["solve", "twice_mm", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    )
    assert r.code == 0, r
    assert derive.registry.load_registry([path]).get("twice_mm").name == "twice_mm"


# --- item 21: sweep and model command gaps ----------------------------------------------------------


def test_solve_of_a_model_points_to_derive_model() -> None:
    r = run_cli(["solve", "llama-3-8b", "--dtype", "bf16", "--chip", "h100"])
    assert r.code == 2 and r.err.count("\n") == 1, r
    assert "llama-3-8b is a model" in r.err and "derive model llama-3-8b" in r.err


def test_sweep_of_a_model_says_what_works() -> None:
    r = run_cli(["sweep", "llama-3-8b", "--dtype", "bf16", "--chip", "h100", "--over", "B=1..8"])
    assert r.code == 2 and r.err.count("\n") == 1 and not r.out, r
    assert "is a model" in r.err and "--phase decode" in r.err and "serving_plot" in r.err


def test_model_quantity_without_a_claim_prints_the_quantities_asked() -> None:
    r = run_cli(["model", "gpt2-small", "--quantity", "params"])
    assert r.code == 0, r
    assert r.out.startswith(f"params: {_gpt2_small_params()} parameters")
    # llama-3-8b's KV cache per token: 2 (K and V) × 32 layers × 8 KV heads × 128 × 2 bytes
    kv = 2 * 32 * 8 * 128 * 2
    r = run_cli(
        ["model", "llama-3-8b", "--quantity", "params,kv_bytes_per_token", "--format", "json"]
    )
    assert r.code == 0, r
    values = json.loads(r.out)
    assert values["kv_bytes_per_token"] == str(kv) and set(values) == {
        "params",
        "kv_bytes_per_token",
    }
    r = run_cli(["model", "gpt2-small", "--quantity", "nope"])
    assert r.code == 2 and "unknown quantity" in r.err, r
    r = run_cli(["model", "gpt2-small", "--claim", "3"])
    assert r.code == 2 and "--quantity" in r.err, r


def test_sweep_plots_attainable_flops_against_the_swept_dim(tmp_path: Path) -> None:
    from fractions import Fraction

    svg, csv = tmp_path / "mm.svg", tmp_path / "mm.csv"
    flags = ["--dtype", "bf16", "--chip", "h100", "--set", "D=4096", "--set", "F=4096"]
    r = run_cli(
        ["sweep", "matmul", *flags, "--over", "B=1..100000", "--plot", str(svg)] + ["-o", str(csv)]
    )
    assert r.code == 0, r
    text = svg.read_text()
    assert text.startswith("<svg") or "<svg" in text[:200]
    assert "attainable FLOP/s" in text and text.count("<circle") <= 200 + 10
    # the crossover of BDF/(BD + DF + BF) = π/β: B* = rDF / (DF − r(D + F))
    r_ = Fraction(989 * 10**12, 335 * 10**10)
    d = f = 4096
    crossover = r_ * d * f / (d * f - r_ * (d + f))
    assert f"{float(crossover):.4g}" in text
    assert len(csv.read_text().splitlines()) == 100000 + 1
    tex = tmp_path / "mm.tex"
    r = run_cli(["sweep", "matmul", *flags, "--over", "B=1..64", "--plot", str(tex)])
    assert r.code == 0 and "loglogaxis" in tex.read_text(), r


def test_sweep_plot_refusals_write_nothing(tmp_path: Path) -> None:
    flags = ["--dtype", "bf16", "--chip", "h100", "--set", "D=4096"]
    svg = tmp_path / "mm.svg"
    r = run_cli(
        ["sweep", "matmul", *flags, "--over", "F=1..9", "--over", "B=1..9"] + ["--plot", str(svg)]
    )
    assert r.code == 2 and "one --over" in r.err and not svg.exists() and not r.out, r
    r = run_cli(
        ["sweep", "matmul", *flags, "--set", "F=8", "--over", "B=1..9"]
        + ["--plot", str(tmp_path / "mm.png")]
    )
    assert r.code == 2 and ".svg" in r.err and not r.out, r


# --- item 18: zero counts, compare rows of given numbers, a dtype as the baseline ----------------

PEAK_H100_BF16, PEAK_H100_FP8, HBM_H100 = 989 * 10**12, 1979 * 10**12, 335 * 10**10


def _kernel_json(*argv: str) -> dict:
    r = run_cli(["solve", *argv, "--chip", "h100", "--format", "json"])
    assert r.code == 0, r
    return json.loads(r.out)


def test_a_kernel_of_flops_alone_is_compute_bound() -> None:
    from fractions import Fraction

    data = _kernel_json("--flops", "1e12", "--bytes", "0")
    assert data["binding"] == "compute"
    assert Fraction(data["step"]["t_lower"]) == Fraction(10**12, PEAK_H100_BF16)
    assert Fraction(data["fraction_of_peak"]) == 1
    r = run_cli(["solve", "--flops", "1e12", "--bytes", "0", "--chip", "h100"])
    assert "I = ∞" in r.out and "approx inf" not in r.out, r
    r = run_cli(
        ["solve", "--flops", "1e12", "--bytes", "0", "--chip", "h100"] + ["--measured-time", "2ms"]
    )
    assert r.code == 0 and "MFU" in r.out, r


def test_a_kernel_of_bytes_alone_is_memory_bound() -> None:
    from fractions import Fraction

    data = _kernel_json("--flops", "0", "--bytes", "1e9")
    assert data["binding"] == "memory" and Fraction(data["intensity"]) == 0
    assert Fraction(data["step"]["t_lower"]) == Fraction(10**9, HBM_H100)


def test_only_what_divides_by_zero_is_refused_naming_the_flag() -> None:
    r = run_cli(["solve", "--flops", "0", "--bytes", "0", "--chip", "h100"])
    assert r.code == 2 and "--flops 0 --bytes 0" in r.err and r.err.count("\n") == 1, r
    r = run_cli(["solve", "--flops", "-1", "--bytes", "1e9", "--chip", "h100"])
    assert r.code == 2 and "--flops" in r.err, r


def test_an_operator_of_zero_flops_that_moves_bytes_is_solved(tmp_path: Path) -> None:
    from fractions import Fraction

    path = tmp_path / "copy.py"
    path.write_text(
        "from derive import Collective, Operator, Tensor, dims\nN, = dims('N')\n"
        "copy = Operator(name='copy', flops=0, reads=[Tensor('x', (N,))], writes=[Tensor('y', (N,))])\n"
        "send = Operator(name='send', flops=0, reads=[Tensor('x', (N,))],\n"
        "    comms=[Collective('all_gather', Tensor('x', (N,)), group=8)])\n"
    )
    r = run_cli(
        ["solve", "copy", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
        + ["--set", "N=4096", "--format", "json"]
    )
    assert r.code == 0, r
    data = json.loads(r.out)
    assert Fraction(data["t_lower"]) == Fraction(2 * 4096 * 2, HBM_H100)  # x read, y written
    r = run_cli(
        ["solve", "send", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
        + ["--set", "N=4096"]
    )
    assert r.code == 0, r


def test_compare_takes_a_row_of_given_numbers_beside_the_chips() -> None:
    from fractions import Fraction

    flags = ["--dtype", "bf16", "--chips", "h100", "--compute", "bf16"]
    sets = ["--set", "B=4096", "--set", "D=8192", "--set", "F=8192"]
    r = run_cli(
        ["compare", "matmul", *flags, *sets, "--peak", "1e15", "--bandwidth", "4e12"]
        + ["--format", "json"]
    )
    assert r.code == 0, r
    rows = json.loads(r.out)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert [row["chip"] for row in rows] == ["h100", "given"]
    given = rows[1]
    assert Fraction(given["ridge"]["exact"]) == Fraction(10**15, 4 * 10**12)
    r = run_cli(["compare", "matmul", *flags, "--peak", "1e15"])
    assert r.code == 2 and "--peak/--bandwidth" in r.err, r


def test_compare_fp8_against_bf16_on_one_chip() -> None:
    from fractions import Fraction

    B = D = F = 8192
    r = run_cli(
        ["compare", "matmul", "--dtype", "fp8", "--chips", "h100", "--compute", "fp8"]
        + ["--set", f"B={B}", "--set", f"D={D}", "--set", f"F={F}"]
        + ["--baseline", "h100:bf16", "--format", "json"]
    )
    assert r.code == 0, r

    def t_lower(width: int, peak: int) -> Fraction:
        moved = width * (B * D + D * F + B * F)
        return max(Fraction(2 * B * D * F, peak), Fraction(moved, HBM_H100))

    speedup = t_lower(2, PEAK_H100_BF16) / t_lower(1, PEAK_H100_FP8)
    assert str(speedup.numerator) in r.out and str(speedup.denominator) in r.out
    r = run_cli(
        ["compare", "matmul", "--dtype", "fp8", "--chips", "h100", "--baseline", "h100:fp64"]
    )
    assert r.code == 2 and "--baseline" in r.err, r


def test_compare_takes_a_kernel_by_its_numbers() -> None:
    from fractions import Fraction

    r = run_cli(
        ["compare", "--flops", "1e12", "--bytes", "2.5e9", "--chips", "h100"]
        + ["--compute", "fp8", "--peak", "1e15", "--bandwidth", "4e12", "--format", "json"]
    )
    assert r.code == 0, r
    h100, given = json.loads(r.out)
    assert (h100["chip"], given["chip"]) == ("h100", "given")
    # I = 400 FLOP/B: memory-bound under the fp8 ridge 1979e12/3.35e12 ≈ 590.7
    assert h100["binding"] == "memory"
    assert Fraction(h100["attainable"]) == 400 * HBM_H100
    t_lower = max(Fraction(10**12, PEAK_H100_FP8), Fraction(25 * 10**8, HBM_H100))
    assert Fraction(h100["t_lower"]) == t_lower
    assert Fraction(given["t_lower"]) == max(
        Fraction(10**12, 10**15), Fraction(25 * 10**8, 4 * 10**12)
    )
    r = run_cli(["compare", "--flops", "1e12", "--bytes", "1e9", "--chips", "h100"])
    assert r.code == 0 and "| h100 | bf16 | 9.89e14 |" in r.out, r
    r = run_cli(["compare", "matmul", "--flops", "1e12", "--bytes", "1e9"])
    assert r.code == 2 and "not both" in r.err, r
