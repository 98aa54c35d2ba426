"""A variant per student: ``variants = { count = 40, seed = 7, vary = { B = [64, 128], … } }``.

A set that declares ``variants`` stands for ``count`` concrete sets, numbered from 0. Variant
``i`` takes, for each varied key in sorted order, ``random.Random(f"{seed}:{i}").choice`` of
its values (a string seed is hashed with SHA-512: the same under any ``PYTHONHASHSEED``, on
any machine), and the value replaces that key wherever a problem has it: a key of the
problem itself (``chip``, ``model``, ``phase``, …) or of one of its tables (``set``,
``given``, ``train``, …). A problem so changed loses its ``expect`` (its values are the
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

__all__ = ["Variants", "variant_of_student", "variants_of", "variants_table"]

MAX_VARIANTS = 1000
_KEYS = {"count", "seed", "vary"}
_FIXED = ("id", "title", "text", "ask", "expect", "rtol", "plot", "vary")


@dataclass(frozen=True)
class Variants:
    """A set's ``variants``: how many, the seed, each varied key's values, the file's tables."""

    count: int
    seed: int
    vary: tuple[tuple[str, tuple[str | int, ...]], ...]
    data: dict = field(compare=False, repr=False)
    base: Path | None = None

    def keys_of(self, problem: str) -> tuple[str, ...]:
        """The varied keys a problem holds (the columns of its table in the key)."""
        raw = next((p for p in _problems(self.data) if p.get("id") == problem), {})
        return tuple(key for key, _ in self.vary if _holder(raw, key) is not None)

    def choice(self, i: int) -> dict[str, str | int]:
        """Variant ``i``'s value of each varied key (a function of the seed and ``i`` only)."""
        rng = random.Random(f"{self.seed}:{i}")
        return {key: rng.choice(values) for key, values in self.vary}


def variants_table(raw: object, data: dict, origin: str, base: Path | None) -> Variants:
    """A set's ``variants`` table, checked: one line naming the key when it is wrong.

    Raises:
        ProblemError: not such a table, a count out of range, a varied key no problem has.
    """
    where = f"{origin}: key 'variants'"
    if not isinstance(raw, dict) or set(raw) - _KEYS or not isinstance(raw.get("vary"), dict):
        raise ProblemError(where, "must be { count = 40, seed = 7, vary = { B = [64, 128] } }")
    count, seed = raw.get("count", 1), raw.get("seed", 0)
    if not all(_scalar(n) and isinstance(n, int) for n in (count, seed)):
        raise ProblemError(where, "count and seed must be integers")
    if not 1 <= count <= MAX_VARIANTS:
        raise ProblemError(f"{where} (count)", f"must be 1 to {MAX_VARIANTS}")
    vary = []
    for key, values in sorted(raw["vary"].items()):
        at = f"{where} (vary.{key})"
        values = values if isinstance(values, list) and all(map(_scalar, values)) else []
        if not 0 < len(values) <= 100:
            raise ProblemError(at, "must be a list of 1 to 100 strings or integers")
        if all(_holder(p, key) is None for p in _problems(data)):
            raise ProblemError(at, "no problem has this key (or a set, given, … entry)")
        vary.append((key, tuple(values)))
    return Variants(count, seed, tuple(vary), data, base)


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
    for i in range(spec.count):
        choice = spec.choice(i)
        key = tuple(choice.items())
        if key not in made:
            data = copy.deepcopy({k: v for k, v in spec.data.items() if k != "variants"})
            for problem in _problems(data):
                for name, value in choice.items():
                    holder = _holder(problem, name)
                    if holder is not None:
                        holder[name] = value
                        problem.pop("expect", None)
            try:
                made[key] = problem_set_of(data, pset.source, spec.base)
            except ProblemError as error:
                exc = (getattr(error, "errors", ()) or (error,))[0]
                what = f"{pset.source}: variant {i} ({_said(choice)}): "
                raise ProblemError(
                    what + exc.what.removeprefix(f"{pset.source}: "), exc.why
                ) from None
        out.append((i, made[key]))
    return out


def _said(choice: dict[str, str | int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in choice.items())


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
