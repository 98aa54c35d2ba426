"""A problem's givens, defined quantities and solved unknowns, shown: Markdown, LaTeX, JSON.

Each derived quantity is one worked line, *symbolic = numbers = result*, with units:
``cost = price · devices · train_seconds = (2.49 $/h) · 1024 · (1.9e6 s) = 1.3e6 $``.
The JSON object is ``{"given": …, "defined": {name: {exact, value, unit, formula}},
"equations": …}`` (``defined`` holds the defined quantities and the unknowns: a contract).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

import sympy as sp

from derive.catalogue import ProblemKind, find
from derive.formula.decimals import fmt_decimal, fmt_ending_decimal
from derive.formula.durations import TimeUnit, time_tex, time_text
from derive.formula.limits import RejectError
from derive.formula.units import base_text
from derive.present.escape import md_escape, tex_escape
from derive.present.formats import Document
from derive.present.tex_layout import tex_break_sum, tex_is_wide
from derive.questions.read import display_symbol, names_in, split_equation
from derive.questions.records import Answer, Known, Questions, Role
from derive.questions.solve import root_equation
from derive.solution.notation import tex, tex_text_number

_TYPED = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(.*?)\s*$")
_SHORT = 24


def _name_tex(name: str) -> str:
    if "." in name:
        pid, _, quantity = name.partition(".")
        return rf"{_name_tex(quantity)}^{{(\text{{{tex_escape(pid, code=False)}}})}}"
    if len(name) == 1:
        return name
    head, _, tail = name.partition("_")
    if len(head) == 1 and tail and "_" not in tail:
        return rf"{head}_{{\mathrm{{{tail}}}}}"
    return rf"\mathrm{{{tex_escape(name, code=False)}}}"


def _unit_tex(unit: str) -> str:
    """A unit after a number; ``$`` is written USD (a dollar sign would end Markdown math)."""
    return rf"\ \text{{{tex_escape(unit.replace('$', 'USD'), code=False)}}}" if unit else ""


def _number_tex(value: sp.Expr) -> str:
    """An exact number shown short: in full when its decimal ends soon, else rounded; a
    value that keeps a free dim is its formula."""
    if not value.is_number:
        return tex(value)
    if value.is_Rational:
        ending = fmt_ending_decimal(value)
        if ending is not None and len(ending) <= 12:
            return tex_text_number(ending)
    return tex_text_number(fmt_decimal(value))


def _result_forms(value: sp.Expr, unit: str) -> tuple[list[str], str]:
    """The exact result and its rounded decimal (``""`` when the exact one is a decimal)."""
    if not value.is_number:
        return [f"{tex(value)}{_unit_tex(unit)}"], ""
    seconds = unit == TimeUnit.S.text  # a time: the exact seconds, then the reading of a person
    rounded = time_tex(value) if seconds else tex_text_number(fmt_decimal(value)) + _unit_tex(unit)
    ending = fmt_ending_decimal(value) if value.is_Rational else None
    if ending is not None and len(ending) <= 12:
        exact = f"{tex_text_number(ending)}{_unit_tex(unit)}"
        return [exact], rounded if seconds and rounded != exact else ""
    if len(str(value)) <= _SHORT:
        return [tex(value) + (_unit_tex(unit) if seconds else "")], rounded
    return [], rounded


def _value_tex(answer: Answer) -> str:
    """A worked answer inside a later one's numbers: a time as a person reads it (``50.71 ms``)."""
    if answer.unit == TimeUnit.S.text and answer.value.is_number:
        return time_tex(answer.value)
    return _number_tex(answer.value) + _unit_tex(answer.unit)


def _given_tex(answer: Answer) -> str:
    m = _TYPED.match(answer.text)
    if m is not None:
        return tex_text_number(m.group(1)) + _unit_tex(m.group(2).strip())
    return _number_tex(answer.value) + _unit_tex(answer.unit)


def _known_tex(k: Known) -> str:
    if not k.value.is_number:
        return tex(k.value)
    if k.measure.factor == 1 and k.measure.text == TimeUnit.S.text:
        return time_tex(k.value)
    return _number_tex(k.value / k.measure.factor) + _unit_tex(k.measure.text)


def _symbol_names(q: Questions, numbers: bool) -> dict[sp.Symbol, str]:
    """Each name's symbol -> its LaTeX name, or its value with its unit (the numbers line)."""
    names: dict[sp.Symbol, str] = {}
    for k in q.used:
        names[display_symbol(k.name)] = _known_tex(k) if numbers else _name_tex(k.name)
    for a in q.answers:
        shown = _given_tex(a) if a.role is Role.GIVEN else _value_tex(a)
        names[display_symbol(a.name)] = shown if numbers else _name_tex(a.name)
    if numbers:
        names = {
            s: (v if re.fullmatch(r"[0-9]+", v) else rf"\left({v}\right)") for s, v in names.items()
        }
    for answer in q.answers:
        for s in answer.formula.free_symbols:
            if isinstance(s, sp.Symbol) and s.name.startswith("unit:"):
                names[s] = rf"\text{{{tex_escape(s.name[5:], code=False)}}}"
    return names


def _forms(q: Questions, a: Answer) -> tuple[str, list[str], str, str]:
    """``(name, [formula, numbers, exact], rounded, then)`` of one worked line, in LaTeX.

    ``then`` is an unknown's count (``B = 7368``) when it differs from the exact root.
    """
    lhs = _name_tex(a.name)
    if a.role is Role.GIVEN:
        return lhs, [_given_tex(a)], "", ""
    if a.role is Role.UNKNOWN:
        root = root_equation(a.formula, a.name)  # no closed form: its equation, not CRootOf
        if root is not None:
            rounded = tex_text_number(fmt_decimal(a.formula)) + _unit_tex(a.unit)
            return lhs, [], rf"{rounded},\ \text{{{root[1]} of }} {tex(root[0])} = 0", ""
        exact, rounded = _result_forms(a.formula, a.unit)
        then = f"{lhs} = {tex(a.value)}" if a.value != a.formula else ""
        return lhs, exact, rounded, then
    formula = tex(a.formula, _symbol_names(q, False), mul_symbol="dot")
    numbers = tex(a.formula, _symbol_names(q, True), mul_symbol="dot")
    exact, rounded = _result_forms(a.value, a.unit)
    return lhs, [formula, numbers, *exact], rounded, ""


def _worked(q: Questions, a: Answer) -> tuple[str, str]:
    """One worked line as Markdown and as LaTeX (:func:`_line`, :func:`_align`)."""
    forms = _forms(q, a)
    return _line(*forms), _align(*forms)


def _line(lhs: str, forms: list[str], rounded: str, then: str) -> str:
    """``name = formula = numbers = result`` on one line (Markdown, inline givens)."""
    line = " = ".join([lhs, *forms]) + (f" \\approx {rounded}" if rounded else "")
    return line + (rf" \quad\Rightarrow\quad {then}" if then else "")


def _align(lhs: str, forms: list[str], rounded: str, then: str) -> str:
    """The same in ``align*``, one form a line, long sums broken (fits a two-column paper)."""
    rows = [f"&= {tex_break_sum(f)}" for f in forms]
    if rounded:
        rows.append(f"&\\approx {rounded}")
    if tex_is_wide(lhs):  # a long name gets a line of its own, as the worked solutions do
        rows.insert(0, f"&\\phantom{{=}}\\ {lhs}")
    else:
        rows[0] = f"{lhs} {rows[0]}"
    if then:
        rows.append(f"&\\Rightarrow {then}")
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


def _sentence(note: str) -> str:
    """``note`` as a sentence: its first letter capitalised unless it opens with a symbol
    (``d = …`` stays ``d``, not ``D``: another symbol).

    >>> _sentence("found by bisection"), _sentence("d = 5 exactly")
    ('Found by bisection', 'd = 5 exactly')
    """
    words = note.split(" ", 2)
    if len(words) > 1 and words[1] in ("=", "≈", "<", ">", "<=", ">="):
        return note
    return note[0].upper() + note[1:]


def _why(a: Answer) -> str:
    if a.role is Role.UNKNOWN:
        return f"Solved exactly from {a.text}." + (f" {_sentence(a.note)}." if a.note else "")
    if a.role is Role.DEFINED:
        unit = f" The unit follows from the formula: {a.unit}." if a.unit else " A pure number."
        return f"Defined as {a.text}.{unit}"
    return ""


def _solving_text(q: Questions) -> str:
    s = q.solving
    if s is None:
        return ""
    text = "Equations: " + "; ".join(s.equations) + f". Verdict: {s.verdict}."
    return text + (f" {_sentence(s.note)}." if s.note and s.verdict != "solved" else "")


def questions_document(q: Questions, level: int = 3) -> Document:
    """The givens and each derived quantity (a section of a worked solution, heading
    ``level``): templates ``answered``, and :func:`questions_json`."""
    givens = [a for a in q.answers if a.role is Role.GIVEN]
    context = {
        "level": level,
        "givens": [
            (_name_tex(a.name), _given_tex(a), _number_tex(a.value) + _unit_tex(a.unit))
            for a in givens
        ],
        "solving": _solving_text(q),
        "derived": [(*_worked(q, a), _why(a)) for a in q.derived],
    }
    return Document("answered", context, data=lambda: questions_json(q))


def value_text(a: Answer) -> str:
    """``1.3e6 $``: a rounded value and its unit, for tables (display only)."""
    if not a.value.is_number:
        return str(a.value)
    if a.unit == TimeUnit.S.text:
        return time_text(a.value)
    return f"{fmt_decimal(a.value)} {a.unit}".rstrip()


def _asked(q: Questions, asked: tuple[str, ...]) -> tuple[str, ...]:
    """The derived names an ``ask`` names; none named means every one is asked."""
    return tuple(name for name in asked if q.answer(name) is not None)


def _glance_value(a: Answer) -> str:
    """A value at a glance in math mode: a time in its reading (``50.71\\ \\text{ms}``), a
    number rounded (``1.1102 \\times 10^{7}\\ \\text{USD}``), a formula as LaTeX."""
    if not a.value.is_number:
        return f"{tex(a.value)}{_unit_tex(a.unit)}"
    if a.unit == TimeUnit.S.text:
        return time_tex(a.value)
    return f"{_number_tex(a.value)}{_unit_tex(a.unit)}"


def glance(q: Questions, asked: tuple[str, ...] = ()) -> tuple[str, str]:
    """The answers at a glance on one line, for Markdown and for LaTeX: each derived name
    and its value in math (``$\\mathrm{cost} = 1.1102 \\times 10^{7}\\ \\text{USD}$``), or
    the equations' verdict in words when they have no one solution."""
    asked = _asked(q, asked)
    shown = [a for a in q.derived if not asked or a.name in asked]
    if q.solving is not None and q.solving.verdict != "solved":
        return md_escape(q.solving.verdict), tex_escape(q.solving.verdict)
    line = "; ".join(f"${_name_tex(a.name)} = {_glance_value(a)}$" for a in shown)
    return line, line


def glance_answers(answers: Sequence[Answer], kind: ProblemKind) -> tuple[str, str]:
    """Answers at a glance (a set's budget or what-if), each by its catalogue symbol when it
    has one: ``$N = 6.9282 \\times 10^{10}$``, for Markdown and for LaTeX."""

    def symbol(name: str) -> str:
        row = find(name)
        symbol = row.latex_in(kind) if row is not None else ""
        return symbol or _name_tex(name)

    line = "; ".join(f"${symbol(a.name)} = {_glance_value(a)}$" for a in answers)
    return line, line


def questions_given(q: Questions) -> str:
    """What the question sheet says is given (values, equations), without any answer."""
    parts = [f"{a.name} = {a.text}" for a in q.answers if a.role is Role.GIVEN]
    if q.solving is not None:
        parts.append("equations: " + "; ".join(q.solving.equations))
    return "; ".join(parts)


def _sides(equation: str) -> str:
    """An equation's two sides as one expression, so its names can be listed."""
    try:
        lhs, _, rhs = split_equation(equation)
    except RejectError:
        return equation
    return f"({lhs}) + ({rhs})"


def ask_label(q: Questions, a: Answer) -> str:
    """How the sheet asks for a defined quantity or an unknown: the set's label, else its
    name and what it measures (``cost_per_million, a cost ($)``); never its formula."""

    label = dict(q.labels).get(a.name)
    if label:
        return label
    row = find(a.name)
    if row is not None:
        return f"{row.prose} ({a.name}), {a.measure.describe()}"
    return f"{a.name}, {a.measure.describe()}"


def questions_asks(q: Questions, asked: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What the question sheet asks: each derived quantity by its label, without its value
    or its method (the formula of a definition stays in the key).

    An unknown's equations are the problem's statement, so they stay (with the givens they
    use, for a sheet whose problem has no table of givens); a definition's formula is the
    method, so it is withheld.
    """
    givens = {a.name: a for a in q.answers if a.role is Role.GIVEN}
    out = []
    asked = _asked(q, asked)
    for a in q.derived:
        if asked and a.name not in asked:
            continue
        if a.role is Role.UNKNOWN:
            used = [
                g
                for g in givens.values()
                if any(g.name in names_in(_sides(t)) for t in a.text.split("; "))
            ]
            where = ", where " + ", ".join(f"{g.name} = {g.text}" for g in used) if used else ""
            out.append(f"{ask_label(q, a)}, from {a.text}{where}")
        else:  # the givens are the problem's Given line; which ones it uses is the method
            out.append(ask_label(q, a))
    return tuple(out)


def _json_value(a: Answer) -> dict[str, object]:
    value = a.value
    number = float(value) if value.is_number else None
    if value.is_Integer:
        number = int(value)
    formula = a.text  # as typed: a defined quantity's formula, an unknown's equations
    return {
        "exact": str(value),
        "value": number,
        "unit": base_text(a.measure.exponents),
        "formula": formula,
        **({"note": a.note} if a.note else {}),
    }


def questions_json(q: Questions) -> dict[str, object]:
    """``{"given", "defined", "equations"}``: the JSON of a problem's questions."""
    return {
        "given": {a.name: _json_value(a) for a in q.answers if a.role is Role.GIVEN},
        "defined": {a.name: _json_value(a) for a in q.derived},
        "equations": None
        if q.solving is None
        else {
            "equations": list(q.solving.equations),
            "verdict": q.solving.verdict,
            "note": q.solving.note or None,
        },
    }


def with_questions(document: Document, questions: Questions | None, level: int = 3) -> Document:
    """A report with a problem's questions after it (a section of heading ``level``), its
    JSON keys the report's."""
    if questions is None:
        return document
    return replace(
        document, sections=(*document.sections, ("", questions_document(questions, level)))
    )
