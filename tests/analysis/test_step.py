"""The time of a step: per-kernel bounds summed, fused parts one kernel (issue 14, item 1);
the verdict's fraction of peak with the launch overhead in the step.

Expected values are computed here from the operators' own conventions (matmul 2BDF FLOPs,
relu N, layernorm 7BD; bf16 = 2 bytes) and the chip's decimal figures, never copied.
"""

from __future__ import annotations

import json
from fractions import Fraction

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive import Composite, dims
from derive.analysis.analyse import analyse
from derive.analysis.step import Ceilings, Kernel, compose
from derive.declare.registry import load_registry
from derive.problem.binding import ProblemSpec, bind
from tests.conftest import run_cli

PEAK, BANDWIDTH = Fraction(989) * 10**12, Fraction(335) * 10**10  # h100 bf16, from chips.toml


def _chain(fused: bool) -> Composite:
    registry = load_registry(())
    matmul, relu, layernorm = (registry.get(n) for n in ("matmul", "relu", "layernorm"))
    b, d, f = dims("b d f")
    mm_dims, ln_dims = matmul.dims, layernorm.dims
    return Composite(
        name="chain",
        parts=[
            ("gemm", matmul, dict(zip(mm_dims, (b, d, f), strict=True))),
            ("act", relu, {relu.dims[0]: b * f}),
            ("norm", layernorm, dict(zip(ln_dims, (b, f), strict=True))),
        ],
        fused=[("gemm", "act"), ("act", "norm")] if fused else [],
    )


def _bound(kernels: list[tuple[int, int]]) -> Fraction:
    return sum(
        (max(Fraction(fl) / PEAK, Fraction(by) / BANDWIDTH) for fl, by in kernels), Fraction(0)
    )


def test_an_unfused_chain_sums_its_kernels_and_fusing_lowers_it():
    b, d, f = 1024, 4096, 4096
    gemm = (2 * b * d * f, 2 * (b * d + d * f + b * f))
    act = (b * f, 2 * (b * f + b * f))
    norm = (7 * b * f, 2 * (b * f + f + f + b * f))
    one_kernel = (gemm[0] + act[0] + norm[0], 2 * (b * d + d * f) + 2 * (f + f) + 2 * b * f)
    sets = ("b=1024", "d=4096", "f=4096")
    unfused = analyse(bind(ProblemSpec("chain", ("bf16",), chip="h100", sets=sets), _chain(False)))
    fused = analyse(bind(ProblemSpec("chain", ("bf16",), chip="h100", sets=sets), _chain(True)))
    assert unfused.t_lower == sp.Rational(_bound([gemm, act, norm]))
    assert fused.t_lower == sp.Rational(_bound([one_kernel]))
    assert fused.t_lower < unfused.t_lower
    # the single roofline of the summed counts is smaller than the truth, and kept only as a figure
    flops, moved = gemm[0] + act[0] + norm[0], gemm[1] + act[1] + norm[1]
    single = max(Fraction(flops) / PEAK, Fraction(moved) / BANDWIDTH)
    assert unfused.step.single_roofline_t_lower == sp.Rational(single) < unfused.t_lower
    assert unfused.step.aggregate_intensity == sp.Rational(flops, moved)
    assert [k.kernel.name for k in fused.step.kernels] == ["gemm+act+norm"]


def test_transformer_block_fused_and_unfused_bounds_differ():
    sets = [
        f"--set={s}"
        for s in ("B=8", "T=512", "S=512", "d_model=4096", "d_ff=11008", "N=32", "K=32", "H=128")
    ]
    result = run_cli(["solve", "transformer_block", "--dtype", "bf16", "--chip", "h100", *sets])
    assert result.code == 0, result
    line = next(x for x in result.out.splitlines() if "Runtime lower bound" in x)
    unfused, fused = (part.split()[0] for part in line.split(": ")[1].split(", "))
    assert unfused != fused
    data = json.loads(
        run_cli(
            [
                "solve",
                "transformer_block",
                "--dtype",
                "bf16",
                "--chip",
                "h100",
                *sets,
                "--format",
                "json",
            ]
        ).out
    )
    step = data["step"]
    assert set(step) >= {
        "flops",
        "bytes",
        "t_math",
        "t_mem",
        "t_comms",
        "t_lower",
        "t_upper",
        "binding",
    }
    per_kernel = sum(sp.Rational(k["t_lower"]) for k in step["kernels"])
    assert sp.Rational(step["t_lower"]) == per_kernel == sp.Rational(data["t_lower"])
    assert len(step["kernels"]) == 10  # 12 parts, up + act + down fused into one


_counts = st.tuples(st.integers(1, 10**12), st.integers(1, 10**10), st.integers(0, 10**9))
_ceilings = Ceilings(
    peak=sp.Integer(197) * 10**12,
    bandwidth=sp.Integer(82) * 10**10,
    link=sp.Integer(45) * 10**9,
    launch_overhead=sp.Rational(1, 10**6),
)


def _kernels(counts: list[tuple[int, int, int]], overlap: bool = False) -> tuple[Kernel, ...]:
    return tuple(
        Kernel(f"k{i}", sp.Integer(fl), sp.Integer(by), sp.Integer(cm), comms_overlapped=overlap)
        for i, (fl, by, cm) in enumerate(counts)
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(_counts, min_size=1, max_size=6), st.booleans())
def test_step_bounds_are_sums_of_kernel_bounds(counts, overlap):
    step = compose(_kernels(counts, overlap), _ceilings)
    peak, bw, link, launch = (Fraction(int(v)) for v in (197 * 10**12, 82 * 10**10, 45 * 10**9, 0))
    launch = Fraction(1, 10**6)
    lower = upper = Fraction(0)
    for fl, by, cm in counts:
        t_math, t_mem, t_comms = Fraction(fl) / peak, Fraction(by) / bw, Fraction(cm) / link
        lower += (max(t_math, t_mem, t_comms) if overlap else max(t_math, t_mem) + t_comms) + launch
        upper += t_math + t_mem + t_comms + launch
    assert step.t_lower == sp.Rational(lower)
    assert step.t_upper == sp.Rational(upper)
    assert step.t_lower <= step.t_upper
    assert step.t_lower_overlapped <= step.t_lower_serial
    assert sum(k.share for k in step.kernels) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(_counts, min_size=2, max_size=5), st.integers(0, 3), st.fractions(0, 1))
def test_fusing_two_kernels_never_raises_t_lower(counts, where, kept):
    where = where % (len(counts) - 1)
    (f1, b1, c1), (f2, b2, c2) = counts[where], counts[where + 1]
    saved = int(Fraction(min(b1, b2)) * kept)  # the intermediate: at most what either moves
    fused = [*counts[:where], (f1 + f2, b1 + b2 - saved, c1 + c2), *counts[where + 2 :]]
    no_launch = Ceilings(_ceilings.peak, _ceilings.bandwidth, _ceilings.link)
    assert (
        compose(_kernels(fused), no_launch).t_lower <= compose(_kernels(counts), no_launch).t_lower
    )
    assert (
        compose(_kernels(fused), _ceilings).t_lower <= compose(_kernels(counts), _ceilings).t_lower
    )


def test_sweep_sums_a_composites_kernels_like_solve():
    sets = ["T=512", "S=512", "d_model=4096", "d_ff=11008", "N=32", "K=32", "H=128"]
    flags = [f"--set={s}" for s in sets]
    sweep = run_cli(
        [
            "sweep",
            "transformer_block",
            "--dtype",
            "bf16",
            "--chip",
            "h100",
            *flags,
            "--over",
            "B=8,64",
        ]
    )
    assert sweep.code == 0, sweep
    header, *rows = sweep.out.strip().splitlines()
    column = header.split(",").index("t_lower_s")
    for row in rows:
        batch = row.split(",")[0]
        data = json.loads(
            run_cli(
                ["solve", "transformer_block", "--dtype", "bf16", "--chip", "h100", *flags]
                + [f"--set=B={batch}", "--format", "json"]
            ).out
        )
        exact = float(sp.Rational(data["t_lower"]))
        assert abs(float(row.split(",")[column]) - exact) <= 1e-8 * exact


# -- the verdict gives the step's fraction of peak, launch overhead included -----------------


def _solve(*argv: str, fmt: str = "json") -> str:
    result = run_cli(["solve", *argv, "--format", fmt])
    assert result.code == 0, result
    return result.out


def test_the_verdict_gives_the_steps_fraction_of_peak_with_launch_overhead():
    argv = ("--flops", "1e9", "--bytes", "1e6", "--chip", "h100", "--compute", "fp16")
    data = json.loads(_solve(*argv, "--launch-overhead", "500us"))
    t_math = Fraction(10**9) / PEAK
    t_lower = max(t_math, Fraction(10**6) / BANDWIDTH) + Fraction(1, 2000)
    fraction = t_math / t_lower
    assert Fraction(data["step"]["fraction_of_peak"]) == fraction
    verdict = _solve(*argv, "--launch-overhead", "500us", fmt="md").strip().splitlines()[-1]
    assert f"{float(100 * fraction):.4g} % of peak" in verdict
    assert "100 % of peak" not in verdict
