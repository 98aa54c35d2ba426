"""What a question sheet leaves out of free text: every clause that states an answer.

A question sheet prints an operator's doc (what it computes, how its FLOPs are counted)
above "Find: the FLOPs"; a doc that goes on to say "FLOPs 2BDF" gives the answer away.
:func:`withhold` drops each clause of a text (split at its top-level ``;`` and at sentence
ends) that states one of the problem's derived quantities:

- a formula equal to one of them, read with derive's own formula reader (never evaluated):
  ``2BDF`` or ``2·B·D·F`` for the FLOPs of a matmul, ``2BDF/P`` for a sharded one; a lone
  name (``B``) or a small number (``2``) says nothing by itself and is not read as one;
- or the quantity's name followed by its value: ``FLOPs N`` for an elementwise add.

:func:`operator_sheet_doc` applies it to an operator's doc with every count the analysis
derives (FLOPs, bytes, intensities, exact and with the bound dims); the worked solution
keeps the whole doc.

>>> import sympy as sp
>>> B, D, F = sp.symbols("B D F", positive=True, integer=True)
>>> withhold("Z = X·Y; 2 FLOPs per multiply-accumulate; FLOPs 2BDF.",
...          {"FLOPs": (2 * B * D * F,)}, {"B": B, "D": D, "F": F})
'Z = X·Y; 2 FLOPs per multiply-accumulate.'
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.catalogue import table as q
from derive.errors import DeriveError

if TYPE_CHECKING:
    from derive.analysis.comms_only import CommsAnalysis


# A word that may be (part of) a formula: names, digits and the signs derive's reader takes.
_FORMULA_WORD = re.compile(r"^[A-Za-z0-9_.^*/+·×⋅−\-()]+$")
_EDGE = ",:()."  # punctuation around a word that is the sentence's, not the formula's
_LONGEST = 7  # words in one formula ("2 B D F / P" at most, in practice)


@lru_cache(maxsize=256)
def _clauses(text: str) -> tuple[tuple[str, str], ...]:
    """``(clause, separator)`` pairs: split at ``;`` and sentence ends outside brackets
    (remembered: every problem of an operator splits its doc again)."""
    out: list[tuple[str, str]] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        end = depth == 0 and ch in ";." and (i + 1 == len(text) or text[i + 1] == " ")
        if end:
            j = i + 1
            while j < len(text) and text[j] == " ":
                j += 1
            out.append((text[start:i], text[i:j]))
            start = i = j
            continue
        i += 1
    if start < len(text):
        out.append((text[start:], ""))
    return tuple(out)


def _telling(expr: sp.Expr) -> bool:
    """Whether an expression says something by itself: not a lone name or a small count."""
    if isinstance(expr, sp.Symbol):
        return False
    return not (expr.is_Integer and abs(int(expr)) < 100)


# Large distinct primes the two sides are probed at before their difference is cancelled:
# sides that are different numbers there are not equal, with no polynomial arithmetic (most
# pairs are not equal). A name's prime follows from its spelling alone (no state shared
# between calls or threads); two names on one prime only send more pairs on to ``cancel``,
# which decides every pair the probe does not tell apart.
_PROBES = tuple(Fraction(p) for p in sp.primerange(1009, 4000))


def probe_point(symbol: sp.Symbol) -> Fraction:
    """The prime ``symbol`` takes in the probe."""
    return _PROBES[zlib.crc32(symbol.name.encode()) % len(_PROBES)]


@lru_cache(maxsize=8192)
def at_probe(expr: sp.Expr) -> Fraction | None:
    """``expr`` at the probe point, in exact Fractions (None: not a rational function of
    its names there, or a denominator vanishes)."""
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if isinstance(expr, sp.Symbol):
        return probe_point(expr)
    if expr.is_Add or expr.is_Mul:
        values = [at_probe(arg) for arg in expr.args]
        if any(v is None for v in values):
            return None
        out = Fraction(0) if expr.is_Add else Fraction(1)
        for v in values:
            out = out + v if expr.is_Add else out * v  # type: ignore[operator]
        return out
    if expr.is_Pow and expr.exp.is_Integer and abs(int(expr.exp)) <= 64:  # no huge powers
        base = at_probe(expr.base)
        if base is None or (base == 0 and expr.exp < 0):
            return None
        return base ** int(expr.exp)
    return None


@lru_cache(maxsize=8192)
def _equal(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether two rational functions are equal: exact, by ``cancel``, after a probe at
    distinct primes has not already told them apart (same answer, most pairs far faster)."""
    if a == b:
        return True
    va, vb = at_probe(a), at_probe(b)
    if va is not None and vb is not None and va != vb:
        return False
    return bool(sp.cancel(a - b) == 0)


@lru_cache(maxsize=8192)
def _parsed(text: str, names: tuple[tuple[str, sp.Symbol], ...]) -> sp.Expr | None:
    from derive.formula.reader import parse_formula

    try:
        return parse_formula(text, dict(names), syntax="plain").expr
    except DeriveError:
        return None


_SIGNS = re.compile(r"[0-9.^*/+·×⋅−\-()]+")


def _of_names(word: str, names: Mapping[str, sp.Symbol]) -> bool:
    """Whether a word could be part of a formula over ``names``: between its digits and
    signs, each run of letters is a name or names of one letter side by side (``2BDF``);
    prose (``multiply``, ``and``) is never handed to the reader."""
    return all(
        run in names or all(letter in names for letter in run) for run in _SIGNS.split(word) if run
    )


def _read(words: list[str], names: Mapping[str, sp.Symbol]) -> sp.Expr | None:
    """The words read as one formula over ``names`` (None: they are not one); a doc's
    clauses recur across a set's problems, so readings are remembered."""
    return _parsed(" ".join(words), tuple(sorted(names.items())))


def _states(
    clause: str, stated: Mapping[str, tuple[sp.Expr, ...]], names: Mapping[str, sp.Symbol]
) -> bool:
    """Whether a clause states a value of ``stated`` (quantity name → its values)."""
    words = [w.strip(_EDGE) for w in clause.split()]
    for i in range(len(words)):
        for j in range(i + 1, min(len(words), i + _LONGEST) + 1):
            if not _FORMULA_WORD.match(words[j - 1]) or not _of_names(words[j - 1], names):
                break
            expr = _read(words[i:j], names)
            if expr is None:
                continue
            said = [name for name, vs in stated.items() if any(_equal(expr, v) for v in vs)]
            if not said:
                continue
            if _telling(expr) or _named(words[:i], said):
                return True
    return False


def _named(before: list[str], said: list[str]) -> bool:
    """Whether the words before a value name its quantity: ``FLOPs N``, ``I = B``."""
    if before and before[-1] in ("=", "≈"):
        before = before[:-1]
    return bool(before) and before[-1].lower() in {name.lower() for name in said}


def withhold(
    text: str, stated: Mapping[str, Iterable[sp.Expr]], names: Mapping[str, sp.Symbol]
) -> str:
    """``text`` without the clauses that state a value of ``stated`` (a quantity's name as
    a text calls it → its values), formulas read over ``names``; it ends with a full stop."""
    values = {name: tuple(vs) for name, vs in stated.items()}
    kept = [(c, sep) for c, sep in _clauses(text) if c.strip() and not _states(c, values, names)]
    if not kept:
        return ""
    body = "".join(c + sep for c, sep in kept[:-1]) + kept[-1][0]
    return body.rstrip(" ;") + "."


def operator_sheet_doc(analysis: Analysis) -> str:
    """An operator's doc for a question sheet: without the clauses that state a count the
    analysis derives (its FLOPs, bytes or intensity, exact or at the bound dims)."""
    operator = analysis.problem.operator
    if not operator.doc:
        return ""
    rooflines = [r for r in (analysis.memory, analysis.network) if r is not None]
    stated: dict[str, tuple[sp.Expr, ...]] = {
        q.FLOPS.plain: (operator.flops, analysis.flops, analysis.flops_bound),
        q.BYTES.plain: (
            operator.bytes_expr(),
            *(r.bytes for r in rooflines),
            *(r.bytes_bound for r in rooflines),
        ),
    }
    stated[q.INTENSITY.prose] = stated[q.INTENSITY.plain] = tuple(
        v
        for v in (
            *(r.intensity for r in rooflines),
            analysis.intensity_regime,
            analysis.intensity_bound,
            analysis.intensity_regime_bound,
        )
        if v is not None
    )
    symbols = set(operator.dims) | operator.bytes_expr().free_symbols
    names = {s.name: s for s in symbols if isinstance(s, sp.Symbol)}
    return withhold(operator.doc, stated, names)


def comms_sheet_doc(analysis: CommsAnalysis) -> str:
    """A comms-only operator's doc for a question sheet: without the clauses that state the
    bytes a device sends (per collective or in all) or the time on the link."""
    operator = analysis.problem.operator
    if not operator.doc:
        return ""
    sent = (analysis.sent, *(c.sent for c in analysis.collectives))
    stated: dict[str, tuple[sp.Expr, ...]] = {
        q.BYTES.plain: sent,
        "sends": sent,
        q.T_COMMS.plain: (analysis.time, analysis.link_time),
    }
    symbols = set(operator.dims).union(*(v.free_symbols for vs in stated.values() for v in vs))
    names = {s.name: s for s in symbols if isinstance(s, sp.Symbol)}
    return withhold(operator.doc, stated, names)
