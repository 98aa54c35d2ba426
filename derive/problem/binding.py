"""A problem: an operator with dtypes, a chip (or given numbers), a regime and bound dims.

``ProblemSpec`` holds what the user typed, as text; ``bind`` validates every
piece against the operator and the catalogues and returns an exact ``Problem``.
Nothing here evaluates user text: numbers go through :mod:`derive.formula.decimals`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import sympy as sp

from derive.catalogue import ProblemKind, Typed
from derive.declare.composite import Composite, unfused
from derive.declare.operator import NAME_RE, Operator, Tensor
from derive.errors import ProblemError, UnknownNameError, did_you_mean
from derive.formula.decimals import parse_positive_int, set_items
from derive.problem.chips import Chip, Figure, custom_figure, get_chip, spelled_mesh
from derive.problem.dtypes import Dtype, get_dtype
from derive.problem.mesh import Mesh, parse_mesh
from derive.problem.regime import Regime, parse_regime
from derive.problem.timing import Timing, TimingSpec, bind_timing

MAX_SPEC_ITEMS = 64


@dataclass(frozen=True)
class ProblemSpec(Typed):
    """A problem as typed: every field is text (or a tuple of text)."""

    operator: str
    dtypes: tuple[str, ...] = ()
    compute: str | None = None
    chip: str | None = None
    peak: str | None = None
    bandwidth: str | None = None
    link_bandwidth: str | None = None
    regime: str | None = None
    sets: tuple[str, ...] = ()
    solve_for: str | None = None
    timing: TimingSpec = field(default_factory=TimingSpec)
    mesh: str | None = None  # --mesh: the collectives' axes (derive.problem.mesh)
    shards: tuple[str, ...] = ()  # a set's shard: tensors in the book's notation on the mesh
    convention: str | None = None  # --convention: derive's own, or scaling-book on the mesh
    layers: str | None = None  # --layers N|MODEL: a composite's fusion savings × layers
    collective: str | None = None  # a set's collective in the book's notation (its operator)

    kind = ProblemKind.OPERATOR
    """An operator problem."""


@dataclass(frozen=True)
class Problem:
    """A bound problem: exact numbers, dims and dtypes checked against the operator."""

    operator: Operator
    dtypes: tuple[tuple[str, Dtype], ...]
    compute_dtype: str
    compute_reason: str
    peak: Figure
    bandwidth: Figure
    link: Figure | None
    chip: Chip | None
    regime: Regime | None
    bound: tuple[tuple[sp.Symbol, sp.Integer], ...]
    solve_for: sp.Symbol
    timing: Timing = field(default_factory=Timing)
    intermediate_dtypes: tuple[tuple[str, Dtype], ...] = ()
    mesh: Mesh | None = None  # the collectives' axes (--mesh), else one ring at the link

    def bound_subs(self, except_dim: sp.Symbol | None = None) -> dict[sp.Symbol, sp.Integer]:
        """Bound dims → values, optionally leaving one dim free."""
        return {d: v for d, v in self.bound if d != except_dim}

    @property
    def hardware_name(self) -> str:
        """The chip's name, or ``given numbers``."""
        return self.chip.name if self.chip else "given numbers"


def _intermediates(op: Operator) -> tuple[Tensor, ...]:
    """Tensors only a fused layer's unfused twin moves (the intermediates kept on chip)."""
    if not isinstance(op, Composite) or not op.fused:
        return ()
    names = set(op.tensor_names)
    twin = unfused(op)
    return tuple({t.name: t for t in twin.tensors if t.name not in names}.values())


def _bind_dtypes(
    op: Operator, specs: tuple[str, ...]
) -> tuple[tuple[tuple[str, Dtype], ...], tuple[tuple[str, Dtype], ...]]:
    """The dtype of every tensor, and of every intermediate of a fused layer's unfused twin.

    A width fixed in the declaration (``Tensor(..., width=1)``) is kept under a bare
    ``--dtype``; only ``--dtype NAME=DTYPE`` for that tensor replaces it.
    """
    chosen: dict[str, Dtype] = {}
    inner = _intermediates(op)
    tensors = {t.name: t for t in (*op.tensors, *inner)}
    declared = {name: t.width for name, t in tensors.items() if t.width is not None}
    names, inner_names = op.tensor_names, tuple(t.name for t in inner)
    for spec in specs:
        if not isinstance(spec, str):
            raise ProblemError("--dtype", f"expected text like bf16 or Y=int8, got {spec!r}")
        if "=" in spec:
            tensor, _, dtype = (s.strip() for s in spec.partition("="))
            if tensor not in tensors:
                known = ", ".join(names + inner_names)
                raise UnknownNameError(
                    f"--dtype {spec}",
                    f"operator {op.name!r} has no tensor {tensor!r}; its tensors are {known}"
                    + did_you_mean(tensor, names + inner_names),
                )
            chosen[tensor] = get_dtype(dtype)
        else:
            dt = get_dtype(spec)
            chosen.update({n: dt for n in tensors if n not in declared})
    missing = [n for n in names if n not in chosen and n not in declared]
    if missing:
        raise ProblemError(
            f"operator {op.name!r}",
            f"tensor {missing[0]!r} has no dtype; give --dtype DTYPE for all tensors or --dtype {missing[0]}=DTYPE",
        )

    def bound(name: str) -> Dtype:
        return chosen[name] if name in chosen else Dtype(f"{declared[name]} B", declared[name], "")

    return (
        tuple((n, bound(n)) for n in names),
        tuple((n, bound(n)) for n in inner_names if n in chosen or n in declared),
    )


def _compute_dtype(op: Operator, dtypes: dict[str, Dtype], override: str | None) -> tuple[str, str]:
    if override:
        dt = get_dtype(override)
        return dt.compute_as, "as given" if dt.compute_as == override else f"given as {override}"
    reads = [t.name for t in op.reads] or [t.name for t in op.writes]
    best = max(reads, key=lambda n: (dtypes[n].width, -reads.index(n)))
    dt = dtypes[best]
    if not dt.compute_as:
        raise ProblemError(
            f"operator {op.name!r}", "no compute dtype can be inferred; give --compute DTYPE"
        )
    return dt.compute_as, f"the widest dtype read, {best} in {dt.name}"


def bind_hardware(
    spec: ProblemSpec, compute: str
) -> tuple[Chip | None, Figure, Figure, Figure | None]:
    """The chip (or given numbers), its peak for ``compute``, bandwidth and link."""
    if spec.chip is not None:
        chip = get_chip(spec.chip).overridden(
            spec.peak, spec.bandwidth, None, spec.link_bandwidth or None
        )
        return chip, chip.peak(compute), chip.hbm, chip.link
    if spec.peak is None or spec.bandwidth is None:
        raise ProblemError(
            "hardware", "give --chip NAME, or both --peak FLOPS_PER_S and --bandwidth BYTES_PER_S"
        )
    link = custom_figure(spec.link_bandwidth, "--link-bandwidth") if spec.link_bandwidth else None
    return (
        None,
        custom_figure(spec.peak, "--peak"),
        custom_figure(spec.bandwidth, "--bandwidth"),
        link,
    )


def _bind_sets(op: Operator, sets: tuple[str, ...]) -> tuple[tuple[sp.Symbol, sp.Integer], ...]:
    bound: dict[sp.Symbol, sp.Integer] = {}
    for item in set_items(sets):
        if not isinstance(item, str) or "=" not in item:
            raise ProblemError(f"--set {item}", "expected DIM=INT, e.g. D=4096")
        name, _, value = (s.strip() for s in item.partition("="))
        dim = op.dim(name)
        if dim is None:
            raise UnknownNameError(
                f"--set {item}",
                f"operator {op.name!r} has no dim {name!r}; its dims are {', '.join(d.name for d in op.dims)}",
            )
        bound[dim] = parse_positive_int(value, f"--set {name}")
    return tuple((d, bound[d]) for d in op.dims if d in bound)


def _check_groups(op: Operator, bound: tuple[tuple[sp.Symbol, sp.Integer], ...]) -> None:
    """A collective's group P that is a dim is at least 2 devices once bound."""
    values = dict(bound)
    for tensor in op.comms:
        for dim in getattr(tensor, "group_dims", ()):
            if dim in values and values[dim] < 2:
                raise ProblemError(
                    f"--set {dim.name}={values[dim]}",
                    f"{dim.name} is the group of the collective sending {tensor.name!r}: at least 2 devices",
                )


def _solve_for(op: Operator, name: str | None) -> sp.Symbol:
    if name is None:
        return op.dim("B") or op.dims[0]
    if not isinstance(name, str) or not NAME_RE.match(name) or op.dim(name) is None:
        raise UnknownNameError(
            f"--solve-for {name}",
            f"operator {op.name!r} has no dim {name!r}; its dims are {', '.join(d.name for d in op.dims)}",
        )
    return op.dim(name)


def bind(spec: ProblemSpec, op: Operator) -> Problem:
    """Validate a spec against its operator and the catalogues; the result is exact."""
    for field_name in ("dtypes", "sets"):
        if len(getattr(spec, field_name)) > MAX_SPEC_ITEMS:
            raise ProblemError(f"--{field_name[:-1]}", f"at most {MAX_SPEC_ITEMS} given")
    if not op.memory_tensors:
        raise ProblemError(
            f"operator {op.name!r}",
            "it only communicates, so it has no roofline: derive solve times it on its link "
            "(derive.pipeline.derive_comms)",
        )
    dtypes, intermediates = _bind_dtypes(op, tuple(spec.dtypes))
    compute, reason = _compute_dtype(op, dict(dtypes), spec.compute)
    chip, peak, bandwidth, link = bind_hardware(spec, compute)
    regime = parse_regime(spec.regime, op.dims) if spec.regime else None
    sets = _bind_sets(op, tuple(spec.sets))
    _check_groups(op, sets)
    mesh = mesh_of(spec, op, computes=True)
    if mesh is not None and link is None:  # the innermost axis stands for "the link"
        inner = mesh.axes[0]
        link = Figure(inner.bandwidth, inner.bandwidth_text, f"mesh axis {inner.name}", "")
    return Problem(
        op,
        dtypes,
        compute,
        reason,
        peak,
        bandwidth,
        link,
        chip,
        regime,
        sets,
        _solve_for(op, spec.solve_for),
        bind_timing(spec.timing),
        intermediates,
        mesh,
    )


def read_mesh(spec: ProblemSpec) -> Mesh | None:
    """``--mesh`` read (``tpu:4x4x4`` built from ``--chip``'s ICI)."""
    text = spec.mesh
    if text is None:
        if (spec.convention or "derive").strip().lower() != "derive":
            raise ProblemError(
                f"--convention {spec.convention}", "times a mesh's collectives: give --mesh"
            )
        return None
    text = spelled_mesh(text, spec.chip)
    book = (spec.convention or "derive").strip().lower()
    if book not in ("derive", "scaling-book"):
        raise ProblemError(
            f"--convention {spec.convention}", "a collective's: derive or scaling-book"
        )
    return replace(parse_mesh(text), book=book == "scaling-book")


def mesh_of(spec: ProblemSpec, op: Operator, computes: bool = False) -> Mesh | None:
    """``--mesh`` read, for an operator with a collective to run over it (an operator that
    also computes is timed over the chip's link or the innermost axis: no axis latencies)."""
    mesh = read_mesh(spec)
    if mesh is None:
        return None
    if not any(getattr(t, "kind", None) is not None for t in op.comms):
        raise ProblemError("--mesh", f"operator {op.name!r} has no collective to run over a mesh")
    if spec.timing.link_latency is not None:
        raise ProblemError(
            "--link-latency", "the mesh gives each axis its latency: name=size@bw+5us"
        )
    if computes and any(axis.latency for axis in mesh.axes):
        raise ProblemError(
            "--mesh", "axis latencies are timed for an operator that only communicates"
        )
    return mesh
