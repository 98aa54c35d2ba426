"""``derive chips`` and ``derive operators``: the catalogues as tables."""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from derive.catalogue import table as q
from derive.declare.operator import Tensor
from derive.declare.registry import Registry
from derive.formula.decimals import fmt_decimal
from derive.present.formats import Document
from derive.problem.chips import load_chips
from derive.solution.notation import tex


def _text_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Columns padded to their widest cell, two spaces apart (for a terminal: no escapes)."""
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
        for row in (header, *rows)
    ]


def chips_json() -> dict[str, object]:
    """Every chip: peaks, bandwidths and ridge points per dtype, exact."""
    out: dict[str, object] = {}
    for name, chip in load_chips().items():
        nodes = (("node_devices", chip.node), ("node_link_bytes_per_s", chip.node_link))
        out[name] = {
            "title": chip.title,
            "hbm_bytes_per_s": str(chip.hbm.value),
            "hbm_capacity_bytes": str(chip.capacity.value) if chip.capacity else None,
            "link_bytes_per_s": str(chip.link.value) if chip.link else None,
            "link_name": chip.link_name,
            "peaks": {
                dtype: {
                    "flop_per_s": str(peak.value),
                    q.RIDGE.name: str(chip.ridge(dtype)),
                    "source": peak.source,
                    "edition": peak.edition,
                }
                for dtype, peak in chip.peaks
            },
            "facts": {
                key: {"value": str(f.value), "source": f.source, "edition": f.edition}
                for key, f in (*chip.parts, *chip.ici, *nodes, *chip.facts)
                if f is not None
            },
        }
    return out


_CHIPS_INTRO = (
    "Dense peaks only. Ridge = peak / HBM bandwidth, in FLOPs per byte. "
    "HBM capacity in bytes per chip, decimal (80e9 B = 80 GB = 74.5 GiB)."
)


def chips_text() -> str:
    """Every chip's ceilings and ridge points as a plain-text table."""
    rows = []
    for name, chip in load_chips().items():
        for dtype, peak in chip.peaks:
            ridge = chip.ridge(dtype)
            link = f"{chip.link_name} {chip.link.text}" if chip.link else "-"
            approx = "" if ridge.is_Integer else f" ≈ {fmt_decimal(ridge)}"
            capacity = chip.capacity.text if chip.capacity else "-"
            rows.append(
                (
                    name,
                    dtype,
                    peak.text,
                    chip.hbm.text,
                    capacity,
                    f"{ridge}{approx}",
                    link,
                    peak.cite(),
                )
            )
    header = (
        "chip",
        "dtype",
        "peak FLOP/s",
        "HBM B/s",
        "HBM capacity B",
        q.RIDGE.name,
        "link B/s",
        "source",
    )
    return "\n".join([_CHIPS_INTRO, "", *_text_table(header, rows)]) + "\n"


def _shape(shape: tuple[sp.Expr, ...]) -> str:
    return "[" + ", ".join(str(extent) for extent in shape) + "]"


def _tensors(tensors: tuple[Tensor, ...]) -> str:
    return ", ".join(f"{t.name}{_shape(t.shape)}" for t in tensors) or "—"


def operators_json(registry: Registry) -> dict[str, object]:
    """Every operator with its dims, FLOPs and tensors."""
    return {
        operator.name: {
            "doc": operator.doc,
            "dims": [dim.name for dim in operator.dims],
            q.FLOPS.name: str(operator.flops),
            "reads": {t.name: _shape(t.shape) for t in operator.reads},
            "writes": {t.name: _shape(t.shape) for t in operator.writes},
            "comms": {t.name: _shape(t.shape) for t in operator.comms},
        }
        for operator in registry.operators
    }


def chips_document() -> Document:
    """``derive chips``: the table as text (the default) or Markdown (``chips.md.j2``), or
    the JSON object."""
    context = {"intro": _CHIPS_INTRO, "chips": load_chips(), "tex": tex, "decimal": fmt_decimal}
    return Document("chips", context, chips_json, written={"text": chips_text})


def operators_document(registry: Registry) -> Document:
    """``derive operators``: the list as text (the default) or Markdown (``operators.txt.j2``,
    ``operators.md.j2``), or the JSON object."""
    context = {"registry": registry, "tensors": _tensors, "tex": tex}
    return Document("operators", context, lambda: operators_json(registry))
