"""Models as data in a problem set (issue 24, item 2): ``[[model]]`` tables, and a Python
file that declares only models accepted by ``operators`` (trusted)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli

SET = """title = "models as data"

[[model]]
name = "tiny-moe"
dims = ["L"]
layers = "2*L"
d_model = 64
heads = 4
kv_heads = 2
d_ff = 32
vocab = 100
experts = 4
top_k = 1
shared_experts = 1
window = 16

[[problem]]
id = "moe"
model = "tiny-moe"
set = { L = 3, B = 1, S = 100 }
ask = ["params", "params_active", "kv_bytes"]
"""


def _key(tmp_path: Path, text: str, *flags: str):
    path = tmp_path / "set.toml"
    path.write_text(text)
    out = tmp_path / "out"
    return run_cli(["key", str(path), "-o", str(out), "--jobs", "1", "--quiet", *flags]), out


def test_a_model_table_is_derived_like_a_declared_model(tmp_path):
    result, out = _key(tmp_path, SET)
    assert result.code == 0, result.err
    text = (out / "set.md").read_text()
    L, d, h, kv, dh, f, V, E = 6, 64, 4, 2, 16, 32, 100, 4
    attention = d * h * dh + 2 * d * kv * dh + h * dh * d
    block = attention + E * 3 * d * f + 3 * d * f + d * E + 2 * d  # routed, shared, router, norms
    params = L * block + 2 * V * d + d
    active = params - L * (E - 1) * 3 * d * f
    kv_bytes = L * 2 * kv * dh * 2 * 16  # every layer windowed: 16 of the 100 positions
    assert f"$P$ = {params}" in text and f"$P_{{\\mathrm{{act}}}}$ = {active}" in text
    assert f"$M_{{\\mathrm{{kv}}}}$ = {kv_bytes}" in text


def test_a_bad_model_table_is_one_line(tmp_path):
    for bad, fragment in (
        (SET.replace("top_k = 1", "top_k = 1\nspeed = 3"), "'speed'"),
        (SET.replace('layers = "2*L"', 'layers = "__import__(1)"'), "layers"),
        (SET.replace("heads = 4", "heads = -4"), "heads"),
        (SET.replace('name = "tiny-moe"', 'name = "a b"'), "name"),
    ):
        result, _ = _key(tmp_path, bad)
        assert result.code == 2 and result.err.count("\n") == 1 and fragment in result.err, (
            fragment,
            result.err,
        )


MODELS_ONLY = """from derive import Transformer

tiny = Transformer(name="tiny-py", layers=2, d_model=32, heads=4, d_ff=64, vocab=50)
"""


def test_a_python_file_of_models_only_is_accepted_by_operators(tmp_path):
    (tmp_path / "models.py").write_text(MODELS_ONLY)
    text = """title = "py models"
operators = ["models.py"]

[[problem]]
id = "tiny"
model = "tiny-py"
ask = ["params"]
"""
    result, out = _key(tmp_path, text, "--trust")
    assert result.code == 0, result.err
    params = 2 * (4 * 32 * 32 + 3 * 32 * 64 + 2 * 32) + 2 * 50 * 32 + 32
    assert f"$P$ = {params}" in (out / "set.md").read_text()
