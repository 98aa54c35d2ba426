"""Every command speaks the same flags, and ignores none (issue 31 item 4).

``--given/--define/--equation/--unknown`` on a kernel by its numbers, a comms-only
operator, a model (by architecture, by a declared Python model, by ``--params``) and a
training run; equations naming ``<id>.<quantity>`` and defined names; a flag that does
not apply is refused in one line, exit 2; every numeric flag refuses non-ASCII digits and
``_``. Expected values are computed here.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from derive.pipeline import solve
from tests.conftest import refused_in_one_line, run_cli

H100_BF16_PEAK = Fraction(989 * 10**12)  # derive chips: h100 bf16 (dense), 9.89e14
H100_HBM = Fraction(335 * 10**10)  # 3.35e12


def _json(argv: list[str]) -> dict:
    r = run_cli([*argv, "--format", "json"])
    assert r.code == 0, r
    return json.loads(r.out)


def _one_line_error(argv: list[str]) -> str:
    r = run_cli(argv)
    assert r.code == 2 and r.out == "", r
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    return r.err


# -- a kernel by its numbers -----------------------------------------------------------------


def test_kernel_defines_over_its_own_names():
    data = _json(
        ["solve", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100"]
        + ["--define", "x=2 * t_lower", "--define", "i=intensity"]
    )
    t_lower = max(Fraction(10**12) / Fraction(data["peak"]), Fraction(10**9) / H100_HBM)
    assert Fraction(data["defined"]["x"]["exact"]) == 2 * t_lower
    assert Fraction(data["defined"]["i"]["exact"]) == 1000
    assert data["defined"]["i"]["unit"] == "FLOP/byte"


def test_kernel_refuses_an_unknown_name_in_one_line():
    err = _one_line_error(
        ["solve", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100", "--define", "x=nope"]
    )
    assert "--define x" in err and "'nope'" in err and "t_lower" in err


def test_kernel_solves_an_equation_for_a_new_name():
    data = _json(
        ["solve", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100"]
        + ["--equation", "k * t_lower = 1 s", "--unknown", "k"]
    )
    t_lower = max(Fraction(10**12) / Fraction(data["peak"]), Fraction(10**9) / H100_HBM)
    assert Fraction(data["defined"]["k"]["exact"]) == 1 / t_lower


# -- a comms-only operator -------------------------------------------------------------------

ALL_REDUCE = """
from derive import Collective, Operator, Tensor, dims
B, F, P = dims("B F P")
tp_all_reduce = Operator(name="tp_all_reduce", flops=0,
                         comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=P)])
"""


@pytest.fixture
def all_reduce(tmp_path: Path) -> list[str]:
    path = tmp_path / "ops.py"
    path.write_text(ALL_REDUCE)
    return ["solve", "tp_all_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]


def test_comms_only_operator_names_t_comms(all_reduce: list[str]):
    argv = [*all_reduce, "--set", "B=8192", "--set", "F=8192", "--set", "P=8"]
    data = _json([*argv, "--define", "x=2 * t_comms", "--define", "sent=bytes_sent"])
    sent = Fraction(2 * (8 - 1), 8) * 2 * 8192 * 8192  # a ring all-reduce of bf16 B×F
    assert Fraction(data["defined"]["sent"]["exact"]) == sent
    assert Fraction(data["defined"]["x"]["exact"]) == 2 * Fraction(data["t_comms"])


def test_comms_only_operator_in_python(all_reduce: list[str], tmp_path: Path):
    d = solve(
        "tp_all_reduce",
        dtype="bf16",
        chip="h100",
        operators=(tmp_path / "ops.py",),
        set={"B": 8192, "F": 8192, "P": 8},
        define={"x": "t_comms"},
    )
    assert d.questions is not None and d.questions.answer("x").value == d.t_comms
    assert d.as_json()["defined"]["x"]["unit"] == "s"


# -- models ----------------------------------------------------------------------------------

TINY = """
from derive import Transformer, dims
dm, = dims("dm")
tiny = Transformer(name="tiny", layers=2, d_model=dm, heads=1, kv_heads=1, head_dim=dm,
                   d_ff=4*dm, mlp="plain", vocab=1000, tied_embeddings=True, positions=None,
                   bias=False)
"""


def test_a_declared_models_dim_is_an_unknown(tmp_path: Path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    argv = ["model", "tiny", "--operators", str(path), "--chip", "h100"]
    data = _json([*argv, "--equation", "params = 1e7", "--unknown", "dm"])
    dm = int(data["defined"]["dm"]["exact"])

    def params(d: int) -> int:  # 2 layers of attention 4d², plain MLP 8d², 2 norms; embedding
        return 2 * (4 * d * d + 8 * d * d + 2 * d) + 1000 * d + d

    # with '=', the smallest integer from the root up
    assert params(dm - 1) < 10**7 <= params(dm), dm


def test_model_by_params_defines_min_devices():
    data = _json(["model", "--params", "7e9", "--chip", "h100", "--define", "x=min_devices"])
    assert data["defined"]["x"]["exact"] == str(data["min_devices"]["exact"])


def test_model_defines_min_devices_where_it_is_derived():
    argv = ["model", "llama-3-8b", "--chip", "h100", "--set", "B=8", "--set", "S=4096"]
    data = _json([*argv, "--define", "x=min_devices"])
    assert data["defined"]["x"]["exact"] == str(data["min_devices"]["exact"])


# -- equations name other problems' quantities and defined names ------------------------------

_SET = """
[[problem]]
id = "mm"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 4096, D = 8192, F = 8192 }

[[problem]]
id = "eq"
given = { k = "2" }
define = { budget = "k * mm.t_lower", later = "y * 1 s" }
equations = ["x * 1 ms = mm.t_lower", "y = budget / 1 s"]
unknowns = ["x", "y"]
ask = ["x", "y", "later"]
"""


def test_equations_name_references_and_defined_names(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(_SET)
    bdf = 4096 * 8192 * 8192
    t_math = Fraction(2 * bdf) / H100_BF16_PEAK
    t_mem = Fraction(2 * (4096 * 8192 + 8192 * 8192 + 4096 * 8192)) / H100_HBM
    t_lower = max(t_math, t_mem)
    base = ["check", "--problem-set", str(path), "--problem", "eq", "--format", "json"]
    for quantity, value in (("x", t_lower * 1000), ("y", 2 * t_lower), ("later", 2 * t_lower)):
        claim = str(float(value))
        if quantity == "later":
            claim += " s"
        r = run_cli([*base, "--quantity", quantity, "--claim", claim])
        assert r.code == 0 and json.loads(r.out)["verdict"] == "correct", (quantity, r)


# -- a training run ---------------------------------------------------------------------------

_TRAIN = ["train", "llama-3-8b", "--chip", "h100", "--batch-tokens", "4194304", "--seq", "4096"]


def _run(**degrees: int):
    from derive.pipeline import solve_training

    return solve_training(
        "llama-3-8b", chip="h100", batch_tokens="4194304", seq="4096", **degrees
    ).analysis


def test_train_defines_over_its_own_names():
    data = _json([*_TRAIN, "--dp", "8", "--pp", "2", "--define", "x=bubble_fraction"])
    run = _run(dp=8, pp=2)
    m = run.problem.microbatches  # 4194304 / (8 · 1 · 4096) = 128 micro-batches per rank
    assert m == 4194304 // (8 * 4096)
    assert Fraction(data["defined"]["x"]["exact"]) == Fraction(2 - 1, int(m) + 2 - 1)
    data = _json([*_TRAIN, "--dp", "8", "--define", "y=t_lower * dp", "--given", "k=2"])
    assert Fraction(data["defined"]["y"]["exact"]) == 8 * Fraction(str(_run(dp=8).t_lower))


def test_train_refuses_an_unknown_name_in_one_line():
    err = _one_line_error([*_TRAIN, "--dp", "8", "--define", "x=nope"])
    assert "--define x" in err and "bubble_fraction" in err


def test_train_solves_for_dp():
    data = _json([*_TRAIN, "--dp", "1", "--equation", "t_math <= 10 s", "--unknown", "dp"])
    dp = int(data["defined"]["dp"]["exact"])
    assert _run(dp=dp).t_math <= 10
    # the valid dps divide the 1024 sequences of the batch: the one below is half
    assert _run(dp=dp // 2).t_math > 10


def test_train_solves_a_strict_relation_for_pp():
    data = _json([*_TRAIN, "--dp", "8", "--equation", "bubble_fraction < 0.05", "--unknown", "pp"])
    pp = int(data["defined"]["pp"]["exact"])
    m = 4194304 // (8 * 4096)
    assert Fraction(pp - 1, m + pp - 1) < Fraction(5, 100)
    nxt = next(p for p in range(pp + 1, 33) if 32 % p == 0)  # llama-3-8b: 32 layers
    assert Fraction(nxt - 1, m + nxt - 1) >= Fraction(5, 100)


def test_train_refuses_a_setting_with_another_unknown():
    err = _one_line_error(
        [*_TRAIN, "--equation", "t_math = x * 1 s", "--unknown", "dp", "--unknown", "x"]
    )
    assert "--unknown dp" in err


# -- a flag that does not apply is refused, never dropped ------------------------------------

_KERNEL = ["solve", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100"]


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--set", "B=3"], "--set"),
        (["--regime", "B -> oo"], "--regime"),
        (["--solve-for", "D"], "--solve-for"),
    ],
)
def test_kernel_refuses_what_does_not_apply(extra: list[str], flag: str):
    err = _one_line_error([*_KERNEL, *extra])
    assert err.startswith(f"error: {flag}: does not apply to a kernel")


@pytest.mark.parametrize(
    ("extra", "flag"),
    [(["--set", "B=3"], "--set"), (["--chip", "h100"], "--chip"), (["--dtype", "bf16"], "--dtype")],
)
def test_questions_alone_refuse_what_does_not_apply(extra: list[str], flag: str):
    err = _one_line_error(["solve", "--given", "x=1", "--define", "y=x", *extra])
    assert err.startswith(f"error: {flag}: does not apply to givens and equations alone")


@pytest.mark.parametrize(
    "extra", [["--compute", "fp8"], ["--peak", "1e15"], ["--bandwidth", "1e12"]]
)
def test_comms_only_refuses_compute_and_memory_flags(all_reduce: list[str], extra: list[str]):
    err = _one_line_error([*all_reduce, *extra])
    assert err.startswith(f"error: {extra[0]}: the operator only communicates")


def test_train_refuses_an_undeclared_flag():
    r = run_cli([*_TRAIN, "--bandwidth", "1e12"])
    assert r.code == 2 and r.err.count("\n") == 1


def test_a_quantity_not_derived_says_why():
    err = _one_line_error(["model", "llama-3-8b", "--chip", "h100", "--define", "x=min_devices"])
    assert "'min_devices' is not derived for this problem: needs a batch B and a context S" in err


# -- the same names in a problem set -----------------------------------------------------------


def test_a_sets_training_run_names_its_own_quantities(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(
        '[[problem]]\nid = "run"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        "train = { dp = 8, pp = 2, batch_tokens = 4194304, seq = 4096 }\n"
        'define = { x = "bubble_fraction * 100" }\nask = ["x"]\n'
    )
    m = 4194304 // (8 * 4096)
    percent = Fraction(2 - 1, m + 2 - 1) * 100
    argv = ["check", "--problem-set", str(path), "--problem", "run", "--quantity", "x"]
    r = run_cli([*argv, "--claim", str(float(percent)), "--format", "json"])
    assert r.code == 0 and json.loads(r.out)["verdict"] == "correct", r


def test_a_sets_comms_only_operator_names_t_comms(tmp_path: Path):
    from derive.pipeline import answer_set_questions
    from derive.problem.sets.problem_set import load_problem_set
    from derive.problem.sets.registry import set_registry

    (tmp_path / "ops.py").write_text(ALL_REDUCE)
    path = tmp_path / "set.toml"
    path.write_text(
        'operators = ["ops.py"]\n[[problem]]\nid = "ar"\noperator = "tp_all_reduce"\n'
        'dtype = "bf16"\nchip = "h100"\nset = { B = 8192, F = 8192, P = 8 }\n'
        'define = { sent = "bytes_sent", t = "t_comms" }\nask = ["sent"]\n'
    )
    pset = load_problem_set(path)
    answered = answer_set_questions(pset, set_registry(pset, trust=True))["ar"]
    sent = Fraction(2 * (8 - 1), 8) * 2 * 8192 * 8192  # a ring all-reduce of bf16 B×F
    assert answered.answer("sent").value == sent and answered.answer("sent").unit == "byte"
    assert answered.answer("t").unit == "s"


def test_an_equation_alone_names_another_problem(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(
        '[[problem]]\nid = "eq"\nequations = ["x * 1 ms = mm.t_lower"]\nunknowns = ["x"]\n\n'
        '[[problem]]\nid = "mm"\noperator = "matmul"\ndtype = "bf16"\nchip = "h100"\n'
        "set = { B = 4096, D = 8192, F = 8192 }\n"
    )
    t_math = Fraction(2 * 4096 * 8192 * 8192) / H100_BF16_PEAK
    t_mem = Fraction(2 * (4096 * 8192 + 8192 * 8192 + 4096 * 8192)) / H100_HBM
    x = max(t_math, t_mem) * 1000
    argv = ["check", "--problem-set", str(path), "--problem", "eq", "--quantity", "x"]
    r = run_cli([*argv, "--claim", str(float(x)), "--format", "json"])
    assert r.code == 0 and json.loads(r.out)["verdict"] == "correct", r


def test_set_takes_a_comma_list_as_users_write_it() -> None:
    """``--set B=8,S=1024`` is ``--set B=8 --set S=1024`` (it was refused: "dims are
    positive integers"), for an operator and for a model; a bad item is still named."""
    listed = _json(
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=64,D=4096,F=4096"]
    )
    apart = _json(
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100"]
        + ["--set", "B=64", "--set", "D=4096", "--set", "F=4096"]
    )
    assert listed == apart and Fraction(listed["t_lower"]) > 0
    model = _json(["model", "gpt2-small", "--chip", "h100", "--set", "B=8,S=1024"])
    assert model == _json(
        ["model", "gpt2-small", "--chip", "h100", "--set", "B=8", "--set", "S=1024"]
    )
    line = _one_line_error(
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=64,X=3"]
    )
    assert "--set X=3" in line and "no dim 'X'" in line


# -- every numeric flag reads ASCII digits only ---------------------------------------------


SOLVE = ["solve", "matmul", "--dtype", "bf16"]
CHIP = ["--chip", "tpu-v5e"]


@pytest.mark.parametrize("digits", ["١٦", "１６", "1_6"])
@pytest.mark.parametrize(
    "argv",
    [
        SOLVE + CHIP + ["--set", "B={}"],
        SOLVE + ["--peak", "{}e13", "--bandwidth", "1e12"],
        SOLVE + CHIP + ["--time-limit", "{}"],
        ["model", "llama-3-8b", "--chip", "h100", "--devices", "{}"],
        ["model", "llama-3-8b", "--chip", "h100", "--phase", "decode", "--measured-time", "{} ms"],
        ["check", "matmul", "--dtype", "bf16", *CHIP, "--quantity", "ridge", "--claim", "1"]
        + ["--rtol", "0.{}"],
        ["key", "--jobs", "{}", "x.toml"],
        ["serve", "--port", "{}"],
        ["serve", "--timeout", "{}"],
    ],
    ids=lambda a: " ".join(a[:6]) if isinstance(a, list) else a,
)
def test_every_numeric_flag_refuses_non_ascii_digits_and_underscores(
    argv, digits, tmp_path, monkeypatch
):
    if "serve" in argv:
        pytest.importorskip("starlette")
    monkeypatch.chdir(tmp_path)
    line = refused_in_one_line(run_cli([a.replace("{}", digits) for a in argv]))
    assert digits in line
