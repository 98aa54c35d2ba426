"""One count is enough (issue 36): --flops alone is a compute-only kernel, --bytes alone a
memory-only one, on the command line, in a problem set and from Python."""

from __future__ import annotations

import json
from fractions import Fraction

from derive import KernelSpec
from derive.pipeline import derive_kernel
from tests.conftest import run_cli

_PEAK, _BANDWIDTH = 989 * 10**12, 335 * 10**10  # the H100's dense bf16 peak, HBM3 bandwidth


def _json(*argv: str) -> dict:
    r = run_cli(["solve", *argv, "--peak", "9.89e14", "--bandwidth", "3.35e12", "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_a_1e12_flop_kernel_takes_flops_over_peak():
    out = _json("--flops", "1e12")
    assert Fraction(out["step"]["t_lower"]) == Fraction(10**12, _PEAK)
    assert out["step"]["t_mem"] == "0" and out["binding"] == "compute"


def test_bytes_alone_is_memory_only():
    out = _json("--bytes", "2.5e9")
    assert Fraction(out["step"]["t_lower"]) == Fraction(25 * 10**8, _BANDWIDTH)
    assert out["step"]["t_math"] == "0" and out["binding"] == "memory"


def test_the_steps_say_the_kernel_is_compute_only():
    r = run_cli(["solve", "--flops", "1e12", "--chip", "h100"])
    assert r.code == 0 and "compute-only kernel, no bytes given" in r.out


def test_python_and_a_set_take_one_count(tmp_path):
    kernel = derive_kernel(KernelSpec(flops="1e12", peak="9.89e14", bandwidth="3.35e12"))
    assert kernel.kernel.step is not None
    assert kernel.kernel.step.t_lower == Fraction(10**12, _PEAK)
    path = tmp_path / "one.toml"
    path.write_text(
        '[[problem]]\nid = "k"\nkernel = { flops = "1e12" }\npeak = "9.89e14"\n'
        f'bandwidth = "3.35e12"\nexpect = {{ t_lower = "{Fraction(10**12, _PEAK)}" }}\n',
        encoding="utf-8",
    )
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 0, r.err


def test_no_count_at_all_is_one_line():
    r = run_cli(["solve", "--flops", "0", "--chip", "h100"])
    assert r.code == 2 and r.err.count("\n") == 1
