"""The safe formula reader: what it accepts, what it refuses, and how fast it refuses."""

from __future__ import annotations

import time

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.errors import LimitError, ParseError
from derive.formula.reader import SYNTAXES, Parsed, parse_formula, split_relations

B, D, F = sp.symbols("B D F", positive=True, integer=True)
d_model = sp.Symbol("d_model", positive=True, integer=True)
I_sym = sp.Symbol("I")
SYMBOLS = {"B": B, "D": D, "F": F}
WITH_MODEL = {**SYMBOLS, "d_model": d_model}
HALF = sp.Rational(1, 2)

# -- accepted ---------------------------------------------------------------

EQUIVALENT = [
    (r"\frac{2BDF}{2BD+DF+2BF}", 2 * B * D * F / (2 * B * D + D * F + 2 * B * F)),
    (r"\dfrac{2BDF}{2BD + 0.5DF + 2BF}", 2 * B * D * F / (2 * B * D + HALF * D * F + 2 * B * F)),
    (r"\tfrac{B}{D}", B / D),
    (r"\frac12", HALF),
    (r"2 \cdot B \cdot D", 2 * B * D),
    (r"2 \times B", 2 * B),
    (r"\left( B + D \right)^{2}", (B + D) ** 2),
    (r"\left[ B + D \right] F", (B + D) * F),
    (r"3.94 \times 10^{14}", sp.Integer(394000000000000)),
    (r"10^{-3}", sp.Rational(1, 1000)),
    (r"2\,B\;D\:F\!\ \quad", 2 * B * D * F),
    (r"{B + D}^2", (B + D) ** 2),
    (r"\frac{\frac{1}{2}}{B}", HALF / B),
    (r"\frac{2BDF}{0.5DF}", 4 * B),
    ("0.5DF", D * F * HALF),
    (".5B", B * HALF),
    ("2*B*D*F/(B*D + D*F + B*F)", 2 * B * D * F / (B * D + D * F + B * F)),
    ("2BDF", 2 * B * D * F),
    ("2 B D F", 2 * B * D * F),
    ("2(B+D)", 2 * (B + D)),
    ("(B+D)(D+F)", (B + D) * (D + F)),
    ("3.94e14", sp.Integer(394000000000000)),
    ("8.2E11", sp.Integer(820000000000)),
    ("B^2", B**2),
    ("B**2", B**2),
    ("B^2D", B**2 * D),
    ("2^3^2", sp.Integer(512)),
    ("2^-1", HALF),
    ("B^0.5", sp.sqrt(B)),
    ("(BD)^{1/2} (2+7)^{1/2}", 3 * sp.sqrt(B * D)),
    (r"\left(\frac{B}{D}\right)^{-1/2}", sp.sqrt(D / B)),
    ("-B + D", D - B),
    ("B - -D", B + D),
    ("2 * -B", -2 * B),
    ("D*F/2", D * F * HALF),
    ("2BDF/0.5BDF", sp.Integer(4)),  # juxtaposition binds tighter than /
    ("B/2D", B / (2 * D)),
    ("2\u00b7B\u00d7D", 2 * B * D),
    ("B \u22c5 D \u2212 F", B * D - F),
    ("\tB + D", B + D),
]


@pytest.mark.parametrize("text,expected", EQUIVALENT)
def test_equivalent(text: str, expected: sp.Expr) -> None:
    assert sp.cancel(parse_formula(text, SYMBOLS).expr - expected) == 0


@pytest.mark.parametrize(
    "text",
    [
        r"d_{model}",
        "d_model",
        r"\mathrm{d_{model}}",
        r"\text{d_model}",
        r"d_{\text{model}}",
        r"\mathrm{d}_{\mathrm{model}}",
    ],
)
def test_subscripted_name(text: str) -> None:
    assert parse_formula(text, WITH_MODEL).expr == d_model


def test_letters_before_a_subscripted_name() -> None:
    assert parse_formula("2Bd_model", WITH_MODEL).expr == 2 * B * d_model


def test_multi_letter_key_wins_over_letters() -> None:
    BD = sp.Symbol("BD")
    assert parse_formula("BD", {**SYMBOLS, "BD": BD}).expr == BD


def test_quantity_name() -> None:
    assert parse_formula("2I", {**SYMBOLS, "I": I_sym}).expr == 2 * I_sym


def test_exact_numbers() -> None:
    expr = parse_formula("1.97e14/8.2e11", SYMBOLS).expr
    assert expr == sp.Rational(9850, 41)


@pytest.mark.parametrize(
    "text,syntax,decided",
    [
        (r"\frac{B}{D}", "auto", "auto: read as LaTeX (found a backslash)"),
        ("B^{2}", "auto", "auto: read as LaTeX (found a brace)"),
        ("B/D", "auto", "auto: read as plain text (no backslash or brace)"),
        ("B/D", "latex", "latex: as requested"),
        ("B/D", "plain", "plain: as requested"),
    ],
)
def test_syntax_choice(text: str, syntax: str, decided: str) -> None:
    parsed = parse_formula(text, SYMBOLS, syntax=syntax)
    assert isinstance(parsed, Parsed)
    assert parsed.decided == decided
    assert parsed.syntax == ("latex" if "LaTeX" in decided or syntax == "latex" else "plain")
    assert set(SYNTAXES) == {"auto", "latex", "plain"}


def test_plain_syntax_refuses_latex() -> None:
    with pytest.raises(ParseError, match="plain text"):
        parse_formula(r"\frac{B}{D}", SYMBOLS, syntax="plain")


def test_unknown_syntax() -> None:
    with pytest.raises(ParseError, match="unknown syntax"):
        parse_formula("B", SYMBOLS, syntax="tex")


# -- refused: the hostile sample, by category ------------------------------

HOSTILE = {
    "code injection": [
        "__import__('os').system('touch canary')",
        "B.__class__.__mro__",
        "B.__class__.__new__.__globals__",
        r"\immediate\write18{touch canary}",
        r"\input{/etc/passwd}",
        r"\include{x}",
        r"\def\x{B}\x",
        r"\catcode`\@=11",
        "open('canary', 'w')",
        'exec("import os")',
        "B; import os",
        "B[0]",
        "lambda: 0",
        "B if D else F",
        "$B$",
        r"\begin{verbatim}B\end{verbatim}",
        r"B % comment",
        "B & D",
    ],
    "resource": [
        "10**10**10",
        r"10^{10^{10}}",
        "(((9**64)**64)**64)**64",
        "2^(2^(2^(2^10)))",
        "(((2^10)^10)^10)^10",
        "B^100",
        "(B+D)^65",
        "((B^8)^8)^2",
        "(" * 400 + "B" + ")" * 400,
        "{" * 400 + "B" + "}" * 400,
        r"\frac{" * 60 + "B" + "}{2}" * 60,
        "+".join(["B"] * 100_000),
        "B+" * 400 + "B",
        "1" * 5000,
        "1" * 41,
        "1e99",
        "2^(1/1000)",
        "-" * 600 + "B",
        "1^" * 60 + "1",
    ],
    "malformed": [
        r"\frac{2BDF}{2BD+2DF",
        "x +",
        r"\frac{B}{}",
        r"\frac{B}",
        "()",
        "2**",
        "B D +",
        "(B + D",
        "B + D)",
        r"\left( B \right]",
        r"\left B",
        "B_",
        "2 3",
        "2.",
        "B/*D",
        "",
        "   ",
        r"\frac1\frac12",
        r"B [D]",
    ],
    "control": [
        "B\x00D",
        "B\u202eD",
        "B\u2066D",
        "B\u200bD",
        "B\ufeffD",
        "B\nD",
        "B\x1b[31mD",
        "\x7f",
    ],
    "not an expression": [
        "1 < B < 3",
        "B == D",
        "B = D",
        "B <= D",
        "B != D",
        r"B \le D",
        r"B \approx D",
        "B \u2264 D",
        "B ~ D",
    ],
    "unknown symbol": [r"\frac{2BDQ}{2BD}", "Q", "x", "model", "d_model", r"\mathrm{BD}", "B_1"],
    "fractional exponent of a sum": [
        "(B+D)^(1/2)",
        "((B^64/9-2+9-B)^-1)^(1/2)",
        r"\left(\frac{B}{B+D}\right)^{0.5}",
    ],
    "not real": ["(-1)^(1/2)", "(-8)^0.5", "(1-2)^(1/3)"],
    "division by zero": ["B/0", r"\frac{1}{0}", "B/(D-D)", "0^-1", r"\frac{B}{0.0}", "1/(0*B)"],
}
HOSTILE_CASES = [(category, text) for category, texts in HOSTILE.items() for text in texts]


@pytest.mark.parametrize("category,text", HOSTILE_CASES)
def test_hostile_input_is_refused_fast(category: str, text: str) -> None:
    start = time.monotonic()
    with pytest.raises(ParseError) as caught:
        parse_formula(text, SYMBOLS)
    assert time.monotonic() - start < 5  # generous: it must not hang
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message
    assert message.isprintable()
    assert message.startswith("claim ")


@pytest.mark.parametrize(
    "text,fragment",
    [
        (r"\input{/etc/passwd}", r"unsupported LaTeX construct '\input' at position 1"),
        (r"\immediate\write18{touch canary}", r"unsupported LaTeX construct '\immediate'"),
        (
            r"\log{B}",
            r"unsupported LaTeX construct '\log' at position 1 (allowed: \frac, \sqrt, \cdot",
        ),
        ("B.__class__", "unexpected character '.' at position 2"),
        (r"\frac{2BDF}{2BD+2DF", "at position 20"),
        ("x +", "at position 4"),
        (r"\frac{B}{}", "at position 9"),
        ("B D +", "at position 6"),
        ("B\x00D", r"control character '\x00' at position 2"),
        ("B\u202eD", r"'\u202e' (RIGHT-TO-LEFT OVERRIDE) at position 2"),
        ("1 < B < 3", "not an expression: a relation '<' at position 3"),
        ("B == D", "not an expression: a relation '=='"),
        (
            r"\frac{2BDQ}{2BD}",
            "unknown symbol 'Q' in 'BDQ' at position 8 (the problem's dims are B, D, F)",
        ),
        ("B/0", "division by zero at position 2"),
        (r"\frac{1}{0}", "division by zero"),
        ("2^B", "symbolic exponent"),
    ],
)
def test_messages(text: str, fragment: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_formula(text, SYMBOLS)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "10**10**10",
        r"10^{10^{10}}",
        "(((9**64)**64)**64)**64",
        "2^(2^(2^(2^10)))",
        "(" * 400 + "B" + ")" * 400,
        "1" * 5000,
        "B+" * 1500 + "B",
    ],
)
def test_limits_raise_limit_error(text: str) -> None:
    with pytest.raises(LimitError):
        parse_formula(text, SYMBOLS)


def test_raw_control_character_never_in_message() -> None:
    with pytest.raises(ParseError) as caught:
        parse_formula("B\u202eD", SYMBOLS)
    assert "\u202e" not in str(caught.value)


def test_what_names_the_input() -> None:
    with pytest.raises(ParseError) as caught:
        parse_formula("Q", SYMBOLS, what="step 3")
    assert caught.value.what == "step 3 'Q'"


def test_within_limits_is_accepted() -> None:
    assert parse_formula("10^400", SYMBOLS).expr == sp.Integer(10) ** 400
    assert parse_formula("(B+D)^64", SYMBOLS).expr == (B + D) ** 64
    assert parse_formula("(" * 49 + "B" + ")" * 49, SYMBOLS).expr == B


INJECTIONS = HOSTILE["code injection"] + ["__import__('os').system('touch canary')#"]


@pytest.mark.parametrize("text", INJECTIONS)
@pytest.mark.parametrize("syntax", ["auto", "latex", "plain"])
def test_canary(text: str, syntax: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParseError):
        parse_formula(text, SYMBOLS, syntax=syntax)
    assert not (tmp_path / "canary").exists()
    assert list(tmp_path.iterdir()) == []


# -- split_relations ------------------------------------------------------------


def test_split_chain() -> None:
    line = r"I = \frac{2BDF}{2BD+0.5DF+2BF} \approx \frac{2BDF}{0.5DF} = 4B"
    assert split_relations(line) == (
        ["I", r"\frac{2BDF}{2BD+0.5DF+2BF}", r"\frac{2BDF}{0.5DF}", "4B"],
        ["=", "approx", "="],
    )


@pytest.mark.parametrize(
    "line,sides,relations",
    [
        ("I = 2B", ["I", "2B"], ["="]),
        ("I ~ 2B", ["I", "2B"], ["approx"]),
        ("I \u2248 2B", ["I", "2B"], ["approx"]),
        (r"I \simeq 2B \sim B", ["I", "2B", "B"], ["approx", "approx"]),
        ("2B", ["2B"], []),
        ("f(B = D) = 1", ["f(B = D)", "1"], ["="]),
        (r"\frac{B=1}{D} = 2", [r"\frac{B=1}{D}", "2"], ["="]),
        (r"\{ = B", [r"\{", "B"], ["="]),
    ],
)
def test_split_relations(line: str, sides: list[str], relations: list[str]) -> None:
    assert split_relations(line) == (sides, relations)


@pytest.mark.parametrize(
    "line",
    [
        "1 < B < 3",
        "B == D",
        "B <= D",
        "B >= D",
        "B != D",
        r"B \le D",
        r"\frac{B}{D \leq 2}",
        "B > D",
        "B \u2260 D",
        r"B \not= D",
        r"B \neq D",
        "B \u226a D",
    ],
)
def test_split_refuses_order_relations(line: str) -> None:
    with pytest.raises(ParseError, match="not an expression: a relation"):
        split_relations(line)


@pytest.mark.parametrize("line", ["= B", "B =", "B = = D", "B \x00= D", "B" * 3000])
def test_split_refuses_bad_lines(line: str) -> None:
    with pytest.raises(ParseError) as caught:
        split_relations(line, what="line 4")
    assert caught.value.what.startswith("line 4 ")


def test_split_then_parse() -> None:
    sides, _ = split_relations(r"I = \frac{2BDF}{2BD+0.5DF+2BF} \approx \frac{2BDF}{0.5DF} = 4B")
    exprs = [parse_formula(s, {**SYMBOLS, "I": I_sym}).expr for s in sides]
    assert exprs[2] == exprs[3] == 4 * B


@given(
    st.integers(-(10**20), 10**20),
    st.integers(0, 80),
    st.integers(0, 80),
)
@settings(max_examples=300, deadline=None)
def test_ending_decimals_are_exact(numerator, twos, fives):
    """A rational whose decimal ends prints exactly: in full (fmt_exact_decimal) and short
    (fmt_ending_decimal); both read back as the same number."""
    from fractions import Fraction

    from derive.formula.decimals import fmt_ending_decimal, fmt_exact_decimal

    value = sp.Rational(numerator, 2**twos * 5**fives)
    full, short = fmt_exact_decimal(value), fmt_ending_decimal(value)
    assert short is not None and "e" not in full
    assert Fraction(full) == Fraction(short) == Fraction(int(value.p), int(value.q))
    assert fmt_ending_decimal(sp.Rational(3 * numerator + 1, 3)) is None
