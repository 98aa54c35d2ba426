"""``derive compare MODEL --phase decode|prefill``: one serving step of a model across chips.

Every expected value is computed here by hand from Llama 3 8B's published architecture
and chips.toml's decimal text, with :class:`fractions.Fraction`.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

CHIPS = tomllib.loads((Path(__file__).parents[2] / "derive/data/chips.toml").read_text())

# Llama 3 8B (Meta's config.json): hidden 4096, 32 layers, 32 heads of 128, 8 KV heads,
# SwiGLU width 14336, vocabulary 128256; bf16 (2 bytes) throughout.
D, LAYERS, HEADS, KV_HEADS, D_HEAD, FFN, VOCAB, WIDTH = 4096, 32, 32, 8, 128, 14336, 128256, 2


def _figure(chip: str, key: str) -> Fraction:
    return Fraction(CHIPS[chip][key]["value"])


def _ceilings(chip: str) -> tuple[Fraction, Fraction]:
    return _figure(chip, "peak_bf16_flop_per_s"), _figure(chip, "hbm_bytes_per_s")


def _kernels(batch: int, context: int, prefill: bool) -> list[tuple[int, int]]:
    """(FLOPs, bytes) of every kernel launch of one step on one device, by hand.

    Tokens in flight: B (decode) or B·S (prefill). A matmul reads its weight once and its
    input, writes its output; a norm reads x and its gain, writes x; attention reads q and
    the K and V of S positions per sequence and writes its output; the embedding reads one
    row per token and writes it; the head is the last matmul.
    """
    tokens, w = batch * context if prefill else batch, WIDTH
    kv = KV_HEADS * D_HEAD

    def matmul(n_in: int, n_out: int) -> tuple[int, int]:
        return 2 * tokens * n_in * n_out, (n_in * n_out + tokens * n_in + tokens * n_out) * w

    norm = (0, (2 * tokens * D + D) * w)  # elementwise: no FLOPs counted
    attention = (
        4 * tokens * HEADS * D_HEAD * context,
        (2 * tokens * D + 2 * batch * context * kv) * w,
    )
    layer = [norm, matmul(D, D), matmul(D, kv), matmul(D, kv), attention, matmul(D, D), norm]
    layer += [matmul(D, FFN), matmul(D, FFN), matmul(FFN, D)]
    embed = (0, 2 * tokens * D * w)
    return [embed] + layer * LAYERS + [norm, matmul(D, VOCAB)]


def _step(chip: str, batch: int, context: int, prefill: bool = False) -> dict[str, Fraction]:
    peak, bandwidth = _ceilings(chip)
    kernels = _kernels(batch, context, prefill)
    t_lower = sum(max(Fraction(f) / peak, Fraction(b) / bandwidth) for f, b in kernels)
    t_upper = sum(Fraction(f) / peak + Fraction(b) / bandwidth for f, b in kernels)
    memory = all(Fraction(f) / peak <= Fraction(b) / bandwidth for f, b in kernels)
    tokens = batch * context if prefill else batch
    return {
        "t_lower": Fraction(t_lower),
        "t_upper": Fraction(t_upper),
        "rate": tokens / Fraction(t_lower),
        "memory_bound": Fraction(memory),
    }


def _json(argv: list[str]) -> Any:
    r = run_cli(argv + ["--format", "json"])
    assert r.code == 0 and r.err == "", r
    return json.loads(r.out)


DECODE = ["compare", "llama-3-8b", "--phase", "decode", "--chips", "h100,b200"]
DECODE += ["--set", "B=32", "--set", "S=8192", "--baseline", "a100"]


def test_decode_rows_and_ratios_against_a_baseline_match_a_hand_count():
    rows = _json(DECODE)
    assert [row["chip"] for row in rows] == ["h100", "b200"]
    base = _step("a100", 32, 8192)
    for row in rows:
        chip = row["chip"]
        want = _step(chip, 32, 8192)
        assert want["memory_bound"] and row["bound"] == "memory"
        assert Fraction(row["t_lower"]["exact"]) == want["t_lower"]
        assert Fraction(row["t_upper"]["exact"]) == want["t_upper"]
        assert Fraction(row["tokens_per_s"]["exact"]) == want["rate"] == 32 / want["t_lower"]
        assert Fraction(row["inter_token_latency"]["exact"]) == want["t_lower"]
        assert row["ttft"] is None and row["prefill_tokens_per_s"] is None
        peak = _figure(chip, "peak_bf16_flop_per_s") / _figure("a100", "peak_bf16_flop_per_s")
        bandwidth = _figure(chip, "hbm_bytes_per_s") / _figure("a100", "hbm_bytes_per_s")
        ratios = row["ratios"]
        assert ratios["baseline"] == "a100" and ratios["baseline_compute_dtype"] == "bf16"
        assert Fraction(ratios["peak"]["exact"]) == peak
        assert Fraction(ratios["bandwidth"]["exact"]) == bandwidth
        assert Fraction(ratios["ridge"]["exact"]) == peak / bandwidth
        tokens_ratio = want["rate"] / base["rate"]
        assert Fraction(ratios["tokens_per_s"]["exact"]) == tokens_ratio
        assert Fraction(ratios["t_lower_speedup"]["exact"]) == base["t_lower"] / want["t_lower"]
        # a memory-bound step gains the bandwidth ratio, not the peak's
        assert tokens_ratio == bandwidth != peak and ratios["follows"] == "bandwidth"
        # the same tokens are in flight on every chip: one ratio, two keys
        assert Fraction(ratios["t_lower_speedup"]["exact"]) == tokens_ratio
        assert ratios["prefill_tokens_per_s"] is None
        assert "step_mfu" not in row and "step_mbu" not in row  # no measurement in a compare
    text = run_cli(DECODE).out
    assert "| tokens/s | inter-token latency (ms) | matmul crossover B\\* | peak ×a100 |" in text
    assert "- h100 (bf16) against a100 (bf16): compute ×3.17, bandwidth ×1.64" in text
    assert "the speedup ×1.64 follows bandwidth" in text


def test_prefill_rows_give_prefill_tokens_per_s_and_ttft():
    argv = ["compare", "llama-3-8b", "--phase", "prefill", "--chips", "h100,b200"]
    rows = _json(argv + ["--set", "B=2", "--set", "S=2048"])
    for row in rows:
        want = _step(row["chip"], 2, 2048, prefill=True)
        assert Fraction(row["t_lower"]["exact"]) == want["t_lower"]
        assert Fraction(row["ttft"]["exact"]) == want["t_lower"]
        assert Fraction(row["prefill_tokens_per_s"]["exact"]) == want["rate"]
        assert row["tokens_per_s"] is None and row["crossover"] is None
        assert row["phase"] == "prefill" and row["set"] == {"B": 2, "S": 2048}
    text = run_cli(argv + ["--set", "B=2", "--set", "S=2048"]).out
    assert text.startswith("## Compare: llama-3-8b prefill across 2 chips\n")
    assert "| prefill tokens/s | TTFT (ms) |" in text and "crossover" not in text


def test_one_column_is_both_the_speedup_and_the_tokens_per_s_ratio():
    """The T_lower speedup and the tokens/s ratio are equal, so Markdown shows them once."""
    argv = ["compare", "llama-3-8b", "--phase", "prefill", "--chips", "h100", "--baseline"]
    argv += ["a100", "--set", "B=1", "--set", "S=4096"]
    (row,) = _json(argv)
    speedup = _step("a100", 1, 4096, True)["t_lower"] / _step("h100", 1, 4096, True)["t_lower"]
    ratios = row["ratios"]
    assert Fraction(ratios["t_lower_speedup"]["exact"]) == speedup
    assert Fraction(ratios["prefill_tokens_per_s"]["exact"]) == speedup
    assert ratios["tokens_per_s"] is None
    lines = run_cli(argv).out.splitlines()
    header = lines[4].split(" | ")
    assert header[-2:] == ["speedup (T\\_lower) = tokens/s ×", "follows |"]
    assert not any("tokens/s ×" in cell for cell in header[:-2])
    cells = lines[6].split(" | ")
    assert len(cells) == len(header)
    exact = rf"$\frac{{{speedup.numerator}}}{{{speedup.denominator}}} \approx "
    assert cells[-2].startswith(exact) and [cell for cell in cells if cell == cells[-2]] == [
        cells[-2]
    ]


def test_data_parallel_replicas_are_named_and_their_rates_are_the_clusters():
    """--devices 2 --tp 1: two replicas of one device; the step is one device's (the hand
    count at tensor parallel 1) and tokens/s is both replicas' (2·B / T_lower)."""
    argv = ["compare", "llama-3-8b", "--phase", "decode", "--chips", "h100", "--devices", "2"]
    argv += ["--tp", "1", "--set", "B=32", "--set", "S=8192"]
    (row,) = _json(argv)
    want = _step("h100", 32, 8192)
    assert (row["devices"], row["tp"], row["replicas"]) == (2, 1, 2)
    assert Fraction(row["t_lower"]["exact"]) == want["t_lower"]
    assert Fraction(row["tokens_per_s"]["exact"]) == 2 * 32 / want["t_lower"]
    group = "over 1 device, 2 data-parallel replicas of it on 2 devices"
    text = run_cli(argv).out
    assert f"tensor parallel: {group} (B sequences each; rates for all replicas);" in text
    assert f"{group} (B sequences each" in run_cli([*argv, "--format", "tex"]).out
    # the words derive model gives the same step
    model = ["model", "llama-3-8b", "--chip", "h100", "--phase", "decode"]
    model += argv[argv.index("--devices") :]
    assert f"tensor parallel {group} (B sequences each" in run_cli(model).out
    # one group of all the devices (--tp defaults to --devices): no replicas named
    one_group = [*argv[: argv.index("--tp")], "--set", "B=32", "--set", "S=8192"]
    (row,) = _json(one_group)
    assert (row["devices"], row["tp"], row["replicas"]) == (2, 2, 1)
    assert "tensor parallel: over 2 devices; counts" in run_cli(one_group).out


def test_the_tp_help_allows_replicas():
    from derive.commands.cli import main

    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(out.getvalue().split())
    assert "default and only value" not in text
    assert "a divisor of --devices (default --devices)" in text


def test_every_chip_by_default_leaving_out_those_without_the_dtype():
    r = run_cli(["compare", "llama-3-8b", "--phase", "decode", "--set", "B=1", "--set", "S=8"])
    assert r.code == 0, r
    names = [name for name in CHIPS if "peak_bf16_flop_per_s" in CHIPS[name]]
    assert [line.split(" | ")[0][2:] for line in r.out.splitlines()[6:]] == names
    assert "no bf16 peak, left out: v100." in r.out


def test_tensor_parallel_adds_the_link_column():
    argv = ["compare", "llama-2-70b", "--phase", "decode", "--chips", "h100", "--devices", "8"]
    text = run_cli(argv + ["--set", "B=8", "--set", "S=4096"]).out
    assert "| HBM (B/s) | link (B/s) | ridge (FLOP/B) |" in text
    assert "$4.5 \\times 10^{11}$" in text


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["compare", "llama-3-8b", "--chips", "h100,a100"], "give --phase decode|prefill"),
        (["compare", "nosuch", "--chips", "h100"], "unknown operator or model; operators: "),
        (["compare", "lama-3-8b"], "did you mean 'llama-3-8b'?"),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--compute", "bf16"],
            "--compute with model 'llama-3-8b'",
        ),
        (["compare", "llama-3-8b", "--phase", "decode", "--regime", "B -> oo"], "--regime with"),
        (["compare", "matmul", "--dtype", "bf16", "--phase", "decode"], "--phase with operator"),
        (["compare", "matmul", "--dtype", "bf16", "--devices", "2"], "only a model has"),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--chips", "v100"],
            "chip 'v100': has no bf16 peak",
        ),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--chips", "h100", "--set", "B=1"],
            "a step needs a batch and a context",
        ),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--baseline", "h100,a100"]
            + ["--set", "B=1", "--set", "S=8", "--chips", "h100"],
            "one chip",
        ),
        (["compare", "llama-3-8b", "--phase", "serve"], "invalid choice"),
        (
            ["compare", "llama-3-8b", "--phase", "prefill", "--chips", "h100", "--set", "B=1"]
            + ["--set", "S=4096", "--measured-time", "1ms"],
            "--measured-time with model 'llama-3-8b': a measured time is one run on one chip, "
            "not a comparison across chips; give it to derive model llama-3-8b --chip CHIP "
            "--phase decode|prefill --measured-time T",
        ),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--set", "B=1", "--set", "S=8"]
            + ["--measured-tokens-per-s", "6000"],
            "unrecognized arguments: --measured-tokens-per-s",
        ),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--measured-flops-per-s", "1e14"],
            "--measured-flops-per-s with model",
        ),
        # each error names the flag typed: --tp defaults to --devices
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--set", "B=1", "--set", "S=1"]
            + ["--devices", "999999999"],
            "error: --devices 999999999: llama-3-8b has 32 heads, not divisible by 999999999",
        ),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--set", "B=1", "--set", "S=1"]
            + ["--devices", "6", "--tp", "3"],
            "error: --tp 3: llama-3-8b has 32 heads, not divisible by 3\n",
        ),
        (
            ["model", "llama-3-8b", "--chip", "h100", "--phase", "decode", "--set", "B=1"]
            + ["--set", "S=1", "--devices", "3"],
            "error: --devices 3: llama-3-8b has 32 heads",
        ),
        (
            ["compare", "llama-3-8b", "--phase", "decode", "--set", "B=1", "--set", "S=1"]
            + ["--baseline", ""],
            "error: --baseline '': one chip",
        ),
        (["compare", "matmul", "--dtype", "bf16", "--baseline", " "], "error: --baseline ' ':"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, needle):
    r = run_cli(argv)
    assert r.code == 2, r
    assert r.out == "" and r.err.startswith("error: ") and r.err.count("\n") == 1, r
    assert needle in r.err, r.err
    if "unknown operator or model" in needle:
        assert "models: gpt2-small, llama-3-8b" in r.err and "matmul" in r.err


def test_output_is_deterministic():
    for fmt in ("md", "tex", "json"):
        assert run_cli(DECODE + ["--format", fmt]).out == run_cli(DECODE + ["--format", fmt]).out


def test_a_declared_model_matches_derive_model_on_each_chip(tmp_path: Path):
    path = tmp_path / "tiny.py"
    path.write_text(
        "from derive import Transformer\n"
        "tiny = Transformer(name='tiny', layers=2, d_model=64, heads=4, d_ff=256, vocab=1000)\n",
        encoding="utf-8",
    )
    given = ["--operators", str(path), "--phase", "decode", "--set", "B=4", "--set", "S=128"]
    rows = _json(["compare", "tiny", "--chips", "h100,b200", *given])
    for row in rows:
        serving = _json(["model", "tiny", "--chip", row["chip"], *given])["serving"]
        assert Fraction(row["tokens_per_s"]["exact"]) == Fraction(serving["tokens_per_s"])
        assert Fraction(row["t_lower"]["exact"]) == Fraction(serving["step"]["t_lower"])
