"""How a training run lies on its cluster: pipeline stages, the mesh and the dims' placement.

:func:`stage_layers` spreads L layers over pp stages (``--stage-layers`` gives them): as
evenly as possible, the extra layers on the middle stages first, since the first stage holds
the embedding and the most micro-batches in flight and the last the head.
:func:`cluster_of` reads ``--mesh`` and ``--place`` (:mod:`derive.training.mesh`) and checks
the mesh's device count against ``dp · tp · pp · cp``. Every refusal names the flag or key.
"""

from __future__ import annotations

import math
import re

import sympy as sp

from derive.errors import ProblemError
from derive.problem.mesh import parse_mesh
from derive.problem.train_spec import TrainSpec
from derive.training.mesh import Placement, place


def flag_on(spec: TrainSpec, field: str) -> bool:
    """A true/false flag or key (``sequence_parallel``, ``keep_gathered_weights``)."""
    text = (getattr(spec, field) or "false").strip().lower()
    if text not in ("true", "false"):
        raise ProblemError(spec.where(field), "true or false")
    return text == "true"


def _spread(layers: int, pp: int) -> tuple[int, ...]:
    """L over pp stages as evenly as possible, the extra layers on the middle stages first.

    >>> _spread(32, 5)
    (6, 7, 7, 6, 6)
    >>> _spread(126, 16)
    (7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7)
    """
    base, extra = divmod(layers, pp)
    order = list(range(1, pp - 1)) + [0, pp - 1] if pp > 2 else list(range(pp))
    bigger = set(order[:extra])
    return tuple(base + (1 if i in bigger else 0) for i in range(pp))


def stage_layers(spec: TrainSpec, layers: int, pp: int) -> tuple[int, ...]:
    """Layers per stage: ``--stage-layers`` checked (pp entries summing to L), else spread."""
    text = spec.stage_layers
    if text is None:
        return () if layers % pp == 0 else _spread(layers, pp)
    parts = [t.strip() for t in text.split(",")]
    if not all(re.fullmatch(r"\d{1,6}", t) and int(t) > 0 for t in parts):
        raise ProblemError(
            spec.where("stage_layers"),
            "a comma-separated list of positive layer counts, e.g. 8,8,8,8",
        )
    counts = tuple(int(t) for t in parts)
    if len(counts) != pp:
        raise ProblemError(spec.where("stage_layers"), f"{len(counts)} stages given for pp = {pp}")
    if sum(counts) != layers:
        raise ProblemError(
            spec.where("stage_layers"),
            f"the stages hold {sum(counts)} layers; the model has {layers}",
        )
    return counts if len(set(counts)) > 1 else ()


def virtual_stages(
    spec: TrainSpec, value: int, pp: int, stages: tuple[int, ...], microbatches: sp.Integer
) -> int:
    """Interleaved 1F1B's v: each stage's layers cut into v chunks as evenly as possible (7 into
    4 and 3), M a multiple of pp. A shorter stage's chunk may be empty, holding only the
    embedding or the head (Llama 3 405B: v = 8 on stages of 7 and 8 layers)."""
    if value == 1:
        return 1
    where = spec.where("virtual_stages")
    if pp < 2:
        raise ProblemError(where, "interleaving needs a pipeline: give --pp 2 or more")
    if stages and value > max(stages):
        raise ProblemError(
            where, f"v = {value} chunks exceed the largest stage's {max(stages)} layers"
        )
    if microbatches % pp:
        raise ProblemError(
            where,
            f"interleaved 1F1B runs M a multiple of pp (Megatron-LM): M = {microbatches}, pp = {pp}",
        )
    return value


SCHEDULES = {
    "1f1b": "1F1B (Harlap et al. 2018; interleaved, Narayanan et al. 2021)",
    "zb1p": "ZB-1P (Qi et al. 2023, Zero Bubble Pipeline Parallelism)",
    "dualpipe": "DualPipe (DeepSeek-V3 Technical Report §3.2.1, Table 2; github.com/deepseek-ai/DualPipe)",
}
"""The pipeline schedules ``--schedule`` names (``interleaved`` is 1F1B with v > 1), each with its source."""


def schedule_of(spec: TrainSpec, pp: int, v: int, microbatches: sp.Integer, convention: str) -> str:
    """``--schedule``: 1F1B (interleaved when v > 1), ZB-1P or DualPipe, whose rules it checks:
    DualPipe feeds M/2 micro-batches from each end of an even pipeline, M even and at least
    2·pp (dualpipe.py's asserts)."""
    text, where = (spec.schedule or "1f1b").strip().lower(), spec.where("schedule")
    if text == "interleaved" and v == 1:
        raise ProblemError(
            where, "interleaved 1F1B runs v model chunks a stage: give --virtual-stages 2 or more"
        )
    if text in ("1f1b", "interleaved"):
        return "1f1b"
    if text not in SCHEDULES:
        raise ProblemError(where, "one of 1f1b (the default), interleaved, zb1p, dualpipe")
    dual = text == "dualpipe"
    for bad, why in (
        (pp < 2, "it schedules a pipeline: give --pp 2 or more"),
        (v > 1, f"it runs one model chunk a stage; v = {v} chunks are interleaved 1F1B's"),
        (convention != "derive", f"the {convention} preset counts 1F1B: give --convention derive"),
        (dual and pp % 2 == 1, f"DualPipe runs an even pp (device i holds stages i and pp − 1 − i): pp = {pp}"),
        (dual and bool(microbatches % 2 or microbatches < 2 * pp),
         f"DualPipe feeds M/2 micro-batches from each end, M even and at least 2·pp (dualpipe.py): M = {microbatches}, pp = {pp}"),
    ):  # fmt: skip
        if bad:
            raise ProblemError(where, why)
    return text


def cluster_of(spec: TrainSpec, degrees: dict[str, int]) -> Placement | None:
    """Each dim's place on the ``--mesh`` (None without one: every dim on the one link, built
    from the run's β_link when it is timed, so that the link has one description)."""
    if spec.mesh is None:
        if spec.place is not None:
            raise ProblemError(
                spec.where("place"), "places the dims on the axes of --mesh: give --mesh"
            )
        return None
    if spec.link_bandwidth is not None:
        raise ProblemError(
            spec.where("link_bandwidth"),
            "the mesh gives each axis its own bandwidth: give --mesh or --link-bandwidth, not both",
        )
    devices = math.prod(degrees.values())
    mesh = parse_mesh(spec.mesh, spec.where("mesh"))
    if mesh.devices != devices:
        sizes = " · ".join(str(a.size) for a in mesh.axes)
        raise ProblemError(
            spec.where("mesh"),
            f"the axes hold {sizes} = {mesh.devices} devices; dp · tp · pp · cp = {devices}",
        )
    return place(mesh, degrees, spec.place, spec.where("place"))
