"""Answering one problem's questions: givens read, equations solved exactly, definitions evaluated.

:func:`answer_questions` is one pure function from a problem's
:class:`~derive.problem.question_spec.QuestionSpec` and the quantities it may name to a
frozen :class:`~derive.questions.records.Questions`. In order:

1. **givens** are read (a number and its unit);
2. **equations** are read with the unknowns as symbols (an unknown that is a free dim of
   the problem is that dim; another takes the unit its equation needs) and solved with
   sympy for the unknowns. The positive real solution is taken and the others named; a
   piecewise quantity (``max(T_math, T_mem)``) is solved on each branch and the branch that
   binds at its own root is kept, and said. No solution or infinitely many is a verdict,
   not an error. A count (a free dim, or any unknown of an equation written with ``<``,
   ``<=``, ``>`` or ``>=``) is the integer next to the root on the side the relation holds,
   as crossovers do (past an integer root for a strict relation);
3. **definitions** are evaluated in the order their references need (a cycle is refused,
   naming it).

Every refusal is a one-line :class:`~derive.errors.ProblemError` naming the key (or flag)
and the entry.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import sympy as sp

from derive.errors import ProblemError
from derive.formula.limits import MAX_DEGREE, RejectError
from derive.formula.units import Measure, base_text
from derive.problem.question_spec import QuestionSpec
from derive.questions.read import NUMBER, Value, names_in, read_formula, split_equation
from derive.questions.records import Answer, Known, Questions, Role, Solving

_MAX_BRANCHES = 16
_POWERS = (1, -1, 2, -2, 3, -3)


def references_of(spec: QuestionSpec, ids: Mapping[str, str]) -> tuple[str, ...]:
    """The other problems a spec's formulas name (``id`` of ``id.quantity``), in order."""
    texts = [t for _, t in spec.define] + [side for e in spec.equations for side in _sides(e)]
    found = [n.partition(".")[0] for t in texts for n in names_in(t, ids) if "." in n]
    return tuple(dict.fromkeys(found))


def _sides(equation: str) -> tuple[str, ...]:
    """An equation's two sides (the whole text when it does not split: refused later)."""
    try:
        lhs, _, rhs = split_equation(equation)
    except RejectError:
        return (equation,)
    return lhs, rhs


def definition_order(spec: QuestionSpec) -> tuple[str, ...]:
    """The defined names in an order where each comes after the defined names it uses.

    Raises:
        ProblemError: a cycle of definitions, named ``a -> b -> a``.
    """
    formulas = dict(spec.define)
    uses = {name: [n for n in names_in(text) if n in formulas] for name, text in spec.define}

    def cycle(names: list[str]) -> ProblemError:
        return ProblemError(
            spec.label("define", names[0]), "a cycle of definitions: " + " -> ".join(names)
        )

    return tuple(ordered(formulas, uses, cycle))


def ordered(
    names: Iterable[str],
    uses: Mapping[str, Sequence[str]],
    cycle: Callable[[list[str]], Exception],
) -> list[str]:
    """``names`` in an order where each comes after those it ``uses``; a cycle raises
    ``cycle(path)``, the path from a name back to it (``a -> b -> a``)."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise cycle([*path[path.index(name) :], name])
        state[name] = 1
        for used in uses.get(name, ()):
            visit(used, [*path, name])
        state[name] = 2
        order.append(name)

    for name in names:
        visit(name, [])
    return order


def _read(
    spec: QuestionSpec,
    key: str,
    name: str,
    text: str,
    known: Mapping[str, Known],
    ids: Mapping[str, str],
) -> Value:
    try:
        return read_formula(text, known, ids)
    except RejectError as reject:
        raise ProblemError(spec.label(key, name or text), _why(reject.why, text, ids)) from None


_REFERENCE = re.compile(r"(?<![\w.-])([A-Za-z][\w-]*)\.([A-Za-z]\w*)")


def _why(why: str, text: str, ids: Mapping[str, str]) -> str:
    """The reader's reason, or, for a ``.`` it cannot read, what an ``<id>.<quantity>`` needs."""
    if "a number after a factor" in why and re.search(r"\$\s*\d", text):
        return "write the amount before its unit, as 5 $ (or 5 USD); a $ before a number reads as a factor"
    m = _REFERENCE.search(text)
    if m is None or "'.'" not in why or m.group(1) in ids:
        return why
    return (
        f"{m.group(0)!r} names no problem this one may use: {m.group(1)!r} is not the id of "
        f"another problem of the set (a problem's own quantity is named alone: {m.group(2)})"
    )


def _givens(spec: QuestionSpec, own: Mapping[str, Known]) -> list[Answer]:
    out = []
    for name, text in spec.given:
        if name in own:
            raise ProblemError(spec.label("given", name), f"{name!r} is already {own[name].origin}")
        v = _read(spec, "given", name, text, {}, {})
        if v.value.free_symbols:
            raise ProblemError(spec.label("given", name), "a given is a number with a unit")
        measure = Measure(v.measure.exponents, sp.Integer(1), base_text(v.measure.exponents))
        out.append(Answer(name, Role.GIVEN, text, v.shown, v.shown, v.value, measure))
    return out


def _unknown_symbols(spec: QuestionSpec, own: Mapping[str, Known]) -> dict[str, Known]:
    """Each unknown as a symbol: a free dim of the problem, or a new real symbol."""
    out = {}
    for name in spec.unknowns:
        found = own.get(name)
        if found is not None and found.origin == "a dim" and isinstance(found.value, sp.Symbol):
            out[name] = Known(name, found.value, NUMBER, "a dim")
        elif found is not None:
            raise ProblemError(
                spec.label("unknowns", name),
                f"{name!r} is {found.origin}, already known (an unknown is a new name or a free dim)",
            )
        else:
            out[name] = Known(name, sp.Symbol(name, real=True), NUMBER, "an unknown")
    return out


def _with_measure(k: Known, exps: tuple[int, ...]) -> Known:
    return Known(k.name, k.value, Measure(exps, sp.Integer(1), base_text(exps)), k.origin)


def _equation(
    spec: QuestionSpec,
    text: str,
    known: dict[str, Known],
    unknowns: dict[str, Known],
    ids: Mapping[str, str],
    read_as: str | None = None,
) -> tuple[sp.Expr, str]:
    """``lhs - rhs`` of one equation and its relation; infers an unknown's unit if it must.
    ``read_as``: the equation with defined names written out (errors still name ``text``)."""
    try:
        lhs_text, relation, rhs_text = split_equation(read_as or text)
    except RejectError as reject:
        raise ProblemError(spec.label("equations", text), reject.why) from None
    symbols = {u.value for u in unknowns.values()}
    table = {**known, **unknowns}
    lhs = _read(spec, "equations", text, lhs_text, table, ids)
    rhs = _read(spec, "equations", text, rhs_text, table, ids)
    if not (lhs.value.free_symbols | rhs.value.free_symbols) & symbols:
        raise ProblemError(
            spec.label("equations", text),
            f"names no unknown (unknowns: {', '.join(spec.unknowns)})",
        )
    if lhs.measure.exponents != rhs.measure.exponents:
        fixed = _infer((lhs_text, rhs_text), known, unknowns, ids, lhs, rhs)
        if fixed is None:
            raise ProblemError(
                spec.label("equations", text),
                f"units do not add up: the left side is {lhs.measure.describe()}, "
                f"the right side {rhs.measure.describe()}",
            )
        lhs, rhs = fixed
    return lhs.value - rhs.value, relation


def _infer(
    sides: tuple[str, str],
    known: dict[str, Known],
    unknowns: dict[str, Known],
    ids: Mapping[str, str],
    lhs: Value,
    rhs: Value,
) -> tuple[Value, Value] | None:
    """Give the one dimensionless new unknown of an equation the unit that balances it."""
    free = lhs.value.free_symbols | rhs.value.free_symbols
    open_ = [
        u
        for u in unknowns.values()
        if u.value in free and u.origin == "an unknown" and not any(u.measure.exponents)
    ]
    if len(open_) != 1:
        return None
    u = open_[0]
    gap = tuple(r - left for left, r in zip(lhs.measure.exponents, rhs.measure.exponents))
    for k in _POWERS:
        if any(g % k for g in gap):
            continue
        for sign in (1, -1):
            exps = tuple(sign * g // k for g in gap)
            trial = {**known, **unknowns, u.name: _with_measure(u, exps)}
            try:  # a unit that balances one term may unbalance a sum (X^2 + 3 X = 10 s^2)
                a = read_formula(sides[0], trial, ids)
                b = read_formula(sides[1], trial, ids)
            except RejectError:
                continue
            if a.measure.exponents == b.measure.exponents:
                unknowns[u.name] = _with_measure(u, exps)
                return a, b
    return None


def _branch_choices(
    exprs: list[sp.Expr], known: Mapping[str, Known], real: Mapping[sp.Basic, sp.Symbol]
) -> list[tuple[dict[sp.Basic, sp.Expr], str]]:
    """Every way to replace each Max/Min by one of its arguments, with a name for it."""
    atoms = sorted({a for e in exprs for a in e.atoms(sp.Max, sp.Min)}, key=sp.default_sort_key)
    if not atoms:
        return [({}, "")]
    names = {v.xreplace(real): n for k in known.values() for n, v in k.branches}
    options = [[(atom, arg) for arg in atom.args] for atom in atoms]
    return [
        (dict(combo), ", ".join(names.get(arg, str(arg)) for _, arg in combo))
        for combo in itertools.islice(itertools.product(*options), _MAX_BRANCHES)
    ]


def _binds(choice: dict[sp.Basic, sp.Expr], root: dict[sp.Symbol, sp.Expr]) -> bool:
    """True when, at the root, each chosen argument is the one its Max (Min) takes."""
    for atom, arg in choice.items():
        at = arg.xreplace(root)
        others = [o.xreplace(root) for o in atom.args]
        if not all(o.is_number for o in others):
            return False
        want = max(others) if isinstance(atom, sp.Max) else min(others)
        if sp.simplify(at - want) != 0:
            return False
    return True


def _solve(
    exprs: list[sp.Expr],
    symbols: list[sp.Symbol],
    known: Mapping[str, Known],
    real: Mapping[sp.Basic, sp.Symbol],
) -> tuple[list[dict[sp.Symbol, sp.Expr]], str, bool]:
    """All solutions (over the branches that bind), the branch label, whether infinitely many."""
    found: list[dict[sp.Symbol, sp.Expr]] = []
    label, infinite = "", False
    for choice, name in _branch_choices(exprs, known, real):
        system = [sp.together(e.xreplace(choice)) for e in exprs]
        try:
            solutions = _polynomial_roots(system, symbols)
            if solutions is None:
                solutions = sp.solve(system, symbols, dict=True)
        except NotImplementedError:
            continue
        for sol in solutions:
            if any(s not in sol or sol[s].free_symbols & set(symbols) for s in symbols):
                infinite = True
                continue
            if choice and not _binds(choice, sol):
                continue
            if sol not in found:
                found.append(sol)
                label = label or name
    return found, label, infinite


def _polynomial_roots(
    system: list[sp.Expr], symbols: list[sp.Symbol]
) -> list[dict[sp.Symbol, sp.Expr]] | None:
    """The real roots of one equation in one unknown whose numerator is a polynomial in it (any
    degree: radicals where sympy finds them, else ``CRootOf``, exact and printable to any
    precision), leaving out poles; None for anything else (``sp.solve`` takes it).

    ``sp.solve`` answered ``X^5 - X - 1 = 0`` and ``X^64 + X = 5`` with no root (issue 37).
    """
    if len(system) != 1 or len(symbols) != 1:
        return None
    (x,) = symbols
    numerator, denominator = sp.fraction(sp.together(system[0]))
    if not numerator.is_polynomial(x) or numerator.free_symbols - {x}:
        return None
    poly = sp.Poly(numerator, x)
    if poly.degree() > MAX_DEGREE:
        return None
    roots = dict.fromkeys(poly.real_roots())  # with multiplicity: each once, in order
    return [{x: root} for root in roots if denominator.xreplace({x: root}) != 0]


def root_equation(value: sp.Expr, name: str) -> tuple[sp.Expr, str] | None:
    """A root with no closed form (sympy's ``CRootOf``) as what a student can read: the
    polynomial in ``name`` it is a root of (``X^5 - X - 1``, equal to 0), and which of its real
    roots it is (``the real root``, ``the 2nd smallest of the 3 real roots``); None for any
    other value.

    >>> x = sp.Symbol("x")
    >>> root_equation(sp.CRootOf(x**5 - x - 1, 0), "X")
    (X**5 - X - 1, 'the real root')
    """
    if not isinstance(value, sp.CRootOf):
        return None
    poly = value.poly
    polynomial = poly.as_expr().xreplace({poly.gen: sp.Symbol(name, positive=True)})
    count = poly.count_roots()  # real roots: CRootOf numbers them first, from the smallest
    k = value.index + 1
    rank = (
        "smallest" if k == 1 else "largest" if k == count else f"{k}{_SUFFIX.get(k, 'th')} smallest"
    )
    return polynomial, "the real root" if count == 1 else f"the {rank} of the {count} real roots"


_SUFFIX = {2: "nd", 3: "rd"}


def root_text(value: sp.Expr, name: str, unit: str = "") -> str | None:
    """``1.1673, the real root of X^5 - X - 1 = 0`` for a root with no closed form, else None."""
    root = root_equation(value, name)
    if root is None:
        return None
    from derive.formula.decimals import fmt_decimal

    equation = str(root[0]).replace("**", "^")
    return f"{fmt_decimal(value)}{' ' * bool(unit)}{unit}, {root[1]} of {equation} = 0"


def _shown(value: sp.Expr, name: str = "x") -> str:
    """A root as text: exact, or its decimal and its equation when it is a ``CRootOf``."""
    return f"≈ {root_text(value, name)}" if isinstance(value, sp.CRootOf) else str(value)


def _eq(value: sp.Expr, name: object, exactly: str = "") -> str:
    """``= 7/2`` (``exactly``), or ``≈ 1.1673, the real root of X^5 - X - 1 = 0``."""
    return _shown(value, str(name)) if isinstance(value, sp.CRootOf) else f"= {value}{exactly}"


def _intervals(expr: sp.Expr, x: sp.Symbol, relation: str) -> str:
    """Where ``expr <= 0`` (``>= 0``) holds for positive ``x``, as intervals between its roots
    (each end exact, with its decimal), or "" when the numerator is not a polynomial in x."""
    roots = _polynomial_roots([expr], [x])
    if roots is None:
        return ""
    ends = [sp.Integer(0), *sorted(r[x] for r in roots if r[x] > 0)]
    wanted = (lambda v: v <= 0) if relation == "<=" else (lambda v: v >= 0)
    pieces = []
    for k, low in enumerate(ends):
        high = ends[k + 1] if k + 1 < len(ends) else None
        probe = (low + high) / 2 if high is not None else low + 1
        probe = sp.nsimplify(sp.N(probe, 30)) if probe.has(sp.CRootOf) else probe
        if bool(wanted(sp.N(expr.xreplace({x: probe}), 30))):
            end = f"{_shown(high, str(x))}]" if high is not None else "∞)"
            pieces.append(f"[{_shown(low, str(x))}, {end}" if k else f"(0, {end}")
    if not pieces:
        return f"it holds for no positive {x}"
    return f"it holds for {x} in " + " ∪ ".join(pieces)


def _positive(sol: dict[sp.Symbol, sp.Expr]) -> bool:
    return all(v.is_number and v.is_real and v > 0 for v in sol.values())


HOLDS: dict[str, Callable[[sp.Expr], bool]] = {
    "<=": lambda v: bool(v <= 0),
    ">=": lambda v: bool(v >= 0),
    "<": lambda v: bool(v < 0),
    ">": lambda v: bool(v > 0),
    "=": lambda v: bool(v == 0),
}
"""Whether ``lhs - rhs`` (a number) keeps each relation of an equation."""


def _count(
    symbol: sp.Symbol, root: sp.Expr, expr: sp.Expr, relation: str
) -> tuple[sp.Integer, str]:
    """The integer next to ``root`` on the side where ``expr`` (lhs - rhs) keeps its relation.

    A strict relation (``<``, ``>``) does not hold at an integer root: the count is the
    integer one step past it, on the side that holds.
    """
    low, high = sp.floor(root), sp.ceiling(root)
    if relation == "=":
        if low == high:
            return sp.Integer(low), ""
        return sp.Integer(high), (
            f"the smallest integer from the root up is {symbol} = {high} "
            f"(the largest below it, {low}; write <= or >= to choose the side that holds)"
        )

    def holds(n: sp.Expr) -> bool:
        return HOLDS[relation](expr.xreplace({symbol: n}))

    if low == high and holds(low):
        return sp.Integer(low), ""
    if low == high:
        low, high = low - 1, high + 1
    if holds(low) and not holds(high):
        return sp.Integer(low), f"the largest integer that keeps it is {symbol} = {low}"
    return sp.Integer(high), f"the smallest integer that keeps it is {symbol} = {high}"


def _contradiction_or_identities(
    spec: QuestionSpec, read: list[tuple[sp.Expr, str]], unknowns: Mapping[str, Known]
) -> Solving | list[bool]:
    """An equation whose unknowns cancel (``X = X + 1``, ``X = X``) is a contradiction, whose
    verdict is "no solution", or an identity, left out (True in the list); issue 37."""
    symbols = {u.value for u in unknowns.values()}
    identities = []
    for text, (expr, relation) in zip(spec.equations, read):
        if expr.free_symbols & symbols or not expr.is_number:
            identities.append(False)
            continue
        holds = expr == 0 if relation == "=" else HOLDS[relation](expr)
        if not holds:
            note = f"{text} never holds: its unknowns cancel, leaving {expr} {relation} 0"
            return Solving(spec.equations, "no solution", note)
        identities.append(True)
    return identities


def _expanded(text: str, formulas: Mapping[str, str]) -> str:
    """``text`` with each defined name that uses an unknown written out as its formula, in
    parentheses (``peak = 989.4e12 FLOP/s`` with ``peak = units*flops_per_clock*clock``
    reads as ``(units*flops_per_clock*clock) = 989.4e12 FLOP/s``): the equation is then
    solved for the unknown inside, through the same reader. Definitions are acyclic."""
    for _ in range(len(formulas) + 1):
        changed = text
        for name, formula in formulas.items():
            written = f"({formula})"  # by a function: a LaTeX formula's backslashes stay

            def write(_: re.Match[str], written: str = written) -> str:
                return written

            changed = re.sub(rf"(?<![\w.$]){re.escape(name)}(?![\w]|\.[A-Za-z])", write, changed)
        if changed == text:
            return text
        text = changed
    return text


def _solve_unknowns(
    spec: QuestionSpec,
    known: dict[str, Known],
    ids: Mapping[str, str],
    through: Mapping[str, str] = {},
) -> tuple[dict[str, Known], list[Answer], Solving]:
    """Solve the equations for the unknowns; ``through``: the defined names that use an
    unknown, by their formulas, which an equation may name."""
    unknowns = _unknown_symbols(spec, known)
    read = [
        _equation(spec, text, known, unknowns, ids, _expanded(text, through))
        for text in spec.equations
    ]
    settled = _contradiction_or_identities(spec, read, unknowns)
    if isinstance(settled, Solving):
        return known, [], settled
    read = [r for r, identity in zip(read, settled) if not identity]
    if not read:  # every equation holds whatever the unknowns are
        note = f"{'; '.join(spec.equations)} holds for every value of {', '.join(spec.unknowns)}"
        return known, [], Solving(spec.equations, "infinitely many solutions", note)
    exprs = [e for e, _ in read]
    used = set().union(*(e.free_symbols for e in exprs))
    for name, u in unknowns.items():
        if u.value not in used:
            why = "appears in no equation"
            if any(settled):
                why += " but ones that hold for every value of it (any value solves them)"
            raise ProblemError(spec.label("unknowns", name), why)
    real = {u.value: sp.Symbol(u.name, real=True) for u in unknowns.values()}
    system = [e.xreplace(real) for e in exprs]
    symbols = [real[u.value] for u in unknowns.values()]
    solutions, branch, infinite = _solve(system, symbols, known, real)
    if not solutions:
        verdict = "infinitely many solutions" if infinite else "no solution"
        return known, [], Solving(spec.equations, verdict)
    positive = [s for s in solutions if _positive(s)]
    if not positive:
        shown = "; ".join(", ".join(f"{k} = {v}" for k, v in s.items()) for s in solutions)
        raise ProblemError(
            spec.label("unknowns", spec.unknowns[0]),
            f"no positive real solution ({shown}); a size, a time or a count must be positive",
        )
    chosen = positive[0]
    others = [s for s in solutions if s is not chosen]
    notes = []
    if branch:
        notes.append(f"solved on the branch {branch}, the one that binds at its root")
    if others:
        notes.append(
            "other roots, left out: "
            + "; ".join(", ".join(f"{k} {_eq(v, k)}" for k, v in s.items()) for s in others)
        )
    answers, solved = [], dict(known)
    relation = next((rel for _, rel in read if rel != "="), "=")
    for name, u in unknowns.items():
        root = chosen[real[u.value]]
        value, note = root, ""
        count = u.origin == "a dim" or relation != "="
        if count:
            expr = exprs[0].xreplace(
                {v.value: chosen[real[v.value]] for v in unknowns.values() if v is not u}
            )
            value, note = _count(u.value, root, expr, relation)
            if note:
                note = f"{name} {_eq(root, name, ' exactly')}; as a count, {note}"
            if relation != "=" and len(unknowns) == 1:
                held = _intervals(expr.xreplace(real), real[u.value], relation)
                note = "; ".join(n for n in (note, held) if n)
        measure = u.measure
        answers.append(
            Answer(
                name,
                Role.UNKNOWN,
                "; ".join(spec.equations),
                root,
                root,
                value,
                measure,
                "; ".join([*([note] if note else []), *notes]),
                count,
            )
        )
        solved[name] = Known(name, value, measure, "an unknown")
    substitution = {u.value: solved[n].value for n, u in unknowns.items()}
    solved = {
        n: Known(k.name, k.value.xreplace(substitution), k.measure, k.origin, k.branches)
        if isinstance(k.value, sp.Expr)
        else k
        for n, k in solved.items()
    }
    return solved, answers, Solving(spec.equations, "solved", "; ".join(notes))


def answer_questions(
    spec: QuestionSpec,
    own: Mapping[str, Known],
    others: Mapping[str, Mapping[str, Known]] = {},
    problem: str = "",
) -> Questions:
    """Read a problem's givens, solve its equations and evaluate its definitions.

    Args:
        spec: what the problem gives, defines and asks to solve.
        own: the problem's dims and quantities by name (:mod:`derive.questions.quantities`).
        others: the quantities of the other problems of the set it names, by id.
        problem: the problem's id.

    Raises:
        ProblemError: one line naming the key and entry: unknown names, cycles, units that
            do not add up, an equation with no unknown, an unknown in no equation, no
            positive solution where one is needed.
    """
    ids = {pid: pid for pid in others}
    givens = _givens(spec, own)
    known: dict[str, Known] = dict(own)
    for pid, table in others.items():
        for name, k in table.items():
            known[f"{pid}.{name}"] = Known(
                f"{pid}.{name}", k.value, k.measure, f"a quantity of problem {pid!r}", k.branches
            )
    for g in givens:
        known[g.name] = Known(g.name, g.value, g.measure, "a given")
    for name, _ in spec.define:
        if name in own:
            raise ProblemError(
                spec.label("define", name), f"{name!r} is already {own[name].origin}"
            )
    order = definition_order(spec)
    formulas = dict(spec.define)
    after = _after_unknowns(spec, order, ids)
    defined: dict[str, Answer] = {}
    for name in (n for n in order if n not in after):  # an equation may name these
        defined[name] = _define(spec, name, formulas[name], known, ids)
    solving: Solving | None = None
    unknown_answers: list[Answer] = []
    if spec.equations:
        through = {name: formulas[name] for name in order if name in after}
        known, unknown_answers, solving = _solve_unknowns(spec, known, ids, through)
    for name in (n for n in order if n in after):
        defined[name] = _define(spec, name, formulas[name], known, ids)
    shown = {str(s) for a in defined.values() for s in a.formula.free_symbols}
    used = tuple(known[n] for n in sorted(shown) if n in known)
    answers = (*givens, *unknown_answers, *(defined[n] for n in order))
    return Questions(problem, answers, solving, used, spec.labels)


def _after_unknowns(spec: QuestionSpec, order: tuple[str, ...], ids: Mapping[str, str]) -> set[str]:
    """The defined names that use an unknown, directly or through another defined name:
    evaluated after the equations are solved (the others before, so equations may name them)."""
    after: set[str] = set()
    formulas = dict(spec.define)
    for name in order:
        used = names_in(formulas[name], ids)
        if any(n in spec.unknowns or n in after for n in used):
            after.add(name)
    return after


def _define(
    spec: QuestionSpec, name: str, text: str, known: dict[str, Known], ids: Mapping[str, str]
) -> Answer:
    """One defined quantity, read over ``known``; added to ``known`` for the names after it."""
    v = _read(spec, "define", name, text, known, ids)
    measure = Measure(v.measure.exponents, sp.Integer(1), base_text(v.measure.exponents))
    value = sp.nsimplify(v.value) if v.value.is_Float else v.value
    known[name] = Known(name, value, measure, "a defined quantity")
    return Answer(name, Role.DEFINED, text, v.shown, v.shown, value, measure)
