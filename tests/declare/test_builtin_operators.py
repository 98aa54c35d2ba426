"""The built-in operator declarations in ``operators/``: names, shapes, FLOPs, bytes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import sympy as sp

from derive.declare.operator import Operator, Tensor, dims, width_symbol

OPERATORS_DIR = Path(__file__).resolve().parents[2] / "operators"
MODULES = ["attention.py", "elementwise.py", "matmul.py", "norms.py"]


def _load(path: Path) -> list[Operator]:
    spec = importlib.util.spec_from_file_location(f"_test_builtin_ops_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [v for v in vars(module).values() if isinstance(v, Operator)]


def _all_operators() -> list[Operator]:
    ops = []
    for path in sorted(OPERATORS_DIR.glob("*.py")):
        ops.extend(_load(path))
    return ops


OPS = {op.name: op for op in _all_operators()}

B, D, F, G, E, k, P, M, N = dims("B D F G E k P M N")
T, S, K, H = dims("T S K H")

# name -> (flops, reads, writes, comms); each tensor list is [(name, shape), ...]
EXPECTED = {
    "matmul": (2 * B * D * F, [("X", (B, D)), ("Y", (D, F))], [("Z", (B, F))], []),
    "matmul_per_example": (2 * B * D * F, [("X", (B, D)), ("Y", (B, D, F))], [("Z", (B, F))], []),
    "matmul_grouped": (2 * B * D * F, [("X", (B, D)), ("Y", (G, D, F))], [("Z", (B, F))], []),
    "moe_matmul": (2 * k * B * D * F, [("X", (B, D)), ("W", (E, D, F))], [("Y", (B, k, F))], []),
    "matmul_sharded": (
        2 * B * D * F / P,
        [("X", (B, D / P)), ("Y", (D / P, F))],
        [("Z", (B, F))],
        [("Z", (B, F))],
    ),
    "dot": (2 * N - 1, [("x", (N,)), ("y", (N,))], [("z", ())], []),
    "matvec": (2 * M * N, [("A", (M, N)), ("x", (N,))], [("y", (M,))], []),
    "vector_add": (N, [("x", (N,)), ("y", (N,))], [("z", (N,))], []),
    "relu": (N, [("x", (N,))], [("y", (N,))], []),
    "layernorm": (7 * B * D, [("x", (B, D)), ("gamma", (D,)), ("beta", (D,))], [("y", (B, D))], []),
    "attention": (
        4 * B * T * S * N * H,
        [("q", (B, T, N, H)), ("k", (B, S, K, H)), ("v", (B, S, K, H))],
        [("o", (B, T, N, H))],
        [],
    ),
    "attention_materialized": (
        4 * B * T * S * N * H,
        [
            ("q", (B, T, N, H)),
            ("k", (B, S, K, H)),
            ("v", (B, S, K, H)),
            ("s", (B, N, T, S)),
            ("p", (B, N, T, S)),
        ],
        [("s", (B, N, T, S)), ("p", (B, N, T, S)), ("o", (B, T, N, H))],
        [],
    ),
}


def _equal(a, b) -> bool:
    return sp.expand(sp.sympify(a) - sp.sympify(b)) == 0


def _check_tensors(got: tuple[Tensor, ...], want: list[tuple[str, tuple]], where: str) -> None:
    assert [t.name for t in got] == [n for n, _ in want], where
    for t, (name, shape) in zip(got, want):
        assert len(t.shape) == len(shape), f"{where} {name}"
        for a, b in zip(t.shape, shape):
            assert _equal(a, b), f"{where} {name}: {t.shape} != {shape}"
        assert t.width is None, f"{where} {name}: widths are bound by dtype, not declared"


def _widths(op: Operator, value: int) -> dict:
    return {width_symbol(n): value for n in op.tensor_names}


def test_expected_modules_exist():
    for name in MODULES:
        assert (OPERATORS_DIR / name).is_file(), name


@pytest.mark.parametrize("module", MODULES)
def test_each_module_has_docstring_and_operators(module):
    path = OPERATORS_DIR / module
    spec = importlib.util.spec_from_file_location(f"_test_builtin_doc_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (mod.__doc__ or "").strip(), module
    assert any(isinstance(v, Operator) for v in vars(mod).values()), module


def test_expected_names_exist():
    assert set(EXPECTED) <= set(OPS)


def test_names_unique_ignoring_case():
    names = [op.name.lower() for op in _all_operators()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_doc_is_one_nonempty_line(name):
    doc = OPS[name].doc
    assert doc.strip()
    assert "\n" not in doc
    assert "FLOPs" in doc


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_declaration_matches_contract(name):
    op = OPS[name]
    flops, reads, writes, comms = EXPECTED[name]
    assert _equal(op.flops, flops), f"{name} flops {op.flops} != {flops}"
    _check_tensors(op.reads, reads, f"{name} reads")
    _check_tensors(op.writes, writes, f"{name} writes")
    _check_tensors(op.comms, comms, f"{name} comms")


def test_matmul_bytes_bf16():
    op = OPS["matmul"]
    got = op.bytes_expr().subs(_widths(op, 2))
    assert _equal(got, 2 * B * D + 2 * D * F + 2 * B * F)


def test_dot_writes_a_scalar():
    op = OPS["dot"]
    assert op.writes[0].elements == 1
    assert _equal(op.bytes_expr().subs(_widths(op, 4)), 8 * N + 4)


def test_moe_reads_all_experts():
    op = OPS["moe_matmul"]
    got = op.bytes_expr().subs(_widths(op, 2))
    assert _equal(got, 2 * B * D + 2 * E * D * F + 2 * B * k * F)


def test_matmul_sharded_network_intensity():
    op = OPS["matmul_sharded"]
    w = _widths(op, 2)
    flops = op.flops.subs(P, 2)
    comm = op.comm_bytes_expr().subs(w).subs(P, 2)
    assert _equal(comm, 2 * B * F)
    assert sp.simplify(flops / comm - D / 2) == 0
    assert _equal(op.bytes_expr().subs(w), 2 * B * D / P + 2 * D * F / P + 2 * B * F)


def test_layernorm_bytes():
    op = OPS["layernorm"]
    assert _equal(op.bytes_expr().subs(_widths(op, 2)), 4 * B * D + 4 * D)


def test_attention_materialized_adds_score_traffic():
    fused, mat = OPS["attention"], OPS["attention_materialized"]
    extra = mat.bytes_expr().subs(_widths(mat, 2)) - fused.bytes_expr().subs(_widths(fused, 2))
    # s and p each written once and read once, 2 bytes each
    assert _equal(extra, 8 * B * N * T * S)
    assert _equal(fused.flops, mat.flops)


def test_layers_compose_the_registrys_own_operators(tmp_path, monkeypatch):
    """operators/layers.py builds on the other files; within one registry load each file
    runs once, so the layer's parts are the very operators the registry lists."""
    from derive.declare import registry
    from derive.declare.registry import builtin_operator_files, load_operator_file, load_registry

    monkeypatch.setattr(registry, "_pinned", None)  # an earlier test may have pinned the files

    reg = load_registry()
    block = reg.get("transformer_block")
    assert {p.operator.name: p.operator for p in block.parts}["matmul"] is reg.get("matmul")
    assert reg.get("layernorm") in [p.operator for p in block.parts]
    # outside a registry load a file runs afresh each time
    mm = next(p for p in builtin_operator_files() if p.name == "matmul.py")
    assert load_operator_file(mm).matmul is not load_operator_file(mm).matmul
    # one file named twice is loaded once, not reported as declaring its names twice
    f = tmp_path / "mine.py"
    f.write_text(
        "from derive import Operator, Tensor, dims\nN, = dims('N')\n"
        "mine = Operator(name='mine', flops=N, reads=[Tensor('X', (N,))], writes=[Tensor('Y', (N,))])\n"
    )
    assert load_registry((f, f), include_builtins=False).names() == ("mine",)


def test_the_names_read_from_each_builtin_file_are_those_it_declares():
    """A lazy registry finds a built-in's file by the names read from its source
    (``builtin_names``); they must be exactly the operators the file declares when run."""
    from derive.declare.registry import (
        _operators_in,
        _sharing,
        builtin_names,
        builtin_operator_files,
        load_operator_file,
    )

    with _sharing({}):
        for path in builtin_operator_files():
            declared = {op.name.lower() for op in _operators_in(load_operator_file(path))}
            assert builtin_names(path) == declared, path.name


def test_a_lazy_registry_is_the_whole_registry_loaded_when_asked(tmp_path):
    """``load_registry(lazy=True)`` runs a built-in file only for a name it declares, and
    otherwise answers as the registry loaded whole: the same operators in the same order,
    the same lookups, the same errors (a duplicate, an unknown name)."""
    from derive.declare.registry import load_registry
    from derive.errors import OperatorFileError, UnknownNameError

    eager = load_registry()
    lazy = load_registry(lazy=True)
    assert lazy.get("MatMul") == eager.get("matmul")
    assert not any(path.name == "layers.py" for path in lazy._modules)  # no composite built
    assert lazy.get("transformer_block") == eager.get("transformer_block")
    with pytest.raises(UnknownNameError) as want:
        eager.get("matmull")
    with pytest.raises(UnknownNameError) as got:
        load_registry(lazy=True).get("matmull")
    assert got.value.one_line() == want.value.one_line()
    assert load_registry(lazy=True).names() == eager.names()
    # a file of one's own: its operators after the built-ins; a built-in it binds again is
    # no duplicate; a different operator under a built-in's name is, said the same way
    mine = tmp_path / "mine.py"
    mine.write_text(
        "from derive import Operator, Tensor, dims\nfrom derive.registry import load_registry\nN, = dims('N')\n"
        "matvec = load_registry().get('matvec')\n"
        "mine = Operator(name='mine', flops=N, reads=[Tensor('X', (N,))], writes=[Tensor('Y', (N,))])\n"
    )
    both = load_registry((mine,), lazy=True)
    assert both.get("mine").name == "mine" and both.get("matvec").name == "matvec"
    assert both.names() == load_registry((mine,)).names()
    clash = tmp_path / "clash.py"
    clash.write_text(
        "from derive import Operator, Tensor, dims\nN, = dims('N')\n"
        "dot = Operator(name='Dot', flops=N, reads=[Tensor('X', (N,))], writes=[Tensor('Y', (N,))])\n"
    )
    with pytest.raises(OperatorFileError) as want:
        load_registry((clash,))
    with pytest.raises(OperatorFileError) as got:
        load_registry((clash,), lazy=True)
    assert got.value.one_line() == want.value.one_line()
