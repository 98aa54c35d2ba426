"""Issue 27's remaining findings, one test each: N4, N5, N7, N8, N11 and the messages.

N4 a set's model-problem errors name the file, the problem and the key (not a CLI flag),
all at once; N5 publishing never follows a symlinked staging folder; N7 a negative count in
a model is refused; N8 every numeric flag refuses non-ASCII digits and ``_`` alike; N11 an
``ask`` repeated is refused; and the messages: ``-o afile``, long names and numbers, ``B²``,
``--operators /dev/zero``, ``-o ''``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from derive.commands.output_files import JOURNAL, recover
from derive.errors import MAX_WORD, DeclarationError

MODEL = 'model = "llama-3-8b"\nchip = "h100"\n'


def _one_line(r) -> str:
    assert r.code == 2 and r.out == "", r
    assert r.err.endswith("\n") and r.err.count("\n") == 1 and r.err.startswith("error: "), r
    return r.err


# ---- N4 -------------------------------------------------------------------------------------


@pytest.fixture
def model_set(tmp_path: Path) -> Path:
    problems = [
        ('id = "fine"', 'ask = ["params"]'),
        ('id = "m-mfu"', 'mfu = "1.5"\ntrain_tokens = "1e12"\nask = ["train_days"]'),
        ('id = "m-set"', 'set = { B = 0 }\nask = ["kv_bytes"]'),
    ]
    text = 'title = "t"\n' + "".join(
        f"[[problem]]\n{head}\n{MODEL}{tail}\n" for head, tail in problems
    )
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


def test_key_names_every_bad_model_problem_by_file_problem_and_key(model_set: Path, tmp_path):
    r = run_cli(["key", str(model_set), "-o", str(tmp_path / "out")])
    assert r.code == 2 and r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 2, r.err
    assert lines[0].startswith(f"error: {model_set}: problem 'm-mfu': key 'mfu' (1.5): ")
    assert lines[1].startswith(f"error: {model_set}: problem 'm-set': key 'set' (B=0): ")
    assert "--" not in r.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("problem", "quantity", "key"), [("m-mfu", "train_days", "mfu"), ("m-set", "kv_bytes", "set")]
)
def test_check_names_the_set_key_not_a_flag(model_set: Path, problem, quantity, key):
    argv = ["check", "--problem-set", str(model_set), "--problem", problem]
    line = _one_line(run_cli(argv + ["--quantity", quantity, "--claim", "3"]))
    assert f"problem {problem!r}: key {key!r}" in line and str(model_set) in line
    assert "--" not in line


# ---- N5 -------------------------------------------------------------------------------------


def test_a_symlinked_staging_folder_is_never_published_from(tmp_path: Path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "secret.md").write_text("not yours\n")
    staging = ".derive-staging-" + "a" * 16
    (out / staging).symlink_to(elsewhere)
    (out / JOURNAL).write_text(
        json.dumps({"staging": staging, "files": ["secret.md"], "stale": []})
    )
    recover(out)
    assert (elsewhere / "secret.md").read_text() == "not yours\n"  # not moved
    assert not os.path.lexists(out / "secret.md")
    assert not os.path.lexists(out / staging) and not os.path.lexists(out / JOURNAL)
    assert elsewhere.is_dir()  # the link was removed, never what it points to


# ---- N7 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("layers", ["-L", "L - 1", "0"])
def test_a_model_count_is_positive_for_every_dim(layers):
    import sympy as sp

    from derive import dims
    from derive.model.transformer import Transformer

    (L,) = dims("L")
    value = sp.sympify(layers, locals={"L": L}) if layers != "0" else 0  # test-written text
    with pytest.raises(DeclarationError, match="layers"):
        Transformer(name="x", layers=value, d_model=64, heads=4, d_ff=128, vocab=100)


# ---- N8 -------------------------------------------------------------------------------------

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
    line = _one_line(run_cli([a.replace("{}", digits) for a in argv]))
    assert digits in line


# ---- N11 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table",
    [
        'operator = "matmul"\ndtype = "bf16"\nchip = "h100"\nask = ["flops", "bytes", "flops"]',
        MODEL + 'ask = ["params", "params"]',
        'kernel = { flops = "1e12", bytes = "1e9" }\nchip = "h100"\nask = ["ridge", "ridge"]',
    ],
    ids=["operator", "model", "kernel"],
)
def test_a_quantity_asked_twice_is_refused(table, tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text(f'title = "t"\n[[problem]]\nid = "q"\n{table}\n')
    line = _one_line(run_cli(["key", str(path), "-o", str(tmp_path / "out")]))
    assert "problem 'q': key 'ask'" in line and "asked twice" in line


# ---- messages -------------------------------------------------------------------------------


def test_an_output_folder_that_is_a_file_says_so(tmp_path: Path):
    (tmp_path / "afile").write_text("x")
    line = _one_line(
        run_cli(["key", str(ROOT / "benchmarks" / "set20.toml"), "-o", str(tmp_path / "afile")])
    )
    assert "is a file, not a folder" in line and "not a regular file" not in line


def test_an_empty_output_name_writes_nothing(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "-o ''" in _one_line(run_cli(["key", "set.toml", "-o", ""]))
    argv = ["check", "--problem-set", "x.toml", "--answers", "a.csv", "-o", ""]
    assert "-o ''" in _one_line(run_cli(argv))
    assert list(tmp_path.iterdir()) == []


def test_long_names_and_numbers_are_not_echoed_in_full():
    for argv in (
        ["solve", "x" * 10_000],
        [*SOLVE, *CHIP, "--set", "B=" + "9" * 5_000],
        [*SOLVE, "--chip", "y" * 10_000],
    ):
        line = _one_line(run_cli(argv))
        assert len(line) < 2_000 and "characters)" in line
        assert max(len(word) for word in line.split()) <= MAX_WORD


def test_a_unicode_superscript_is_read_as_plain_text():
    r = run_cli(
        ["check", "matmul", "--dtype", "bf16", *CHIP, "--quantity", "flops"] + ["--claim", "B²"]
    )
    assert "read as plain text" in r.out and "found a brace" not in r.out


def test_operators_that_are_not_a_file_say_what_they_are():
    line = _one_line(run_cli([*SOLVE, *CHIP, "--operators", "/dev/zero"]))
    assert "/dev/zero" in line and "not a regular file" in line and "no such file" not in line
