"""Property tests of the math, against naive sympy computations done here.

- the intensity equals FLOPs/bytes at random points;
- the crossover satisfies T_math = T_mem exactly;
- min_compute_bound is minimal (compute-bound there, memory-bound one below);
- the leading-order form is the limit of the intensity along the regime's scaling.
"""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.analysis.analyse import analyse
from derive.declare.registry import load_registry
from derive.problem.binding import ProblemSpec, bind

REG = load_registry()
DTYPES = ["fp32", "bf16", "fp8", "int8", "fp4", "mxfp4", "nvfp4", "mxfp8"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

peaks = st.integers(1, 999).map(lambda m: f"{m}e12")
bandwidths = st.integers(1, 999).map(lambda m: f"{m}e9")
dims = st.integers(1, 50_000)


def _analysis(op, dts, peak, bw, sets=(), regime=None):
    names = REG.get(op).tensor_names
    spec = ProblemSpec(
        op,
        tuple(f"{n}={d}" for n, d in zip(names, dts)),
        compute="bf16",
        peak=peak,
        bandwidth=bw,
        sets=tuple(sets),
        regime=regime,
    )
    return analyse(bind(spec, REG.get(op)))


@SETTINGS
@given(
    st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3), peaks, bandwidths, dims, dims, dims
)
def test_intensity_is_flops_over_bytes(dts, peak, bw, b, d, f):
    a = _analysis("matmul", dts, peak, bw)
    B, D, F = REG.get("matmul").dims
    point = {B: b, D: d, F: f}
    widths = [
        REG and __import__("derive.problem.dtypes", fromlist=["x"]).get_dtype(x).width for x in dts
    ]
    naive = sp.Rational(2 * b * d * f) / (widths[0] * b * d + widths[1] * d * f + widths[2] * b * f)
    assert a.memory.intensity.subs(point) == naive
    assert a.flops.subs(point) / a.memory.bytes.subs(point) == naive


@SETTINGS
@given(st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3), peaks, bandwidths, dims, dims)
def test_crossover_satisfies_its_equation_and_threshold_is_minimal(dts, peak, bw, d, f):
    a = _analysis("matmul", dts, peak, bw, sets=(f"D={d}", f"F={f}"))
    c = a.memory.crossover
    B = REG.get("matmul").dim("B")
    P, W = a.problem.peak.value, a.problem.bandwidth.value
    t_math = a.flops.subs(a.problem.bound_subs()) / P
    t_mem = a.memory.bytes.subs(a.problem.bound_subs()) / W
    if c.status == "crosses":
        assert sp.simplify(t_math.subs(B, c.exact) - t_mem.subs(B, c.exact)) == 0
        n = c.min_compute_bound
        assert t_math.subs(B, n) >= t_mem.subs(B, n)
        assert n == 1 or t_math.subs(B, n - 1) < t_mem.subs(B, n - 1)
    elif c.status == "never":
        # I rises towards its limit as B grows; the limit stays below the ridge
        assert sp.limit(a.memory.intensity.subs(a.problem.bound_subs()), B, sp.oo) <= P / W
        assert t_math.subs(B, 10**9) < t_mem.subs(B, 10**9)
    else:
        assert c.status == "always"
        assert t_math.subs(B, 1) >= t_mem.subs(B, 1)


@SETTINGS
@given(
    st.lists(st.sampled_from(DTYPES), min_size=3, max_size=3),
    st.sampled_from(["B << D, F", "D, F >> 1", "B >> G", "B -> oo"]),
    st.sampled_from(["matmul", "matmul_per_example", "matmul_grouped"]),
)
def test_leading_order_is_the_limit(dts, regime, op):
    dims_of = {d.name for d in REG.get(op).dims}
    if not all(
        n.strip() in dims_of
        for n in regime.replace("<<", ",").replace(">>", ",").replace("-> oo", "").split(",")
        if n.strip() not in ("1", "")
    ):
        return
    a = _analysis(op, dts, "1.97e14", "8.2e11", regime=regime)
    t = sp.Symbol("t", positive=True)
    scaled = a.memory.intensity.subs(
        {g: t * g for g in a.problem.regime.growing}, simultaneous=True
    )
    assert sp.simplify(sp.limit(scaled, t, sp.oo) - a.intensity_regime) == 0


@SETTINGS
@given(peaks, bandwidths, st.integers(1, 64), st.integers(1, 4096))
def test_network_crossover_is_minimal(peak, link, p, f):
    spec = ProblemSpec(
        "matmul_sharded",
        ("bf16",),
        peak=peak,
        bandwidth="1e12",
        link_bandwidth=link,
        sets=(f"P={p}", f"F={f}", "B=8"),
        solve_for="D",
    )
    a = analyse(bind(spec, REG.get("matmul_sharded")))
    c = a.network.crossover
    D = REG.get("matmul_sharded").dim("D")
    ratio = sp.Rational(int(peak[:-3]) * 10**12, int(link[:-2]) * 10**9)
    assert c.status == "crosses" and c.exact == ratio * p  # FLOPs 2BDF/P over 2BF bytes: I = D/P
    n = c.min_compute_bound
    assert sp.Rational(n, p) >= ratio and (n == 1 or sp.Rational(n - 1, p) < ratio)
    assert c.variable == D
