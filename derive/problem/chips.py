"""Chips: the catalogue shipped as a data file inside the package.

Every number is a :class:`Figure` that keeps its decimal text, its exact value,
its source and edition, so a worked solution can cite where it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

import sympy as sp

from derive.errors import ChipDataError, ProblemError, UnknownNameError, did_you_mean
from derive.formula.decimals import parse_positive
from derive.problem.sets.toml_file import loads_toml

_PEAK_KEY = re.compile(r"^peak_([a-z0-9_]+?)_(flop|op)_per_s$")
_SPARSE_KEY = re.compile(r"^sparse_([a-z0-9_]+?)_(flop|op)_per_s$")
_FIGURE_KEYS = {"value", "source", "edition", "note"}
# a chip's one-figure keys, in the order of Chip's fields
_SINGLE = (
    "hbm_bytes_per_s",
    "link_bytes_per_s",
    "hbm_capacity_bytes",
    "node_devices",
    "node_link_bytes_per_s",
)


@dataclass(frozen=True)
class Figure:
    """One hardware number: exact value, the text it was written as, and where it is from."""

    value: sp.Rational
    text: str
    source: str = ""
    edition: str = ""
    note: str = ""

    @property
    def overrides(self) -> str:
        """`` (override of h100's 9.89e14)`` for a number typed beside ``--chip``, else ``""``."""
        return f" ({self.source})" if self.source.startswith("override of ") else ""

    def cite(self) -> str:
        """``source, edition`` or ``given`` for a number the user typed."""
        return ", ".join(part for part in (self.source, self.edition) if part) or "given"


def custom_figure(text: str, what: str) -> Figure:
    """A number the user typed (``--peak 1.97e14``), parsed exactly."""
    return Figure(parse_positive(text, what), text.strip(), source="given")


@dataclass(frozen=True)
class Chip:
    """A chip: dense compute peaks per dtype, HBM bandwidth, link bandwidth (one way), HBM capacity."""

    name: str
    title: str
    link_name: str
    peaks: tuple[tuple[str, Figure], ...]
    hbm: Figure
    link: Figure | None
    sparse: tuple[tuple[str, Figure], ...] = ()
    """Vendors' 2:4-sparsity figures per dtype: recorded only to name the mistake, never a peak."""
    capacity: Figure | None = None  # HBM bytes per chip (decimal: 80e9 is 80 GB)
    node: Figure | None = None  # chips per node on the link (a DGX's 8 GPUs on NVLink)
    node_link: Figure | None = None  # bytes/s per chip between nodes, one way (its NICs)
    parts: tuple[tuple[str, Figure], ...] = ()
    """The peak's parts where the whitepaper gives them (``units``, ``bf16_flops_per_clock``,
    ``clock_hz``): ``--peak-from chip`` multiplies them."""
    ici: tuple[tuple[str, Figure], ...] = ()
    """A TPU's ICI: ``ici_axes`` (2 or 3) and its wraparound rule, ``ici_wraparound_axis`` (an
    axis of that many chips wraps) or ``ici_wraparound_cube`` (every axis wraps when every
    axis is a multiple of it: a slice of whole cubes)."""
    short: str = ""
    """The name a paper prints (``H100``, ``TPU v5e``; chips.toml ``short``, else the id)."""
    facts: tuple[tuple[str, Figure], ...] = ()
    """The rest of the hardware (chips.toml ``[<chip>.facts]``: on-chip memory, links, hosts,
    PCIe), each a cited exact number under its own name (its unit in the name)."""

    @property
    def display(self) -> str:
        """The paper's name of the chip: ``short``, else its id."""
        return self.short or self.name

    def peak_parts_text(self, dtype: str = "bf16") -> str | None:
        """``units=…,flops_per_clock=…,clock=…`` from the chip's rows (None without them).

        >>> f = lambda v: Figure(sp.Integer(v), str(v), "s", "e")
        >>> Chip("c", "C", "l", (), f(1), None, parts=(("units", f(2)), ("bf16_flops_per_clock", f(3)), ("clock_hz", f(5)))).peak_parts_text()
        'units=2,flops_per_clock=3,clock=5'
        """
        rows = dict(self.parts)
        names = ("units", f"{dtype}_flops_per_clock", "clock_hz")
        if any(name not in rows for name in names):
            return None
        units, per_clock, clock = (rows[name].text for name in names)
        return f"units={units},flops_per_clock={per_clock},clock={clock}"

    def default_mesh(self, devices: int) -> str | None:
        """``--mesh default``: the node's chips on the link (a switch), the nodes on ``node_link``, as a
        ``--mesh`` text; None when the chip has no node or ``devices`` is not a multiple of it.

        >>> link, nic = Figure(sp.Integer(9), "9", "s", "e"), Figure(sp.Integer(1), "1", "s", "e")
        >>> chip = Chip("c", "C", "NVLink", (), link, link, node=Figure(sp.Integer(8), "8", "s", "e"), node_link=nic)
        >>> chip.default_mesh(16), chip.default_mesh(8), chip.default_mesh(12)
        ('gpu=8@9:switch,node=2@1', 'gpu=8@9:switch', None)
        """
        if self.node is None or self.node_link is None or self.link is None:
            return None
        size = int(self.node.value)
        if devices < size or devices % size:
            return None
        inner = f"gpu={size}@{self.link.text}:switch"
        return inner if devices == size else f"{inner},node={devices // size}@{self.node_link.text}"

    def mesh_text(self, text: str, devices: int | None = None) -> str:
        """``--mesh default`` (the node's switch, or part of it, and the nodes) or ``tpu:AxB``
        (a slice) spelled out for this chip on ``devices``; any other mesh as typed."""
        typed = text.strip()
        if typed.startswith("tpu:"):
            return self.slice_mesh(typed[4:])
        if typed.lower() != "default":
            return typed
        node = int(self.node.value) if self.node is not None else 0
        n = devices or node
        if self.link is not None and node and n < node and node % n == 0:
            return f"gpu={n}@{self.link.text}:switch"  # part of one node: its switch
        built = self.default_mesh(n) if n else None
        if built is None:
            raise ProblemError(
                f"--mesh {text}",
                f"default takes chip {self.name!r}'s node from chips.toml (node_devices), "
                f"which {f'{n} devices do not fill' if node else 'it has none'}: "
                "give the axes, e.g. gpu=8@450e9:switch,node=2@50e9",
            )
        return built

    def slice_mesh(self, shape: str) -> str:
        """``--mesh tpu:4x4x4``: the slice's axes x, y, z on the chip's ICI links, each a torus
        where the chip's wraparound rule gives it one, else a line.

        >>> get_chip("tpu-v5p").slice_mesh("4x4x8"), get_chip("tpu-v5e").slice_mesh("8x16")
        ('x=4@9e10:torus,y=4@9e10:torus,z=8@9e10:torus', 'x=8@4.5e10:line,y=16@4.5e10:torus')
        """
        rows, where = dict(self.ici), f"--mesh tpu:{shape}"
        if "ici_axes" not in rows or self.link is None:
            raise ProblemError(where, f"chip {self.name!r} has no ICI torus in chips.toml")
        if not re.fullmatch(r"\d{1,4}(x\d{1,4}){0,2}", shape):
            raise ProblemError(where, "a slice's shape is AxB or AxBxC chips, e.g. tpu:4x4x4")
        sizes = [int(n) for n in shape.split("x")]
        if len(sizes) > rows["ici_axes"].value or min(sizes) < 1:
            raise ProblemError(
                where, f"a {self.name} slice has at most {rows['ici_axes'].text} axes"
            )
        cube = rows.get("ici_wraparound_cube")
        whole = cube is not None and all(n % cube.value == 0 for n in sizes)
        axis = rows.get("ici_wraparound_axis")
        return ",".join(
            f"{name}={n}@{self.link.text}:"
            + ("torus" if whole or (axis is not None and n % axis.value == 0) else "line")
            for name, n in zip("xyz", sizes, strict=False)
        )

    def overridden(self, *texts: str | None) -> Chip:
        """The chip with the texts typed beside ``--chip`` (``--peak``, ``--bandwidth``,
        ``--capacity``, ``--link-bandwidth``; None keeps its figure), each cited as an override."""

        def given(old: Figure | None, text: str | None, flag: str) -> Figure | None:
            was = f"override of {self.name}'s {old.text}" if old else f"given ({self.name}: none)"
            return old if text is None else replace(custom_figure(text, flag), source=was)

        peak, hbm, capacity, link = texts
        peaks = tuple((d, given(f, peak, "--peak") or f) for d, f in self.peaks)
        chip = replace(self, peaks=peaks, hbm=given(self.hbm, hbm, "--bandwidth") or self.hbm)
        return replace(
            chip,
            capacity=given(self.capacity, capacity, "--capacity"),
            link=given(self.link, link, "--link-bandwidth"),
        )

    def peak_dtypes(self) -> tuple[str, ...]:
        """Dtypes with a peak on this chip."""
        return tuple(d for d, _ in self.peaks)

    def peak(self, dtype: str) -> Figure:
        """The dense peak for a compute dtype; an error lists the dtypes the chip has."""
        for d, fig in self.peaks:
            if d == dtype:
                return fig
        raise UnknownNameError(
            f"compute dtype {dtype!r} on chip {self.name!r}",
            f"the chip has no {dtype} peak; it has {', '.join(self.peak_dtypes())} (choose one with --compute)",
        )

    def ridge(self, dtype: str) -> sp.Rational:
        """Ridge point peak/bandwidth in FLOPs per byte."""
        return self.peak(dtype).value / self.hbm.value


def _figure(chip: str, key: str, raw: object) -> Figure:
    where = f"chip {chip!r} key {key!r}"
    if not isinstance(raw, dict) or set(raw) - _FIGURE_KEYS or "value" not in raw:
        raise ChipDataError(where, 'must be { value = "…", source = "…", edition = "…" }')
    if not all(isinstance(v, str) for v in raw.values()):
        raise ChipDataError(where, "value, source and edition are strings")
    if not raw.get("source") or not raw.get("edition"):
        raise ChipDataError(where, "every number needs a source and an edition")
    value = parse_positive(raw["value"], f"chip {chip} {key}")
    return Figure(value, raw["value"], raw["source"], raw["edition"], raw.get("note", ""))


def _chip(name: str, table: object) -> Chip:
    if not isinstance(table, dict):
        raise ChipDataError(f"chip {name!r}", "must be a table")
    peaks: list[tuple[str, Figure]] = []
    sparse: list[tuple[str, Figure]] = []
    single: dict[str, Figure] = {}
    parts: list[tuple[str, Figure]] = []
    ici: list[tuple[str, Figure]] = []
    facts: tuple[tuple[str, Figure], ...] = ()
    for key, raw in table.items():
        peak_key = _PEAK_KEY.match(key)
        if key in ("title", "link_name", "short"):
            continue
        sparse_match = _SPARSE_KEY.match(key)
        if peak_key:
            peaks.append((peak_key.group(1), _figure(name, key, raw)))
        elif sparse_match:
            sparse.append((sparse_match.group(1), _figure(name, key, raw)))
        elif key in _SINGLE:
            single[key] = figure = _figure(name, key, raw)
            if key == "node_devices" and figure.value != int(figure.value):
                raise ChipDataError(f"chip {name!r} key {key!r}", "a whole number of chips")
        elif key in ("units", "clock_hz") or key.endswith("_flops_per_clock"):
            parts.append((key, _figure(name, key, raw)))
        elif key in ("ici_axes", "ici_wraparound_axis", "ici_wraparound_cube"):
            ici.append((key, _figure(name, key, raw)))
        elif key == "facts" and isinstance(raw, dict):
            facts = tuple((k, _figure(name, f"facts.{k}", v)) for k, v in raw.items())
        else:
            raise ChipDataError(
                f"chip {name!r} key {key!r}",
                "unknown key (allowed: title, short, link_name, peak_<dtype>_flop_per_s, peak_<dtype>_op_per_s, sparse_<dtype>_flop_per_s, sparse_<dtype>_op_per_s, hbm_bytes_per_s, hbm_capacity_bytes, link_bytes_per_s, node_devices, node_link_bytes_per_s, units, <dtype>_flops_per_clock, clock_hz, ici_axes, ici_wraparound_axis, ici_wraparound_cube, facts)",
            )
    hbm, link, capacity, node, node_link = (single.get(key) for key in _SINGLE)
    if hbm is None or not peaks:
        raise ChipDataError(f"chip {name!r}", "needs hbm_bytes_per_s and at least one peak")
    title, link_name = str(table.get("title", name)), str(table.get("link_name", "link"))
    figures = (hbm, link, tuple(sparse), capacity, node, node_link, tuple(parts), tuple(ici))
    return Chip(name, title, link_name, tuple(peaks), *figures, str(table.get("short", "")), facts)


def parse_chips(text: str, origin: str) -> dict[str, Chip]:
    """Parse a chips TOML text into chips by name; names are unique ignoring case."""
    data = loads_toml(text, origin)
    chips: dict[str, Chip] = {}
    for name, table in data.items():
        if name.lower() in {c.lower() for c in chips}:
            raise ChipDataError(f"chip {name!r}", "defined twice (names are unique ignoring case)")
        chips[name] = _chip(name, table)
    return chips


@lru_cache(maxsize=1)
def load_chips() -> dict[str, Chip]:
    """The shipped catalogue, ``derive/data/chips.toml``."""
    text = resources.files("derive").joinpath("data/chips.toml").read_text(encoding="utf-8")
    return parse_chips(text, "derive/data/chips.toml")


def chip_names() -> tuple[str, ...]:
    """Names of the shipped chips, in file order."""
    return tuple(load_chips())


def get_chip(name: str) -> Chip:
    """A shipped chip by name (case-insensitive); the error lists what exists."""
    for chip_name, chip in load_chips().items():
        if isinstance(name, str) and chip_name.lower() == name.strip().lower():
            return chip
    raise UnknownNameError(
        f"chip {name!r}",
        f"unknown chip; known: {', '.join(load_chips())}" + did_you_mean(name, load_chips()),
    )


def spelled_mesh(text: str, chip: Chip | str | None, devices: int | None = None) -> str:
    """``--mesh`` as axes: ``default`` and ``tpu:AxB`` built from ``chip`` (a chip or its
    name, looked up only then; refused without one), any other mesh as typed."""
    if text.strip().lower() != "default" and not text.strip().startswith("tpu:"):
        return text
    if chip is None:
        raise ProblemError(f"--mesh {text}", "built from the chip's node or ICI: give --chip")
    return (get_chip(chip) if isinstance(chip, str) else chip).mesh_text(text, devices)
