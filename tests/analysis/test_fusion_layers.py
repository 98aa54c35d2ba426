"""A composite's fusion savings × a model's layers (issue 36): ``derive solve COMPOSITE
--layers N|MODEL``, against a hand count."""

from __future__ import annotations

import json

from tests.conftest import run_cli

ARGS = ["solve", "decode_step_70b", "--dtype", "bf16", "--chip", "h100", "--set", "B=8",
        "--set", "S=4096"]  # fmt: skip
# fused up → act → down: the activation's input and output are each written once and read
# once less, B × 28672 elements of 2 bytes (B = 8), in every one of the model's layers
PER_LAYER = 4 * 8 * 28672 * 2


def test_savings_times_the_layers_of_an_80_layer_model():
    r = run_cli([*ARGS, "--layers", "llama-2-70b", "--format", "json"])
    assert r.code == 0, r.err
    savings = json.loads(r.out)["fusion_savings"]
    assert savings == {
        "exact": str(PER_LAYER),
        "unit": "B",
        "per_layer": str(PER_LAYER),
        "layers": 80,
        "total": str(80 * PER_LAYER),
    }


def test_the_steps_show_savings_times_layers():
    r = run_cli([*ARGS, "--layers", "80"])
    assert r.code == 0, r.err
    assert "Fusion savings × layers" in r.out
    assert f"80 \\cdot {PER_LAYER}" in r.out and str(80 * PER_LAYER) in r.out


def test_layers_on_what_fuses_nothing_or_no_model_is_one_line():
    for argv in (
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=8", "--layers", "80"],
        [*ARGS, "--layers", "no-such-model"],
        [*ARGS, "--layers", "0"],
    ):
        r = run_cli(argv)
        assert r.code == 2 and r.err.strip().count("\n") == 0 and "--layers" in r.err, r.err


def test_layers_answers_are_graded_by_flag_and_by_the_sets_key(cli, tmp_path):
    """``derive check --layers`` and a set's ``layers`` judge the savings over every layer
    (before: check had no --layers, and a set no key for it); ``expect`` is checked too."""
    total = 80 * PER_LAYER  # llama-2-70b has 80 layers
    check = ["check", *ARGS[1:], "--quantity", "fusion_savings_total"]
    assert cli([*check, "--layers", "llama-2-70b", "--claim", f"{total} B"]).out.startswith(
        "verdict: correct"
    )
    wrong = cli([*check, "--layers", "80", "--claim", str(PER_LAYER)])
    assert wrong.out.startswith("verdict: incorrect"), wrong.out + wrong.err

    def key_of(expect: int):
        toml = tmp_path / "set.toml"
        toml.write_text(
            'title = "Fused"\n[[problem]]\nid = "f"\noperator = "decode_step_70b"\n'
            'dtype = "bf16"\nchip = "h100"\nset = { B = 8, S = 4096 }\nlayers = "llama-2-70b"\n'
            f'expect = {{ fusion_savings_total = "{expect}" }}\n'
        )
        return toml, cli(["key", str(toml), "-o", str(tmp_path / f"key{expect}")])

    toml, built = key_of(total)
    assert built.code == 0, built.err
    by_set = ["check", "--problem-set", str(toml), "--problem", "f"]
    judged = cli([*by_set, "--quantity", "fusion_savings_total", "--claim", f"{total} B"])
    assert judged.out.startswith("verdict: correct"), judged.out + judged.err
    refused = cli([*by_set, "--layers", "80", "--quantity", "fusion_savings_total", "--claim", "1"])
    assert refused.code == 2 and "--layers" in refused.err
    _, stopped = key_of(PER_LAYER)  # one layer's savings: wrong
    assert stopped.code == 2 and "key 'expect' (fusion_savings_total)" in stopped.err


def test_the_workbook_grades_a_sets_layers():
    from derive.problem.sets.problem_set import parse_problem_set
    from derive.web.grading import Grader

    pset = parse_problem_set(
        'title = "Fused"\n[[problem]]\nid = "f"\noperator = "decode_step_70b"\ndtype = "bf16"\n'
        'chip = "h100"\nset = { B = 8, S = 4096 }\nlayers = 80\n',
        "set.toml",
    )
    checked = Grader.of(pset).check("f", "fusion_savings_total", f"{80 * PER_LAYER} B")
    assert checked.verdict == "correct", checked
