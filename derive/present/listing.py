"""``derive chips`` and ``derive operators``: the catalogues as tables."""

from __future__ import annotations

from derive.declare.registry import Registry
from derive.present.notation import tex
from derive.present.render import md_escape
from derive.problem.chips import load_chips
from derive.problem.decimals import fmt_decimal

__all__ = ["chips_json", "chips_markdown", "operators_json", "operators_markdown"]


def chips_json() -> dict:
    """Every chip: peaks, bandwidths and ridge points per dtype, exact."""
    out = {}
    for name, c in load_chips().items():
        out[name] = {
            "title": c.title,
            "hbm_bytes_per_s": str(c.hbm.value),
            "hbm_capacity_bytes": str(c.capacity.value) if c.capacity else None,
            "link_bytes_per_s": str(c.link.value) if c.link else None,
            "link_name": c.link_name,
            "peaks": {
                d: {
                    "flop_per_s": str(f.value),
                    "ridge": str(c.ridge(d)),
                    "source": f.source,
                    "edition": f.edition,
                }
                for d, f in c.peaks
            },
        }
    return out


def chips_markdown() -> str:
    """A Markdown table of every chip's ceilings and ridge points."""
    lines = [
        "# Chips",
        "",
        "Dense peaks only. Ridge = peak / HBM bandwidth, in FLOPs per byte. "
        "HBM capacity in bytes per chip, decimal (80e9 B = 80 GB = 74.5 GiB).",
        "",
        "| chip | dtype | peak (FLOP/s) | HBM (B/s) | HBM capacity (B) | ridge | link (B/s, one way) | source |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, c in load_chips().items():
        for d, f in c.peaks:
            r = c.ridge(d)
            link = f"{c.link_name} {c.link.text}" if c.link else "—"
            capacity = c.capacity.text if c.capacity else "—"
            lines.append(
                f"| {name} | {d} | {f.text} | {c.hbm.text} | {capacity} | ${tex(r)}$ ≈ {fmt_decimal(r)} | {link} | {md_escape(f.cite())} |"
            )
    return "\n".join(lines) + "\n"


def _shape(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def operators_json(reg: Registry) -> dict:
    """Every operator with its dims, FLOPs and tensors."""
    return {
        op.name: {
            "doc": op.doc,
            "dims": [d.name for d in op.dims],
            "flops": str(op.flops),
            "reads": {t.name: _shape(t.shape) for t in op.reads},
            "writes": {t.name: _shape(t.shape) for t in op.writes},
            "comms": {t.name: _shape(t.shape) for t in op.comms},
        }
        for op in reg.operators
    }


def operators_markdown(reg: Registry) -> str:
    """A Markdown table of operators with shapes and FLOPs."""
    lines = [
        "# Operators",
        "",
        "| operator | reads | writes | comms | FLOPs | doc |",
        "|---|---|---|---|---|---|",
    ]
    for op in reg.operators:
        fmt = lambda ts: ", ".join(f"{t.name}{_shape(t.shape)}" for t in ts) or "—"  # noqa: E731
        lines.append(
            f"| {op.name} | {md_escape(fmt(op.reads))} | {md_escape(fmt(op.writes))} | {md_escape(fmt(op.comms))} | ${tex(op.flops)}$ | {md_escape(op.doc)} |"
        )
    return "\n".join(lines) + "\n"
