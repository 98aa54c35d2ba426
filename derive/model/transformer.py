"""Declaring a whole model: the ``Transformer`` record (a contract: model files import it).

>>> from derive import Transformer
>>> gpt2 = Transformer(name="gpt2-small", layers=12, d_model=768, heads=12, d_ff=3072,
...                    mlp="plain", vocab=50257, tied_embeddings=True, positions=1024,
...                    bias=True, norm="layernorm")
>>> gpt2.kv_heads, gpt2.head_dim
(12, 64)

Any size field may be a dim made with :func:`derive.dims` (``layers=L``); everything
derived then stays symbolic in it. The record is frozen and validated on creation;
an invalid declaration raises a :class:`~derive.errors.DeclarationError` naming the
model and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.declare.operator import is_dim
from derive.errors import DeclarationError
from derive.formula.limits import show

__all__ = ["RESERVED_DIMS", "SIZE_FIELDS", "Mlp", "Norm", "Transformer"]

MODEL_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

# The dims a model's derivation uses for itself: batch and context.
RESERVED_DIMS = ("B", "S")

# Size fields in declaration order: each a positive integer or an expression in dims.
SIZE_FIELDS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "d_ff", "vocab")


class Mlp(str, Enum):
    """The MLP of a block: ``gated`` (gate, up, down: 3·d·f) or ``plain`` (up, down: 2·d·f)."""

    GATED = "gated"
    PLAIN = "plain"

    @property
    def matrices(self) -> int:
        """Weight matrices of shape d × f (or f × d) per MLP."""
        return 3 if self is Mlp.GATED else 2


class Norm(str, Enum):
    """The normalisation: ``rms`` (a weight), ``layernorm`` (a weight and a bias), or none."""

    RMS = "rms"
    LAYERNORM = "layernorm"
    NONE = "none"

    @property
    def vectors(self) -> int:
        """Vectors of length d per norm: rms 1 (γ), layernorm 2 (γ, β), none 0."""
        return {Norm.RMS: 1, Norm.LAYERNORM: 2, Norm.NONE: 0}[self]


def _size(model: str, field: str, value: object) -> sp.Expr:
    """A size field: a positive int, or an expression in dims (never a float, never text)."""
    where = f"model {model!r} {field}"
    if isinstance(value, bool) or not isinstance(value, (int, sp.Expr)):
        raise DeclarationError(
            where,
            f"must be a positive integer or an expression in dims, got {type(value).__name__} {value!r}",
        )
    expr = sp.Integer(value) if isinstance(value, int) else value
    bad = sorted(str(s) for s in expr.free_symbols if not is_dim(s))
    if bad:
        raise DeclarationError(
            where,
            f"unknown dim {bad[0]!r}: dims are made with derive.dims(...) (positive integers)",
        )
    reserved = sorted(s.name for s in expr.free_symbols if s.name in RESERVED_DIMS)
    if reserved:
        raise DeclarationError(
            where,
            f"the dim {reserved[0]!r} is reserved (B is the batch, S the context length); name it otherwise",
        )
    if expr.is_number and not (expr.is_integer and expr.is_positive):
        raise DeclarationError(where, f"must be a positive integer, got {expr}")
    if expr.is_positive is not True:  # -L, or L - 1 (zero at L = 1): a count is never that
        raise DeclarationError(
            where, f"must be positive for every value of its dims, got {show(str(expr))}"
        )
    return expr


def _numbers(*values: sp.Expr) -> bool:
    return all(v.is_number for v in values)


@dataclass(frozen=True, kw_only=True)
class Transformer:
    """A decoder-only transformer, declared by its sizes.

    Args:
        name: the model's name (letters, digits, ``_ . -``), unique among loaded models.
        layers: number of blocks L.
        d_model: width d of the residual stream.
        heads: query heads h.
        kv_heads: key/value heads (GQA; default ``heads``, i.e. multi-head attention).
        head_dim: width of a head (default ``d_model / heads``).
        d_ff: hidden width f of the MLP (of one expert, for a mixture of experts).
        mlp: ``"gated"`` (gate, up, down: 3·d·f) or ``"plain"`` (up, down: 2·d·f).
        vocab: vocabulary size V.
        tied_embeddings: the output head reuses the embedding table (untied adds d·V).
        positions: rows of a learned position table (GPT-2: 1024), or None.
        bias: biases on every linear layer of the blocks (the head has none).
        norm: ``"rms"`` (weight), ``"layernorm"`` (weight + bias) or None; 2 per block + 1 final.
        experts: E copies of the MLP (a mixture of experts), with a d·E router; or None.
        top_k: experts active per token (required with ``experts``).
        doc: one line on what the model is and where its numbers come from.
    """

    name: str
    # sizes: an int or an expression in dims (sympy's types are Any to the type checker)
    layers: sp.Expr
    d_model: sp.Expr
    heads: sp.Expr
    kv_heads: sp.Expr = None
    head_dim: sp.Expr = None
    d_ff: sp.Expr
    mlp: Mlp | str = Mlp.GATED
    vocab: sp.Expr
    tied_embeddings: bool = False
    positions: sp.Expr = None
    bias: bool = False
    norm: Norm | str | None = Norm.RMS
    experts: sp.Expr = None
    top_k: sp.Expr = None
    doc: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not MODEL_NAME_RE.match(self.name):
            raise DeclarationError(
                f"model {self.name!r}",
                "the name is 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit",
            )
        self._set_choices()
        self._set_sizes()
        self._check_heads()
        self._check_experts()
        if not isinstance(self.doc, str):
            raise DeclarationError(f"model {self.name!r} doc", "must be a string")

    def _set(self, field: str, value: object) -> None:
        object.__setattr__(self, field, value)

    def _set_choices(self) -> None:
        where = f"model {self.name!r}"
        try:
            self._set("mlp", Mlp(self.mlp))
        except ValueError:
            raise DeclarationError(
                f"{where} mlp", f"must be 'gated' or 'plain', got {self.mlp!r}"
            ) from None
        try:
            self._set("norm", Norm.NONE if self.norm is None else Norm(self.norm))
        except ValueError:
            raise DeclarationError(
                f"{where} norm", f"must be 'rms', 'layernorm' or None, got {self.norm!r}"
            ) from None
        for flag in ("tied_embeddings", "bias"):
            if not isinstance(getattr(self, flag), bool):
                raise DeclarationError(
                    f"{where} {flag}", f"must be True or False, got {getattr(self, flag)!r}"
                )

    def _set_sizes(self) -> None:
        if self.kv_heads is None:
            self._set("kv_heads", self.heads)
        if self.head_dim is None:
            d, h = (_size(self.name, f, getattr(self, f)) for f in ("d_model", "heads"))
            if _numbers(d, h) and d % h:
                raise DeclarationError(
                    f"model {self.name!r} head_dim",
                    f"not given and d_model {d} is not divisible by heads {h}; give head_dim",
                )
            self._set("head_dim", d / h)
        for field in SIZE_FIELDS:
            self._set(field, _size(self.name, field, getattr(self, field)))
        for field in ("positions", "experts", "top_k"):
            if getattr(self, field) is not None:
                self._set(field, _size(self.name, field, getattr(self, field)))

    def _check_heads(self) -> None:
        h, kv = self.heads, self.kv_heads
        if _numbers(h, kv) and (kv > h or h % kv):
            raise DeclarationError(
                f"model {self.name!r} kv_heads",
                f"heads {h} must be a multiple of kv_heads {kv} (each KV head serves heads/kv_heads query heads)",
            )

    def _check_experts(self) -> None:
        where = f"model {self.name!r}"
        if (self.experts is None) != (self.top_k is None):
            missing = "top_k" if self.top_k is None else "experts"
            raise DeclarationError(
                f"{where} {missing}", "experts and top_k are given together (a mixture of experts)"
            )
        experts, top_k = self.experts, self.top_k
        if experts is not None and _numbers(experts, top_k) and top_k > experts:
            raise DeclarationError(
                f"{where} top_k",
                f"top_k {top_k} exceeds experts {experts} (a token uses at most every expert)",
            )

    @property
    def mlp_kind(self) -> Mlp:
        """The MLP as its enum (``mlp`` after validation)."""
        return Mlp(self.mlp)

    @property
    def norm_kind(self) -> Norm:
        """The norm as its enum (``norm`` after validation; None became ``Norm.NONE``)."""
        return Norm(self.norm)

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts."""
        return self.experts is not None

    @property
    def free_dims(self) -> tuple[sp.Symbol, ...]:
        """The dims the declaration leaves free, sorted by name."""
        syms: set[sp.Symbol] = set()
        for field in SIZE_FIELDS + ("positions", "experts", "top_k"):
            value = getattr(self, field)
            if value is not None:
                syms |= value.free_symbols
        return tuple(sorted(syms, key=lambda s: s.name))

    def describe(self) -> str:
        """One line: the architecture's choices (``gated MLP, GQA 64/8, rms norms, untied``)."""
        parts = [f"{self.mlp_kind.value} MLP"]
        if self.kv_heads != self.heads:
            parts.append(f"GQA {self.heads}/{self.kv_heads} heads")
        norm = self.norm_kind
        parts.append("no norms" if norm is Norm.NONE else f"{norm.value} norms")
        parts.append("biases" if self.bias else "no biases")
        parts.append("tied head" if self.tied_embeddings else "untied head")
        if self.positions is not None:
            parts.append(f"{self.positions} learned positions")
        if self.is_moe:
            parts.append(f"{self.experts} experts, top {self.top_k}")
        return ", ".join(parts)
