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
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.declare.operator import is_dim
from derive.declare.registry import ModelDeclaration
from derive.errors import DeclarationError
from derive.formula.limits import show
from derive.problem.dtypes import Dtype

MODEL_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

# The dims a model's derivation uses for itself: batch and context.
RESERVED_DIMS = ("B", "S")

# Size fields in declaration order: each a positive integer or an expression in dims.
SIZE_FIELDS = ("layers", "d_model", "heads", "kv_heads", "head_dim", "d_ff", "vocab")
# Optional size fields (None when the architecture does not have the part).
OPTIONAL_SIZE_FIELDS = (
    "positions",
    "experts",
    "top_k",
    "shared_experts",
    "dense_layers",
    "d_ff_dense",
    "d_ff_shared",
    "window",
    "windowed_layers",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
)
# The fields of multi-head latent attention (DeepSeek-V2/V3): given together (q_lora_rank optional).
MLA_FIELDS = ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")
FLAG_FIELDS = (
    "tied_embeddings",
    "bias",
    "qkv_bias",
    "attention_bias",
    "mlp_bias",
    "qk_norm",
    "router_bias",
    "shared_gate",
    "qk_norm_full",
)


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
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if symbols and not (  # L/2 or L**-1 is no count at L = 1 (issue 37)
        expr.is_polynomial(*symbols) and all(c.is_integer for c in sp.Poly(expr, *symbols).coeffs())
    ):
        raise DeclarationError(
            where,
            f"must be an integer for every value of its dims (a polynomial in them with integer "
            f"coefficients, such as 2*L), got {show(str(expr))}",
        )
    return expr


def _numbers(*values: sp.Expr) -> bool:
    return all(v.is_number for v in values)


@dataclass(frozen=True, kw_only=True)
class Transformer(ModelDeclaration):
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
        qkv_bias: biases on the q, k and v projections only (Qwen2).
        attention_bias: biases on the q, k, v and o projections (MLA: on q_a, kv_a and o).
        mlp_bias: biases on the MLP's projections (every expert's and the shared experts').
        norm: ``"rms"`` (weight), ``"layernorm"`` (weight + bias) or None; 2 per block + 1 final.
        norms_per_block: 2 (before attention and MLP) or 4 (also after each: Gemma 2).
        qk_norm: a norm of width d_h on the queries and on the keys of every block (Qwen3).
        qk_norm_full: the q and k norms span every head, widths h·d_h and h_kv·d_h (OLMo 2).
        experts: E routed copies of the MLP (a mixture of experts), with a d·E router; or None.
        top_k: routed experts active per token (required with ``experts``).
        shared_experts: n_s experts every token uses, one MLP of width n_s·f (DeepSeek).
        dense_layers: blocks with a dense MLP instead of the experts (DeepSeek's first_k_dense_replace).
        d_ff_dense: hidden width of those dense MLPs (default ``d_ff``).
        d_ff_shared: hidden width of the shared experts' one MLP (default ``n_s·d_ff``; Qwen2-MoE).
        shared_gate: the shared experts' output is gated by a d → 1 projection (Qwen2-MoE).
        router_bias: the router adds a bias of E per block.
        window: sliding-window attention: the positions a windowed layer attends to (and caches).
        windowed_layers: how many layers are windowed (default all; Gemma 2 alternates: L/2).
        q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim: multi-head
            latent attention (DeepSeek-V2/V3): queries through a rank-r_q bottleneck (optional),
            keys and values through a latent of rank r_kv cached with a decoupled rope key of
            width d_R; a head's query/key width is d_nope + d_R (``head_dim`` is set to it).
        doc: one line on what the model is and where its numbers come from.
        source: for a model read from a config, (field, the config's field) pairs: the
            givens name each size by the config's own field name.
        stored_as: the weights' dtype the config's ``quantization_config`` gives (the
            default of ``--dtype weights=``), or None.
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
    qkv_bias: bool = False
    attention_bias: bool = False
    mlp_bias: bool = False
    norms_per_block: int = 2
    qk_norm: bool = False
    shared_experts: sp.Expr = None
    dense_layers: sp.Expr = None
    d_ff_dense: sp.Expr = None
    router_bias: bool = False
    d_ff_shared: sp.Expr = None
    shared_gate: bool = False
    qk_norm_full: bool = False
    window: sp.Expr = None
    windowed_layers: sp.Expr = None
    q_lora_rank: sp.Expr = None
    kv_lora_rank: sp.Expr = None
    qk_rope_head_dim: sp.Expr = None
    qk_nope_head_dim: sp.Expr = None
    v_head_dim: sp.Expr = None
    doc: str = ""
    source: tuple[tuple[str, str], ...] = ()
    stored_as: Dtype | None = None

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
        self._check_layers()
        if not isinstance(self.doc, str):
            raise DeclarationError(f"model {self.name!r} doc", "must be a string")
        if self.stored_as is not None and not isinstance(self.stored_as, Dtype):
            raise DeclarationError(f"model {self.name!r} stored_as", "must be a Dtype or None")
        if not isinstance(self.source, tuple) or not all(
            isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
            for pair in self.source
        ):
            raise DeclarationError(
                f"model {self.name!r} source", "must be (field, config field) pairs"
            )

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
        for flag in FLAG_FIELDS:
            if not isinstance(getattr(self, flag), bool):
                raise DeclarationError(
                    f"{where} {flag}", f"must be True or False, got {getattr(self, flag)!r}"
                )
        if isinstance(self.norms_per_block, bool) or self.norms_per_block not in (2, 4):
            raise DeclarationError(
                f"{where} norms_per_block",
                f"must be 2 (before attention and MLP) or 4 (also after each), got {self.norms_per_block!r}",
            )

    def _set_sizes(self) -> None:
        if self.kv_heads is None:
            self._set("kv_heads", self.heads)
        mla = [f for f in MLA_FIELDS if getattr(self, f) is not None]
        if mla and len(mla) != len(MLA_FIELDS):
            missing = next(f for f in MLA_FIELDS if getattr(self, f) is None)
            raise DeclarationError(
                f"model {self.name!r} {missing}",
                f"latent attention needs {', '.join(MLA_FIELDS)} together",
            )
        if self.q_lora_rank is not None and not mla:
            raise DeclarationError(
                f"model {self.name!r} q_lora_rank",
                "is a part of latent attention: give kv_lora_rank",
            )
        if mla:
            nope = _size(self.name, "qk_nope_head_dim", self.qk_nope_head_dim)
            rope = _size(self.name, "qk_rope_head_dim", self.qk_rope_head_dim)
            if (
                self.head_dim is not None
                and _size(self.name, "head_dim", self.head_dim) != nope + rope
            ):
                raise DeclarationError(
                    f"model {self.name!r} head_dim",
                    "with latent attention a head's query/key width is qk_nope_head_dim + qk_rope_head_dim",
                )
            self._set("head_dim", nope + rope)
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
        for field in OPTIONAL_SIZE_FIELDS:
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

    def _check_layers(self) -> None:
        """Dense layers, shared experts and their width need experts; windowed layers a window."""
        where = f"model {self.name!r}"
        for field in ("shared_experts", "dense_layers", "d_ff_dense", "router_bias"):
            if getattr(self, field) not in (None, False) and not self.is_moe:
                raise DeclarationError(
                    f"{where} {field}", "is a part of a mixture of experts: give experts and top_k"
                )
        for field in ("d_ff_shared", "shared_gate"):
            if getattr(self, field) not in (None, False) and self.shared_experts is None:
                raise DeclarationError(
                    f"{where} {field}", "is a part of the shared experts: give shared_experts"
                )
        if self.qk_norm_full and not self.qk_norm:
            raise DeclarationError(f"{where} qk_norm_full", "is a kind of q/k norm: give qk_norm")
        if self.d_ff_dense is not None and self.dense_layers is None:
            raise DeclarationError(
                f"{where} d_ff_dense", "is the width of the dense layers: give dense_layers"
            )
        if self.windowed_layers is not None and self.window is None:
            raise DeclarationError(f"{where} windowed_layers", "needs a window")
        if self.window is not None and self.windowed_layers is None:
            self._set("windowed_layers", self.layers)
        for field in ("dense_layers", "windowed_layers"):
            value = getattr(self, field)
            if value is not None and _numbers(value, self.layers) and value > self.layers:
                raise DeclarationError(
                    f"{where} {field}", f"{value} exceeds the model's {self.layers} layers"
                )

    def biased(self, projection: str) -> bool:
        """Whether a projection has a bias: ``q k v`` (and MLA's ``q_a kv_a``), ``o`` or ``mlp``."""
        if self.bias:
            return projection not in ("q_b", "kv_b", "q_full")
        if projection in ("q", "k", "v"):
            return self.qkv_bias or self.attention_bias
        if projection in ("o", "q_a", "kv_a"):
            return self.attention_bias
        return self.mlp_bias if projection == "mlp" else False

    @property
    def is_mla(self) -> bool:
        """True for multi-head latent attention."""
        return self.kv_lora_rank is not None

    def pair_flops(
        self, value: Callable[[str], sp.Expr] | None = None, absorbed: bool = True
    ) -> sp.Expr:
        """One layer's attention FLOPs per (query, key) pair, 2 per multiply-add of each head's
        score q·k and value p·v: 4·h·d_h. Latent attention absorbed, over the cached latent and
        rope key (2·h·(2·r_kv + d_R), as a decode step runs it), or per head (2·h·(d_nope + d_R
        + d_v), as training runs it). ``value``: a field's number or symbol (default its own)."""
        get = value or (lambda key: getattr(self, key))
        if not self.is_mla:
            return 4 * get("heads") * get("head_dim")
        if absorbed:
            return 2 * get("heads") * (2 * get("kv_lora_rank") + get("qk_rope_head_dim"))
        dims = ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
        return 2 * get("heads") * sp.Add(*map(get, dims))

    def attention_layers(
        self, value: Callable[[str], sp.Expr] | None = None
    ) -> tuple[tuple[sp.Expr, sp.Expr | None], ...]:
        """The layers by what they attend to: (count, None) over the whole context, (count,
        window) over the last ``window`` positions."""
        get = value or (lambda key: getattr(self, key))
        if self.window is None:
            return ((get("layers"), None),)
        win = get("windowed_layers")
        return ((get("layers") - win, None), (win, get("window")))

    @property
    def moe_layers(self) -> sp.Expr:
        """Blocks whose MLP is the experts: L − dense_layers (all L without dense layers)."""
        return self.layers - (self.dense_layers or 0)

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
        for field in SIZE_FIELDS + OPTIONAL_SIZE_FIELDS:
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
        biases = [
            name
            for name, flag in (
                ("qkv", self.qkv_bias),
                ("attention", self.attention_bias),
                ("MLP", self.mlp_bias),
            )
            if flag
        ]
        parts.append(
            "biases" if self.bias else f"{' and '.join(biases)} biases" if biases else "no biases"
        )
        parts.append("tied head" if self.tied_embeddings else "untied head")
        parts += [
            text
            for shown, text in (
                (self.positions is not None, f"{self.positions} learned positions"),
                (self.is_moe, f"{self.experts} experts, top {self.top_k}"),
                (self.shared_experts is not None, f"{self.shared_experts} shared"),
                (self.dense_layers is not None, f"{self.dense_layers} dense layers"),
                (self.is_mla, f"latent attention (r_kv {self.kv_lora_rank})"),
                (self.window is not None, f"window {self.window} on {self.windowed_layers} layers"),
                (self.qk_norm, "q/k norms" + (" over every head" if self.qk_norm_full else "")),
                (self.shared_gate, "gated shared expert"),
            )
            if shown
        ]
        return ", ".join(parts)
