"""A problem set's kernels given by their numbers: ``kernel = { flops = "1e12", bytes = "2.5e9" }``.

A ``[[problem]]`` with a ``kernel`` table is the problem of ``derive solve --flops …``: the
counts (``flops`` and ``bytes``, or ``intensity``; decimal text read by
:mod:`derive.formula.decimals`), the hardware (``chip``, or ``peak`` and ``bandwidth``;
``dtype`` or ``compute`` for the peak) and the timing keys a kernel takes
(:data:`KERNEL_TIMING_KEYS`). ``ask`` and ``expect`` name the kernel's quantities
(:data:`KERNEL_ASK_KEYS`, the names ``derive check`` uses for a kernel). Everything is
checked here, so an error names the file, the problem and the key; nothing is evaluated.

>>> entry = kernel_problem(
...     {"id": "k", "kernel": {"flops": "1e12", "bytes": "2.5e9"}, "chip": "h100"}, 0, "s.toml", set()
... )
>>> entry.spec.flops, entry.ask
('1e12', ())
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.catalogue import ProblemKind, Use, did_you_mean, names_for, rows_for
from derive.catalogue import table as q
from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import parse_positive
from derive.formula.units import Dimension
from derive.problem.binding import bind_hardware
from derive.problem.kernel_spec import KernelSpec
from derive.problem.question_spec import QUESTION_KEYS, QuestionSpec, question_spec
from derive.problem.sets.checks import problem_head, refuse_others
from derive.problem.sets.errors import in_file_terms
from derive.problem.sets.problem_set import exact_expect
from derive.problem.timing import TIMING_KEYS, TimingSpec, bind_timing, timing_error_in_keys

KERNEL_ASK_KEYS = names_for(ProblemKind.KERNEL, Use.ASK)
"""A kernel's quantities (``ask``, ``expect``): the names ``derive check`` judges for a kernel."""

KERNEL_TIMING_KEYS = tuple(key for key in TIMING_KEYS if key != "link_latency")
"""The timing keys a kernel takes (a kernel has no collective, so no ``link_latency``)."""

_COUNTS = (q.FLOPS.name, q.BYTES.name, q.INTENSITY.name)
_KERNEL_PROBLEM: dict[str, type] = {
    "id": str,
    "title": str,
    "text": str,
    "kernel": dict,
    "chip": str,
    "peak": str,
    "bandwidth": str,
    "dtype": str,
    "compute": str,
    "ask": list,
    "expect": dict,
    **{name: str for name in KERNEL_TIMING_KEYS},
    **QUESTION_KEYS,
}
_TIMES = tuple(
    r.name for r in rows_for(ProblemKind.KERNEL, Use.ASK) if r.dimension is Dimension.TIME
)
_HEADLINE = (q.INTENSITY, q.RIDGE, q.ATTAINABLE, q.T_LOWER, q.T_UPPER, q.MFU, q.MBU)


@dataclass(frozen=True)
class KernelEntry:
    """One kernel-by-its-numbers problem of a set.

    Attributes:
        id, title, text: as in every problem.
        spec: the kernel as typed (what ``derive solve --flops …`` takes).
        ask: the quantities asked (empty: every quantity the kernel has).
        expect: checked answers (quantity → decimal text), as operator problems' ``expect``.
    """

    id: str
    title: str
    text: str
    spec: KernelSpec
    ask: tuple[str, ...] = ()
    expect: tuple[tuple[str, str], ...] = ()
    questions: QuestionSpec | None = None

    kind = ProblemKind.KERNEL
    """A kernel given by its numbers."""


def kernel_quantities_of(spec: KernelSpec) -> tuple[str, ...]:
    """The quantities a kernel has: times need both counts, MFU/MBU a measurement they can use.

    >>> kernel_quantities_of(KernelSpec(intensity="20", chip="h100"))
    ('intensity', 'ridge', 'effective_ridge', 'attainable', 'fraction_of_peak')
    """
    counts = spec.intensity is None  # one count is enough: the other is 0 (issue 36)
    timing = spec.timing
    timed = timing.measured_time is not None
    has = {
        **dict.fromkeys(_TIMES, counts),
        q.MFU.name: timing.measured_flops_per_s is not None or (timed and spec.flops is not None),
        q.MBU.name: timing.measured_bytes_per_s is not None or (timed and spec.bytes is not None),
    }
    return tuple(key for key in KERNEL_ASK_KEYS if has.get(key, True))


def kernel_asks(entry: KernelEntry) -> tuple[str, ...]:
    """What a problem asks: its ``ask``, else the kernel's headline quantities (intensity,
    ridge, attainable; the bounds with both counts; MFU/MBU with a measurement)."""
    if entry.ask:
        return entry.ask
    has = kernel_quantities_of(entry.spec)
    return tuple(row.name for row in _HEADLINE if row.name in has)


def _counts(table: object, where: str) -> tuple[str | None, str | None, str | None]:
    """The ``kernel`` table's counts, each parsed exactly (positive decimal text)."""
    what = f"{where}: key 'kernel'"
    assert isinstance(table, dict)  # problem_head checked the type
    for key, value in table.items():
        if key not in _COUNTS:
            raise ProblemError(
                f"{where}: key 'kernel.{key}'", f"unknown key; allowed: {', '.join(_COUNTS)}"
            )
        if not isinstance(value, str):
            raise ProblemError(
                f"{where}: key 'kernel.{key}'",
                'must be a string (counts are decimal text, e.g. "1e12", so they stay exact)',
            )
    given = {key: table.get(key) for key in _COUNTS}
    if given[q.INTENSITY.name] is not None and (
        given[q.FLOPS.name] is not None or given[q.BYTES.name] is not None
    ):
        raise ProblemError(what, "give flops and bytes, or intensity, not both")
    if all(given[k.name] is None for k in (q.INTENSITY, q.FLOPS, q.BYTES)):
        raise ProblemError(
            what,
            'needs flops or bytes (kernel = { flops = "1e12", bytes = "2.5e9" }) or intensity',
        )
    # one count is enough (issue 36): the kernel's analysis takes the other as 0
    for key, text in given.items():
        if text is not None:
            try:
                parse_positive(text, key)
            except DeriveError as error:
                raise ProblemError(f"{where}: key 'kernel.{key}' ({text!r})", error.why) from None
    return given[q.FLOPS.name], given[q.BYTES.name], given[q.INTENSITY.name]


def _names(raw: dict, key: str, where: str, allowed: tuple[str, ...], has: tuple[str, ...]) -> None:
    for name in raw.get(key, ()):
        if name not in KERNEL_ASK_KEYS:
            raise ProblemError(
                f"{where}: key {key!r}",
                f"unknown quantity {name!r}{did_you_mean(name, allowed)}; "
                f"a kernel's quantities: {', '.join(allowed)}",
            )
        if name not in has:
            raise ProblemError(
                f"{where}: key {key!r}",
                f"this kernel has no {name!r} ("
                + (
                    "the times need both counts, flops and bytes"
                    if name in _TIMES
                    else "it needs measured_time with the counts, or measured_flops_per_s "
                    "(mfu) / measured_bytes_per_s (mbu)"
                )
                + f"); its quantities: {', '.join(has)}",
            )


def kernel_problem(raw: object, index: int, origin: str, seen: set[str]) -> KernelEntry:
    """Check and read one ``[[problem]]`` table with a ``kernel`` key.

    Raises:
        ProblemError: naming the file, the problem and the key.
    """
    assert isinstance(raw, dict)  # the caller sends tables with a 'kernel' key here
    why = "a problem is an operator, a model or a kernel, not two"
    refuse_others(raw, index, origin, ("operator", "model"), why)
    pid, where, table = problem_head(raw, index, origin, seen, _KERNEL_PROBLEM, "kernel")
    flops, moved, intensity = _counts(table["kernel"], where)
    if "dtype" in table and "compute" in table:
        raise ProblemError(where, "give 'dtype' or 'compute', not both")
    timing = TimingSpec(**{name: table.get(name) for name in KERNEL_TIMING_KEYS})
    try:  # each value first, then what the kernel cannot use; errors name the key
        bind_timing(timing)
        spec = KernelSpec(
            flops=flops,
            bytes=moved,
            intensity=intensity,
            chip=table.get("chip"),
            peak=table.get("peak"),
            bandwidth=table.get("bandwidth"),
            compute=table.get("compute"),
            dtypes=(table["dtype"],) if "dtype" in table else (),
            timing=timing,
        )
    except DeriveError as error:  # "--launch-overhead 5 parsecs" names the key launch_overhead
        raise timing_error_in_keys(error, where) from None
    try:
        bind_hardware(spec.hardware(), spec.compute_dtype())
    except DeriveError as error:  # a kernel's key is 'dtype' (one dtype), never 'dtypes'
        dtype = error.what.startswith("--dtype")
        raise in_file_terms(error, origin, pid, "dtype" if dtype else "") from None
    has = kernel_quantities_of(spec)
    defined = _defined(table)
    questions = question_spec(
        table, where, {k: v for k, v in table.get("expect", {}).items() if k in defined}
    )
    own_ask = [name for name in table.get("ask", ()) if name not in defined]
    own_expect = {k: v for k, v in table.get("expect", {}).items() if k not in defined}
    _names({"ask": own_ask}, "ask", where, KERNEL_ASK_KEYS, has)
    _names({"expect": own_expect}, "expect", where, KERNEL_ASK_KEYS, has)
    expect = exact_expect(own_expect, where)
    return KernelEntry(
        pid,
        table.get("title", pid),
        table.get("text", ""),
        spec,
        tuple(own_ask),
        tuple(expect),
        questions,
    )


def _defined(table: dict) -> tuple[str, ...]:
    """The names a kernel problem's ``define`` and ``unknowns`` add (they may be asked)."""
    names = list(table.get("define", {})) if isinstance(table.get("define"), dict) else []
    unknowns = table.get("unknowns", [])
    return tuple(names + [u for u in unknowns if isinstance(u, str)])
