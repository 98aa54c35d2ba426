"""Declaring operators: dims, tensors, and the ``Operator`` record.

This module is a contract: operator files import ``Operator``, ``Tensor`` and
``dims`` from ``derive``. Declarations are frozen and validated on creation,
with errors that name the operator and the field.

>>> B, D, F = dims("B D F")
>>> op = Operator(name="mm", flops=2*B*D*F,
...               reads=[Tensor("X", (B, D)), Tensor("Y", (D, F))],
...               writes=[Tensor("Z", (B, F))])
>>> op.bytes_expr()
B*D*w_X + B*F*w_Z + D*F*w_Y
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp

from derive.errors import DeclarationError

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DIM_ASSUMPTIONS = {"integer": True, "positive": True}


def dims(names: str) -> tuple[sp.Symbol, ...]:
    """Positive integer symbols, one per whitespace- or comma-separated name.

    >>> dims("B D F")
    (B, D, F)
    """
    parts = [name for name in re.split(r"[\s,]+", names.strip()) if name]
    for name in parts:
        if not NAME_RE.match(name):
            raise DeclarationError(
                f"dim {name!r}", "a dim name is an identifier (letters, digits, _)"
            )
    return tuple(sp.Symbol(name, **_DIM_ASSUMPTIONS) for name in parts)


def is_dim(sym: sp.Basic) -> bool:
    """True for a symbol made by :func:`dims` (positive integer)."""
    return isinstance(sym, sp.Symbol) and sym.is_integer is True and sym.is_positive is True


def width_symbol(tensor_name: str) -> sp.Symbol:
    """The byte-width symbol of a tensor, ``w_X`` for tensor ``X``."""
    return sp.Symbol(f"w_{tensor_name}", positive=True)


def _as_expr(value: object, where: str) -> sp.Expr:
    if isinstance(value, bool) or not isinstance(value, (int, sp.Expr)):
        raise DeclarationError(
            where,
            f"must be a sympy expression in dims or an int, got {type(value).__name__} {value!r}",
        )
    expr = sp.Integer(value) if isinstance(value, int) else value
    bad = [s for s in expr.free_symbols if not is_dim(s)]
    if bad:
        raise DeclarationError(
            where,
            f"unknown dim {sorted(map(str, bad))[0]!r}: dims are made with derive.dims(...) (positive integers)",
        )
    if expr.is_number and not expr.is_positive:
        raise DeclarationError(where, f"must be positive, got {expr}")
    return expr


@dataclass(frozen=True)
class Tensor:
    """A tensor an operator reads, writes or sends: a name and a shape over dims.

    ``width`` is ``None`` (a symbol ``w_<name>`` until a dtype is bound) or an
    exact positive number of bytes per element fixed by the declaration.
    """

    name: str
    shape: tuple = ()
    doc: str = ""
    width: sp.Expr | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_RE.match(self.name):
            raise DeclarationError(
                f"tensor {self.name!r}", "a tensor name is an identifier (letters, digits, _)"
            )
        if not isinstance(self.shape, (tuple, list)):
            raise DeclarationError(
                f"tensor {self.name!r}", "shape must be a tuple of expressions, () for a scalar"
            )
        shape = tuple(
            _as_expr(s, f"tensor {self.name!r} shape entry {i}") for i, s in enumerate(self.shape)
        )
        object.__setattr__(self, "shape", shape)
        if self.width is not None:
            width = self.width
            if isinstance(width, bool) or not isinstance(width, (int, sp.Rational)) or width <= 0:
                raise DeclarationError(
                    f"tensor {self.name!r} width",
                    f"must be a positive exact number of bytes, got {width!r}",
                )
            object.__setattr__(self, "width", sp.Rational(width))

    @property
    def elements(self) -> sp.Expr:
        """Number of elements: the product of the shape (1 for a scalar)."""
        return sp.Mul(*self.shape) if self.shape else sp.Integer(1)

    def renamed(self, name: str, shape: tuple[sp.Expr, ...]) -> Tensor:
        """The same tensor under another name and shape (a composite's part, dims mapped)."""
        return Tensor(name, shape, self.doc, self.width)

    @property
    def width_sym(self) -> sp.Expr:
        """The byte width: the declared number, else the symbol ``w_<name>``."""
        return self.width if self.width is not None else width_symbol(self.name)

    @property
    def bytes_term(self) -> sp.Expr:
        """Bytes moved for this tensor: width × elements."""
        return self.width_sym * self.elements


@dataclass(frozen=True)
class Operator:
    """An operator declared as sympy expressions over symbolic dims.

    Args:
        name: identifier, unique (ignoring case) among loaded operators.
        flops: FLOPs as an expression in dims.
        reads: tensors read from memory, in the order a person writes them.
        writes: tensors written to memory.
        comms: tensors sent over the chip interconnect (optional).
        doc: one line saying what it computes and its source convention.
    """

    name: str
    flops: sp.Expr
    reads: tuple[Tensor, ...] = ()
    writes: tuple[Tensor, ...] = ()
    comms: tuple[Tensor, ...] = ()
    doc: str = ""
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_RE.match(self.name):
            raise DeclarationError(
                f"operator {self.name!r}",
                "the name must be an identifier (letters, digits, _; not starting with a digit)",
            )
        where = f"operator {self.name!r}"
        if isinstance(self.flops, (int, sp.Integer)) and self.flops == 0:
            # a copy, a send: it moves its tensors and computes nothing (FLOPs 0, intensity 0)
            object.__setattr__(self, "flops", sp.Integer(0))
        else:
            object.__setattr__(self, "flops", _as_expr(self.flops, f"{where} flops"))
        for part in ("reads", "writes", "comms"):
            tensors = getattr(self, part)
            if not isinstance(tensors, (tuple, list)):
                raise DeclarationError(f"{where} {part}", "must be a list of Tensor")
            for t in tensors:
                if not isinstance(t, Tensor):
                    raise DeclarationError(
                        f"{where} {part}", f"entries must be Tensor, got {type(t).__name__}"
                    )
            names = [t.name for t in tensors]
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                raise DeclarationError(f"{where} {part}", f"tensor {dup[0]!r} is listed twice")
            object.__setattr__(self, part, tuple(tensors))
        if not self.reads and not self.writes and not self.comms:
            raise DeclarationError(
                where, "an operator reads, writes or sends (comms) at least one tensor"
            )
        widths: dict[str, object] = {}
        for t in self.tensors:
            if widths.setdefault(t.name, t.width) != t.width:
                raise DeclarationError(
                    f"{where} tensor {t.name!r}", "declared twice with different widths"
                )
        shape_dims = set().union(*(t.elements.free_symbols for t in self.tensors))
        extra = sorted(map(str, self.flops.free_symbols - shape_dims))
        if extra:
            raise DeclarationError(
                f"{where} flops", f"uses dim {extra[0]!r}, which no tensor shape has"
            )
        if not isinstance(self.doc, str):
            raise DeclarationError(f"{where} doc", "must be a string")

    @property
    def tensors(self) -> tuple[Tensor, ...]:
        """Every tensor: reads, writes, then comms."""
        return self.reads + self.writes + self.comms

    @property
    def memory_tensors(self) -> tuple[Tensor, ...]:
        """Tensors that move through memory: reads then writes."""
        return self.reads + self.writes

    @property
    def tensor_names(self) -> tuple[str, ...]:
        """Distinct tensor names in declaration order."""
        return tuple(dict.fromkeys(t.name for t in self.tensors))

    @cached_property
    def dims(self) -> tuple[sp.Symbol, ...]:
        """The operator's dims, in order of first appearance in the shapes (then the group
        of a collective sent over P devices, when P is a dim)."""
        seen: dict[sp.Symbol, None] = {}
        for t in self.tensors:
            for s in t.shape:
                for sym in sorted(s.free_symbols, key=lambda x: x.name):
                    seen.setdefault(sym, None)
        for t in self.comms:
            for sym in getattr(t, "group_dims", ()):
                seen.setdefault(sym, None)
        return tuple(seen)

    def dim(self, name: str) -> sp.Symbol | None:
        """The dim called ``name``, or None."""
        return next((d for d in self.dims if d.name == name), None)

    def bytes_expr(self) -> sp.Expr:
        """Memory bytes with symbolic widths: Σ width × elements over reads and writes."""
        return sp.Add(*(t.bytes_term for t in self.memory_tensors))

    def comm_bytes_expr(self) -> sp.Expr:
        """Interconnect bytes: Σ width × elements over comms."""
        return sp.Add(*(t.bytes_term for t in self.comms))
