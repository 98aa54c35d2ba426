"""A variant per student: ``variants = { count = 40, seed = 7, vary = { B = [64, 128], … } }``.

A set that declares ``variants`` stands for ``count`` concrete sets, numbered from 0. Variant
``i`` takes, for each varied key in sorted order, ``random.Random(f"{seed}:{i}").choice`` of
its values (a string seed is hashed with SHA-512: the same under any ``PYTHONHASHSEED``, on
any machine), and the value replaces that key wherever a problem has it: a key of the
problem itself (``chip``, ``model``, ``phase``, …) or of one of its tables (``set``,
``given``, ``train``, …). A problem's own ``vary = { B = [64, 128] }`` draws for that problem
alone, with ``random.Random(f"{seed}:{i}:{id}")`` over its keys in sorted order, and wins over
the set's for its keys. A problem so changed loses its ``expect`` (its values are the
file's). A student's variant is :func:`variant_of_student`: FNV-1a (32 bits) of
``"{seed}:{student}"`` modulo ``count``, which ``static/publish.js`` computes alike.

:func:`variants_of` gives every variant as a :class:`ProblemSet` of its own, so the key, the
workbook, the site and the grading CSV judge a variant as they judge any set.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from pathlib import Path

from derive.errors import ProblemError
from derive.problem.sets.problem_set import ProblemSet, problem_set_of

MAX_VARIANTS = 1000
_KEYS = {"count", "seed", "vary"}
_FIXED = ("id", "title", "text", "ask", "expect", "rtol", "plot", "vary")


@dataclass(frozen=True)
class Variants:
    """A set's ``variants``: how many, the seed, each varied key's values (the set's, and by
    problem id a problem's own), the file's tables."""

    count: int
    seed: int
    vary: tuple[tuple[str, tuple[str | int, ...]], ...]
    data: dict = field(compare=False, repr=False)
    base: Path | None = None
    own: tuple[tuple[str, tuple[tuple[str, tuple[str | int, ...]], ...]], ...] = ()

    def keys_of(self, problem: str) -> tuple[str, ...]:
        """The varied keys a problem holds (the columns of its table in the key)."""
        raw = next((p for p in _problems(self.data) if p.get("id") == problem), {})
        held = {key for key, _ in self.vary if _holder(raw, key) is not None}
        return tuple(sorted(held | {key for key, _ in dict(self.own).get(problem, ())}))

    def choice(self, i: int, problem: str | None = None) -> dict[str, str | int]:
        """Variant ``i``'s value of each varied key (a function of the seed and ``i`` only);
        for a ``problem``, its own draws (of the seed, ``i`` and its id) win."""
        rng = random.Random(f"{self.seed}:{i}")
        drawn = {key: rng.choice(values) for key, values in self.vary}
        own = dict(self.own).get(problem or "", ())
        rng = random.Random(f"{self.seed}:{i}:{problem}")
        return drawn | {key: rng.choice(values) for key, values in own}


def variants_table(raw: object, data: dict, origin: str, base: Path | None) -> Variants:
    """A set's ``variants`` table and its problems' ``vary``, checked: one line naming the key
    when one is wrong.

    Raises:
        ProblemError: not such a table, a count out of range, a varied key no problem has.
    """
    where, problems = f"{origin}: key 'variants'", _problems(data)
    own = [p for p in problems if "vary" in p]
    if raw is None:
        named = f"{origin}: problem {own[0].get('id')!r}: key 'vary'"
        raise ProblemError(named, "needs the set's variants = { count = 40, seed = 7 }")
    if not isinstance(raw, dict) or set(raw) - _KEYS or not isinstance(raw.get("vary", {}), dict):
        raise ProblemError(where, "must be { count = 40, seed = 7, vary = { B = [64, 128] } }")
    count, seed = raw.get("count", 1), raw.get("seed", 0)
    if not all(_scalar(n) and isinstance(n, int) for n in (count, seed)):
        raise ProblemError(where, "count and seed must be integers")
    if not 1 <= count <= MAX_VARIANTS:
        raise ProblemError(f"{where} (count)", f"must be 1 to {MAX_VARIANTS}")
    if not raw.get("vary") and not own:
        raise ProblemError(where, "varies nothing: give vary = { … } here or in a problem")
    vary = _vary(raw.get("vary", {}), problems, (f"{where} (vary.", ")"), "no problem has this key")
    mine = []
    for problem in own:
        named = f"{origin}: problem {problem.get('id')!r}: key 'vary"
        if not isinstance(problem["vary"], dict):
            raise ProblemError(f"{named}'", "must be a table: vary = { B = [64, 128] }")
        drawn = _vary(problem["vary"], [problem], (f"{named}.", "'"), "the problem has no such key")
        mine.append((str(problem.get("id")), drawn))
    return Variants(count, seed, vary, data, base, tuple(mine))


def _vary(table: dict, problems: list[dict], around: tuple[str, str], lacks: str) -> tuple:
    """A ``vary`` table's keys in sorted order, each with its values, checked (an error names
    the key between the two texts of ``around``)."""
    out = []
    for key, values in sorted(table.items()):
        at = f"{around[0]}{key}{around[1]}"
        values = values if isinstance(values, list) and all(map(_scalar, values)) else []
        if not 0 < len(values) <= 100:
            raise ProblemError(at, "must be a list of 1 to 100 strings or integers")
        if all(_holder(p, key) is None for p in problems):
            raise ProblemError(at, f"{lacks} (or a set, given, … entry)")
        out.append((key, tuple(values)))
    return tuple(out)


def _holder(problem: dict, key: str) -> dict | None:
    """The table of a problem that holds ``key``: the problem's own, else one of its tables."""
    if key in problem and key not in _FIXED:
        return problem
    tables = (v for k, v in problem.items() if isinstance(v, dict) and k not in _FIXED)
    return next((t for t in tables if key in t), None)


def variants_of(pset: ProblemSet) -> list[tuple[int, ProblemSet]]:
    """Every variant of a set, ``(i, set)`` for ``i`` from 0; a set without ``variants`` is
    ``[(0, pset)]``. Variants that draw the same values share one set.

    Raises:
        ProblemError: a variant's value is one its problem refuses (named with the variant).
    """
    spec = pset.variants
    if spec is None:
        return [(0, pset)]
    made: dict[tuple, ProblemSet] = {}
    out = []
    ids = [str(p.get("id")) for p in _problems(spec.data)]
    for i in range(spec.count):
        draws = {pid: spec.choice(i, pid) for pid in ids}
        key = tuple(tuple(choice.items()) for choice in draws.values())
        if key not in made:
            data = copy.deepcopy({k: v for k, v in spec.data.items() if k != "variants"})
            for problem, choice in zip(_problems(data), draws.values(), strict=True):
                problem.pop("vary", None)
                for name, value in choice.items():
                    holder = _holder(problem, name)
                    if holder is not None:
                        holder[name] = value
                        problem.pop("expect", None)
            try:
                made[key] = problem_set_of(data, pset.source, spec.base)
            except ProblemError as error:
                exc = (getattr(error, "errors", ()) or (error,))[0]
                what = f"{pset.source}: variant {i} ({_said(spec, i)}): "
                raise ProblemError(
                    what + exc.what.removeprefix(f"{pset.source}: "), exc.why
                ) from None
        out.append((i, made[key]))
    return out


def _said(spec: Variants, i: int) -> str:
    """Variant ``i``'s draws: the set's, then each problem's own (``q1.B = 64``)."""
    own = {f"{p}.{k}": spec.choice(i, p)[k] for p, keys in spec.own for k, _ in keys}
    return ", ".join(f"{k} = {v}" for k, v in (spec.choice(i) | own).items())


def variant_of_student(seed: int, student: str, count: int) -> int:
    """A student's variant: FNV-1a of ``"{seed}:{student}"`` (UTF-8) modulo ``count``."""
    h = 0x811C9DC5
    for byte in f"{seed}:{student}".encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % count


def _problems(data: dict) -> list[dict]:
    return [p for p in data.get("problem", ()) if isinstance(p, dict)]


def _scalar(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)
