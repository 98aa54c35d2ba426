"""The catalogue of quantities is consistent, and what reads it agrees with it.

Each row is checked against the engine, not against a copy of its values: an ask key
is a step a solution prints (or a value the kernel, model or serving step has), a
checked quantity has a value, a JSON path leads to a key of that kind's real report,
and no spelling names two quantities.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import run_cli

from derive.catalogue import QUANTITIES, ProblemKind, Use, did_you_mean, names_for, rows_for
from derive.declare.registry import load_registry
from derive.errors import ProblemError
from derive.pipeline import derive_spec
from derive.present.json_export import to_json
from derive.problem.binding import ProblemSpec
from derive.problem.sets.problem_set import parse_problem_set
from derive.problem.timing import TimingSpec

OP, KERNEL, MODEL, SERVING, TRAINING = (
    ProblemKind.OPERATOR,
    ProblemKind.KERNEL,
    ProblemKind.MODEL,
    ProblemKind.SERVING,
    ProblemKind.TRAINING,
)

# Operator problems that between them have every part of the report: a regime, a
# step with every dim bound and a measurement, and an interconnect.
_OPERATOR_SPECS = (
    ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e", regime="B << D, F"),
    ProblemSpec(
        "matmul",
        dtypes=("bf16",),
        chip="h100",
        sets=("B=4096", "D=4096", "F=4096"),
        timing=TimingSpec(measured_time="120us"),
    ),
    ProblemSpec("matmul_sharded", dtypes=("bf16",), chip="tpu-v5e", sets=("P=2",), solve_for="D"),
    ProblemSpec(  # sharded in the book's notation: the winner, its collectives, each tensor
        "matmul",
        dtypes=("bf16",),
        chip="tpu-v5e",
        mesh="x=4@4.5e10:torus",
        sets=("B=128", "D=8192", "F=16384"),
        shards=("X[B, D]", "Y[D_x, F]"),
    ),
    # a composite that fuses, over a model's layers: its fusion savings × layers
    ProblemSpec("decode_step_70b", dtypes=("bf16",), chip="h100", sets=("B=8",), layers="80"),
)
_KERNEL = ["--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100", "--measured-time", "1.3ms"]
_MODEL = ["llama-2-70b", "--chip", "h100", "--devices", "8", "--set", "B=64", "--set", "S=8192"]


def _derivations():
    registry = load_registry(())
    return [derive_spec(spec, registry) for spec in _OPERATOR_SPECS]


def _reports(kind: ProblemKind) -> list[dict]:
    if kind is OP:
        return [to_json(d.analysis) for d in _derivations()]
    argv = {
        KERNEL: ["solve", *_KERNEL],
        MODEL: ["model", *_MODEL, "--train-tokens", "2e12", "--mfu", "0.4"],
        SERVING: ["model", *_MODEL, "--phase", "decode", "--measured-time", "30ms"],
        TRAINING: [
            "train", "llama-3-8b", "--chip", "h100", "--dp", "4", "--cp", "2", "--batch-tokens", "4194304",
            "--seq", "4096", "--measured-step-time", "40s", "--matmul-efficiency", "0.5",
        ],
    }[kind]  # fmt: skip
    result = run_cli([*argv, "--format", "json"])
    assert result.code == 0, result.err
    return [json.loads(result.out)]


def _has_path(report: dict, path: tuple[str, ...]) -> bool:
    node: object = report
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def test_every_spelling_names_one_quantity():
    spellings = Counter(s for row in QUANTITIES for s in row.spellings())
    assert [s for s, n in spellings.items() if n > 1] == []
    assert len({row.name for row in QUANTITIES}) == len(QUANTITIES)


def test_every_spelling_is_in_the_form_the_reader_normalises_to():
    from derive.checking.claims import normalise_name

    for row in QUANTITIES:
        for spelling in row.spellings():
            assert normalise_name(spelling) == spelling, (row.name, spelling)


@pytest.mark.parametrize("kind", [OP, KERNEL, MODEL, SERVING, TRAINING], ids=lambda k: k.value)
def test_every_value_has_its_json_key(kind: ProblemKind):
    reports = _reports(kind)
    for row in rows_for(kind, Use.EXPECT) + rows_for(kind, Use.CHECK):
        path = row.json_path(kind)
        assert any(_has_path(r, path) for r in reports), (row.name, path)


def test_every_operator_ask_is_a_step_a_solution_prints():
    topics = {s.topic for d in _derivations() for s in d.solution.steps}
    registry = load_registry(())
    composite = ProblemSpec(
        "decode_step_70b", dtypes=("bf16",), chip="h100", sets=("B=8", "S=4096")
    )
    topics |= {s.topic for s in derive_spec(composite, registry).solution.steps}
    missing = set(names_for(OP, Use.ASK)) - topics
    # the regime's own check and the collectives' steps need operators of their own;
    # tests/analysis/test_collectives.py and the regime tests print them; the winner and each tensor's
    # bytes per device are the sharding section's (tests/analysis/test_sharded_operators.py)
    assert missing <= {"regime_holds", "collectives", "strategy", "bytes_per_device"}, missing


def test_every_operator_check_quantity_is_computed():
    from derive.checking.quantities import QUANTITIES as CHECKED
    from derive.checking.quantities import expected

    values: dict[str, bool] = {}
    for d in _derivations():
        for name in CHECKED:
            try:
                values[name] = values.get(name, False) or expected(d.analysis, name) is not None
            except Exception:  # a quantity this problem lacks (no link, a dim free)
                values.setdefault(name, False)
    assert [name for name, ok in values.items() if not ok] == []
    assert set(values) == set(names_for(OP, Use.CHECK))


def test_every_kernel_quantity_is_computed():
    from derive.analysis.kernel_numbers import kernel_of
    from derive.checking.kernel_claims import kernel_value
    from derive.problem.kernel_spec import KernelSpec

    kernel = kernel_of(
        KernelSpec(
            flops="1e12", bytes="2.5e9", chip="h100", timing=TimingSpec(measured_time="1.3ms")
        )
    )
    for name in names_for(KERNEL, Use.CHECK):
        assert kernel_value(kernel, name) is not None, name


def test_boxed_quantities_have_their_box():
    for kind in (OP, KERNEL, SERVING, TRAINING):
        for row in rows_for(kind, Use.BOX):
            assert row.in_kind(kind).box is not None, (kind, row.name)


def test_an_ask_shows_only_boxed_quantities_of_its_kind():
    from derive.catalogue import shown_by

    for kind in ProblemKind:
        boxed = set(names_for(kind, Use.BOX))
        for ask in names_for(kind, Use.ASK):
            assert set(shown_by(kind, ask)) <= boxed, (kind, ask)


def test_a_model_quantity_has_its_notation():
    from derive.model.symbols import NOTATION

    for row in rows_for(MODEL, Use.ASK):
        assert row.latex and row.meaning, row.name
        assert NOTATION[row.name].latex == row.latex  # the model's notation reads the row


def test_every_ask_has_a_phrase_where_a_question_sheet_asks_it():
    for kind in (KERNEL, MODEL, SERVING, TRAINING):
        for row in rows_for(kind, Use.ASK):
            assert row.in_kind(kind).phrase, (kind, row.name)


def test_an_unknown_ask_suggests_the_nearest_name():
    text = '[[problem]]\nid = "p"\noperator = "matmul"\nask = ["rige"]\n'
    with pytest.raises(ProblemError) as error:
        parse_problem_set(text, "set.toml")
    assert "unknown quantity 'rige' (did you mean 'ridge'?)" in str(error.value)
    assert did_you_mean("zzzz", names_for(OP, Use.ASK)) == ""


def test_every_training_check_quantity_is_computed():
    """Each checked quantity of a training run has a value for a run with a capacity and a
    measured step (the checker reads them from the run's analysis)."""
    from derive.checking.training_claims import training_values
    from derive.pipeline import solve_training

    run = solve_training(
        "llama-3-8b", chip="h100", dp=8, batch_tokens=4194304, seq=4096, measured_step_time="40s",
        train_tokens="15e12", price_per_hour="$2.49", power="700 W", matmul_efficiency="0.5",
    )  # fmt: skip
    values = training_values(run.analysis)
    assert set(values) == set(names_for(TRAINING, Use.CHECK))
    assert [name for name, value in values.items() if value is None] == []


def test_context_parallel_traffic_and_time_are_rows(tmp_path, cli):
    """CP's traffic and time (and every dim's) are catalogue rows: a set may ``expect`` them and
    ``derive check`` judges them (before: "unknown quantity 'comms_cp'"). The value is counted
    by hand: ring attention sends the K and V blocks of S/cp tokens (bf16, 8 KV heads of 128)
    cp − 1 times per layer visit, once forward and twice backward, over 256 micro-batches of
    one sequence on each of Llama 3 8B's 32 layers; its time is those bytes over NVLink's
    4.5e11 B/s, one way (chips.toml's H100)."""
    from fractions import Fraction

    seq, cp, layers, kv_heads, head_dim, micro_batches = 4096, 2, 32, 8, 128, 4194304 // 4096 // 4
    block = 2 * 2 * seq // cp * kv_heads * head_dim
    sent = (1 + 2) * (cp - 1) * micro_batches * layers * block
    seconds = Fraction(sent) / Fraction("4.5e11")
    toml = tmp_path / "cp.toml"
    toml.write_text(
        'title = "cp"\n[[problem]]\nid = "p"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        'train = { dp = 4, cp = 2, zero = 1, recompute = "none", micro_batch_size = 1, '
        'batch_tokens = 4194304, seq = 4096 }\nask = ["comms_bytes_per_device", "t_comms"]\n'
        f'expect = {{ comms_cp = "{sent}", t_comms_cp = "{float(seconds)}" }}\n'
    )
    for quantity, claim in (("comms_cp", f"{sent} B"), ("t_comms_cp", f"{seconds} s")):
        out = cli(["check", "--problem-set", str(toml), "--problem", "p", "--quantity", quantity,
                   "--claim", claim, "--trust"])  # fmt: skip
        assert out.code == 0 and out.out.startswith("verdict: correct"), (quantity, out.err)
    assert cli(["key", str(toml), "-o", str(tmp_path / "key"), "--trust"]).code == 0


def test_a_formula_names_a_runs_new_rows(cli):
    """``--define`` on ``derive train`` names CP's traffic by its row (before: "unknown name
    'comms_cp'"); the share it defines is the JSON's CP bytes over its total."""
    from fractions import Fraction

    out = cli([
        "train", "llama-3-8b", "--chip", "h100", "--dp", "4", "--cp", "2", "--zero", "1",
        "--batch-tokens", "4194304", "--seq", "4096",
        "--define", "share = comms_cp / comms_bytes_per_device",
        "--define", "wait = t_comms_cp + t_comms_dp", "--format", "json",
    ])  # fmt: skip
    assert out.code == 0, out.err
    report = json.loads(out.out)
    sent, times = report["comms_bytes_per_device"], report["comms_time_per_device"]
    total = sum(Fraction(v) for v in sent.values())
    assert Fraction(report["defined"]["share"]["exact"]) == Fraction(sent["cp"]) / total
    wait = Fraction(times["cp"]) + Fraction(times["dp"])
    assert Fraction(report["defined"]["wait"]["exact"]) == wait
