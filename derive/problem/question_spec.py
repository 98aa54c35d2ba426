"""The questions a problem asks around its quantities (the keys and flags are a contract).

Any problem (operator, kernel, model, serving, or none of these) may carry:

- ``given = { price = "2.49 $/h" }``: named values, a number and optionally a unit;
- ``define = { cost = "price * devices * train_seconds" }``: formulas over the problem's
  dims, givens, other defined names, its quantities by their JSON names and
  ``<id>.<quantity>`` of another problem of the set;
- ``equations = ["C = 6*N*D", "D = 20*N"]`` with ``unknowns = ["N", "D"]``: solved exactly;
- ``expect = { cost = "3.1e6 $" }``: a value the key must reproduce (to 0.5 %).

On the command line the same are ``--given NAME=VALUE``, ``--define NAME=FORMULA``,
``--equation "LHS = RHS"`` and ``--unknown X`` (repeatable). This module only reads and
shape-checks them; :mod:`derive.questions` reads the formulas (derive's safe parser, never
eval) and solves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from derive.errors import ProblemError

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
MAX_ENTRIES = 64
"""Givens, definitions, equations or unknowns in one problem."""
QUESTION_KEYS: dict[str, type] = {
    "given": dict,
    "define": dict,
    "equations": list,
    "unknowns": list,
    "label": dict,
    "find": dict,
    "count_from_root": str,
}
_FLAGS = {
    "given": "--given",
    "define": "--define",
    "equations": "--equation",
    "unknowns": "--unknown",
    "expect": "--expect",
}


@dataclass(frozen=True)
class QuestionSpec:
    """What a problem gives, defines and asks to solve, as typed (text, unread).

    Attributes:
        where: the problem, for messages (``set.toml: problem 'cost'``; '' on the command line).
        given: (name, value text) pairs.
        define: (name, formula text) pairs, in the order written.
        equations: ``LHS = RHS`` texts (``<=`` and ``>=`` ask for a count on one side).
        unknowns: the names the equations are solved for.
        expect: (name, value text) pairs the derived values must match.
        labels: (name, text) pairs: how the question sheet asks for a defined quantity or
            an unknown (the set's ``label`` or ``find``), instead of its formula.
        count_from_root: ``accept`` (a count's real root typed is right, the count named)
            or ``reject`` (only the integer is right).
    """

    where: str = ""
    given: tuple[tuple[str, str], ...] = ()
    define: tuple[tuple[str, str], ...] = ()
    equations: tuple[str, ...] = ()
    unknowns: tuple[str, ...] = ()
    expect: tuple[tuple[str, str], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    count_from_root: str = "accept"

    @property
    def names(self) -> tuple[str, ...]:
        """The quantities this spec adds: givens, defined names, unknowns."""
        return (*(n for n, _ in (*self.given, *self.define)), *self.unknowns)

    @property
    def answers(self) -> tuple[str, ...]:
        """The quantities it derives (defined names and unknowns): what may be asked."""
        return (*(n for n, _ in self.define), *self.unknowns)

    def label(self, key: str, name: str = "") -> str:
        """Where a user wrote ``key`` (and entry ``name``): a TOML key or a flag."""
        if not self.where:
            flag = _FLAGS.get(key, key)
            return f"{flag} {name}".rstrip()
        return f"{self.where}: key {key!r}" + (f" ({name})" if name else "")


def _name(name: object, where: str) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ProblemError(
            where,
            f"{name!r} is not a name (letters, digits and _, starting with a letter, at most 64)",
        )
    return name


def _pairs(table: dict, key: str, where: str) -> tuple[tuple[str, str], ...]:
    out = []
    if len(table) > MAX_ENTRIES:
        raise ProblemError(f"{where}: key {key!r}", f"more than {MAX_ENTRIES} entries")
    for name, value in table.items():
        _name(name, f"{where}: key {key!r}")
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ProblemError(
                f"{where}: key {key!r} ({name})",
                'must be a string (a number with an optional unit, "2.49 $/h", or a formula)',
            )
        out.append((name, str(value)))
    return tuple(out)


def _texts(items: list, key: str, where: str) -> tuple[str, ...]:
    if len(items) > MAX_ENTRIES:
        raise ProblemError(f"{where}: key {key!r}", f"more than {MAX_ENTRIES} entries")
    for item in items:
        if not isinstance(item, str):
            raise ProblemError(f"{where}: key {key!r}", "must be a list of strings")
    return tuple(items)


_RESERVED = {"percent": "%", "USD": "$"}


def _not_reserved(name: str, where: str) -> None:
    """A given or defined name may not be a unit's (issue 37: a given ``percent`` replaced
    ``%``, ``USD`` replaced ``$``, ``Ref1x`` an ``<id>.<quantity>`` reference)."""
    from derive.formula.units import measure_atom

    if name in _RESERVED:
        why = f"{name!r} is how derive reads {_RESERVED[name]!r}"
    elif measure_atom(name) is not None:
        why = f"{name!r} is the name of a unit"
    elif re.fullmatch(r"Ref\d+x", name):
        why = f"{name!r} is the form derive gives <id>.<quantity> references inside a formula"
    else:
        return
    raise ProblemError(where, f"{why}; choose another name, e.g. {name}_value")


def _check_names(spec: QuestionSpec) -> QuestionSpec:
    """A name given twice, or an unknown that is also given or defined, is refused."""
    seen: dict[str, str] = {}
    for key, names in (
        ("given", [n for n, _ in spec.given]),
        ("define", [n for n, _ in spec.define]),
        ("unknowns", list(spec.unknowns)),
    ):
        for name in names:
            if key == "unknowns":
                _name(name, spec.label("unknowns"))
            else:
                _not_reserved(name, spec.label(key, name))
            if name in seen:
                raise ProblemError(
                    spec.label(key, name), f"{name!r} is already named in {seen[name]!r}"
                )
            seen[name] = key
    for name, _ in spec.labels:
        if name not in spec.answers:
            raise ProblemError(
                spec.label("label", name),
                f"{name!r} is not a defined quantity or an unknown of this problem "
                f"(those are: {', '.join(spec.answers) or 'none'})",
            )
    if spec.unknowns and not spec.equations:
        raise ProblemError(
            spec.label("unknowns", spec.unknowns[0]),
            "an unknown needs an equation to be solved from (add equations = [...])",
        )
    if spec.equations and not spec.unknowns:
        raise ProblemError(
            spec.label("equations"), "equations need the names to solve for (add unknowns = [...])"
        )
    return spec


def question_spec(table: dict, where: str, expect: dict | None = None) -> QuestionSpec | None:
    """The questions of a problem-set table, or None when it asks none.

    Args:
        table: the ``[[problem]]`` table (types of the four keys already checked).
        where: ``file: problem 'id'``, for messages.
        expect: the entries of ``expect`` that name defined quantities.
    """
    if not any(key in table for key in QUESTION_KEYS):
        return None
    spec = QuestionSpec(
        where=where,
        given=_pairs(table.get("given", {}), "given", where),
        define=_pairs(table.get("define", {}), "define", where),
        equations=_texts(table.get("equations", []), "equations", where),
        unknowns=_texts(table.get("unknowns", []), "unknowns", where),
        expect=_pairs(expect or {}, "expect", where),
        labels=_labels(table, where),
        count_from_root=table.get("count_from_root", "accept"),
    )
    if spec.count_from_root not in ("accept", "reject") or (
        "count_from_root" in table and not spec.unknowns
    ):
        why = 'is "accept" or "reject", for a problem whose unknowns are counts'
        raise ProblemError(f"{where}: key 'count_from_root'", why)
    return _check_names(spec)


def _labels(table: dict, where: str) -> tuple[tuple[str, str], ...]:
    """The sheet's labels: ``label = { cost = "the cost of the run (USD)" }`` (``find`` alike)."""
    if "label" in table and "find" in table:
        raise ProblemError(f"{where}: key 'find'", "give the labels once, as label or as find")
    key = "find" if "find" in table else "label"
    pairs = _pairs(table.get(key, {}), key, where)
    for name, text in pairs:
        if not text.strip() or len(text) > 200:
            raise ProblemError(f"{where}: key {key!r} ({name})", "a label is 1 to 200 characters")
    return pairs


def _split(item: str, flag: str) -> tuple[str, str]:
    name, sep, value = item.partition("=")
    if not sep or not value.strip():
        raise ProblemError(f"{flag} {item!r}", "expected NAME=VALUE")
    return _name(name.strip(), f"{flag} {item!r}"), value.strip()


def question_spec_from_flags(
    given: tuple[str, ...] | list[str] = (),
    define: tuple[str, ...] | list[str] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
) -> QuestionSpec | None:
    """The questions of ``--given NAME=VALUE --define NAME=FORMULA --equation … --unknown X``."""
    if not (given or define or equations or unknowns):
        return None
    for flag, items in (
        ("--given", given),
        ("--define", define),
        ("--equation", equations),
        ("--unknown", unknowns),
    ):
        if len(items) > MAX_ENTRIES:  # as a set's keys (issue 37: 1,000 made a RecursionError)
            raise ProblemError(
                f"{flag} (given {len(items)} times)",
                f"at most {MAX_ENTRIES}, as in a problem set; split the question into smaller ones",
            )
    spec = QuestionSpec(
        given=tuple(_split(item, "--given") for item in given),
        define=tuple(_split(item, "--define") for item in define),
        equations=tuple(equations),
        unknowns=tuple(u.strip() for u in unknowns),
    )
    return _check_names(spec)
