"""derive's LaTeX printer: sympy's ``LatexPrinter`` with fixed settings and one override.

The worked solutions, keys and appendices print every expression through ``tex``;
these examples pin the settings (no multiplication sign, whole fractions, large round
integers as ``a \\times 10^{k}``) and the substituted form ``tex_sub`` writes.
"""

from __future__ import annotations

import pytest
import sympy as sp

from derive.solution.notation import tex, tex_sub


def _examples() -> list[tuple[sp.Expr, str]]:
    B, D, F = sp.symbols("B D F", positive=True, integer=True)
    return [
        (
            79120 * D * F / (67 * D * F - 9890 * D - 19780 * F),
            r"\frac{79120 D F}{67 D F - 9890 D - 19780 F}",
        ),
        (
            sp.Rational(9, 16) * B * D + 2 * B * F + sp.Rational(9, 16) * D * F,
            r"\frac{9 B D}{16} + 2 B F + \frac{9 D F}{16}",
        ),
        (32768 * B + 3758096384, "32768 B + 3758096384"),
        (3 - 2 * B, "3 - 2 B"),
        (-B / 2 - 3000000, r"- \frac{B}{2} - 3 \times 10^{6}"),
        (B**12 / (D + 1), r"\frac{B^{12}}{D + 1}"),
        (B * (D + F) / (B + 10**6), r"\frac{B \left(D + F\right)}{B + 10^{6}}"),
    ]


@pytest.mark.parametrize("expr, want", _examples(), ids=str)
def test_examples(expr, want):
    """derive's settings on sympy's printer: no multiplication sign, large round integers as powers of ten."""
    assert tex(expr) == want


def test_other_settings():
    B, D = sp.symbols("B D", positive=True)
    e = 2 * B * D + 4096
    assert tex(e, mul_symbol="dot") == r"2 \cdot B \cdot D + 4096"
    assert tex(e, symbol_names={D: "4096"}, mul_symbol="dot") == r"2 \cdot B \cdot 4096 + 4096"


def test_numbers_written_in_place_of_symbols():
    B, D = sp.symbols("B D", positive=True)
    assert tex_sub(2 * B * D, {D: sp.Integer(4096)}) == r"2 \cdot B \cdot 4096"
    assert tex_sub(B + D, {D: sp.Rational(-3)}) == r"B + \left(-3\right)"


def test_the_printer_that_remembers_parts_prints_as_sympy_does():
    """``tex`` remembers each part it printed (a product, a power, a symbol) and reuses the
    text inside later expressions; that text must be sympy's own, in every context the part
    appears in (a numerator, a sum, a power's base, with a sign): a fresh printer with the
    same settings, which remembers nothing, prints the same for random expressions."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from sympy.printing.latex import LatexPrinter

    from derive.solution.notation import _SETTINGS, _int_tex, _printer

    class Fresh(LatexPrinter):
        def _print_Integer(self, expr):
            return _int_tex(int(expr))

    B, D, F = sp.symbols("B D F", positive=True, integer=True)
    w = sp.Symbol("w_X", positive=True)
    atoms = st.sampled_from([B, D, F, w, sp.Integer(2), sp.Rational(9, 16), sp.Integer(3000000)])

    def combine(children):
        return st.one_of(
            st.tuples(children, children).map(lambda p: p[0] * p[1]),
            st.tuples(children, children).map(lambda p: p[0] + p[1]),
            st.tuples(children, children).map(lambda p: p[0] / (p[1] + 1)),
            st.tuples(children, st.integers(-3, 3)).map(lambda p: p[0] ** p[1]),
            children.map(lambda e: -e),
        )

    exprs = st.recursive(atoms, combine, max_leaves=8)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(exprs, min_size=1, max_size=4))
    def check(batch):
        remembering = _printer((), None)
        for expr in batch:
            fresh = Fresh(dict(_SETTINGS, symbol_names={}, mul_symbol=None))
            assert remembering.doprint(expr) == fresh.doprint(expr), expr

    check()


def test_the_printers_memory_is_bounded(monkeypatch):
    """A long-lived printer (a class server's) does not keep every part it ever printed."""
    from derive.solution import notation

    monkeypatch.setattr(notation, "REMEMBERED", 8)
    printer = notation._Printer(dict(notation._SETTINGS, symbol_names={}))
    B = sp.Symbol("B", positive=True)
    for k in range(2, 40):
        assert printer.doprint(k * B + 1) == sp.latex(k * B + 1)
        assert len(printer._printed) <= 8
