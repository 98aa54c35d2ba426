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
