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
   not an error. A count (a free dim, or any unknown of an equation written with ``<=`` or
   ``>=``) is the integer next to the root on the side the relation holds, as crossovers do;
3. **definitions** are evaluated in the order their references need (a cycle is refused,
   naming it).

Every refusal is a one-line :class:`~derive.errors.ProblemError` naming the key (or flag)
and the entry.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import sympy as sp

from derive.errors import ProblemError
from derive.formula.limits import RejectError
from derive.formula.units import Measure, base_text
from derive.problem.question_spec import QuestionSpec
from derive.questions.read import NUMBER, Value, names_in, read_formula, split_equation
from derive.questions.records import Answer, Known, Questions, Role, Solving

__all__ = ["answer_questions", "definition_order", "references_of"]

_MAX_BRANCHES = 16
_POWERS = (1, -1, 2, -2, 3, -3)


def references_of(spec: QuestionSpec, ids: Mapping[str, str]) -> tuple[str, ...]:
    """The other problems a spec's formulas name (``id`` of ``id.quantity``), in order."""
    texts = [t for _, t in spec.define] + list(spec.equations)
    found = [n.partition(".")[0] for t in texts for n in names_in(t, ids) if "." in n]
    return tuple(dict.fromkeys(found))


def definition_order(spec: QuestionSpec) -> tuple[str, ...]:
    """The defined names in an order where each comes after the defined names it uses.

    Raises:
        ProblemError: a cycle of definitions, named ``a -> b -> a``.
    """
    formulas = dict(spec.define)
    uses = {name: [n for n in names_in(text) if n in formulas] for name, text in spec.define}
    order: list[str] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = path[path.index(name) :] + [name]
            raise ProblemError(
                spec.label("define", name), "a cycle of definitions: " + " -> ".join(cycle)
            )
        state[name] = 1
        for used in uses[name]:
            visit(used, [*path, name])
        state[name] = 2
        order.append(name)

    for name, _ in spec.define:
        visit(name, [])
    return tuple(order)


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
        raise ProblemError(spec.label(key, name or text), reject.why) from None


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
) -> tuple[sp.Expr, str]:
    """``lhs - rhs`` of one equation and its relation; infers an unknown's unit if it must."""
    try:
        lhs_text, relation, rhs_text = split_equation(text)
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
        fixed = _infer(spec, text, (lhs_text, rhs_text), known, unknowns, ids, lhs, rhs)
        if fixed is None:
            raise ProblemError(
                spec.label("equations", text),
                f"units do not add up: the left side is {lhs.measure.describe()}, "
                f"the right side {rhs.measure.describe()}",
            )
        lhs, rhs = fixed
    return lhs.value - rhs.value, relation


def _infer(
    spec: QuestionSpec,
    text: str,
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
            a = read_formula(sides[0], trial, ids)
            b = read_formula(sides[1], trial, ids)
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
    out = []
    for combo in itertools.islice(itertools.product(*options), _MAX_BRANCHES):
        label = ", ".join(names.get(arg, str(arg)) for _, arg in combo)
        out.append(({atom: arg for atom, arg in combo}, label))
    return out


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


def _positive(sol: dict[sp.Symbol, sp.Expr]) -> bool:
    return all(v.is_number and v.is_real and v > 0 for v in sol.values())


def _count(
    symbol: sp.Symbol, root: sp.Expr, expr: sp.Expr, relation: str
) -> tuple[sp.Integer, str]:
    """The integer next to ``root`` on the side where ``expr`` (lhs - rhs) keeps its relation."""
    low, high = sp.floor(root), sp.ceiling(root)
    if low == high:
        return sp.Integer(low), ""

    def holds(n: sp.Integer) -> bool:
        v = expr.xreplace({symbol: n})
        return bool(v <= 0) if relation == "<=" else bool(v >= 0)

    if relation in ("<=", ">=") and holds(low) and not holds(high):
        return sp.Integer(low), f"the largest integer that keeps it is {symbol} = {low}"
    if relation in ("<=", ">="):
        return sp.Integer(high), f"the smallest integer that keeps it is {symbol} = {high}"
    return sp.Integer(high), (
        f"the smallest integer from the root up is {symbol} = {high} "
        f"(the largest below it, {low}; write <= or >= to choose the side that holds)"
    )


def _solve_unknowns(
    spec: QuestionSpec, known: dict[str, Known], ids: Mapping[str, str]
) -> tuple[dict[str, Known], list[Answer], Solving]:
    unknowns = _unknown_symbols(spec, known)
    read = [_equation(spec, text, known, unknowns, ids) for text in spec.equations]
    exprs = [e for e, _ in read]
    used = set().union(*(e.free_symbols for e in exprs))
    for name, u in unknowns.items():
        if u.value not in used:
            raise ProblemError(spec.label("unknowns", name), "appears in no equation")
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
            + "; ".join(", ".join(f"{k} = {v}" for k, v in s.items()) for s in others)
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
                note = f"{name} = {root} exactly; as a count, {note}"
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
    solving: Solving | None = None
    unknown_answers: list[Answer] = []
    if spec.equations:
        known, unknown_answers, solving = _solve_unknowns(spec, known, ids)
    defined = []
    formulas = dict(spec.define)
    for name in definition_order(spec):
        v = _read(spec, "define", name, formulas[name], known, ids)
        measure = Measure(v.measure.exponents, sp.Integer(1), base_text(v.measure.exponents))
        value = sp.nsimplify(v.value) if v.value.is_Float else v.value
        defined.append(Answer(name, Role.DEFINED, formulas[name], v.shown, v.shown, value, measure))
        known[name] = Known(name, value, measure, "a defined quantity")
    shown = {str(s) for a in defined for s in a.formula.free_symbols}
    used = tuple(known[n] for n in sorted(shown) if n in known)
    answers = (*givens, *unknown_answers, *defined)
    return Questions(problem, answers, solving, used, spec.labels)
