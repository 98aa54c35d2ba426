"""The weights' dtype a config's ``quantization_config`` stores them in, with its scales.

A block format's scales are counted in the width, as :mod:`derive.problem.dtypes` counts
mxfp4's, where the format's layout says how many there are per element:

- ``fp8`` (DeepSeek-V3's README_WEIGHTS): e4m3 or e5m2 values, a fp32 ``weight_scale_inv``
  per ``weight_block_size`` block: 1 + 4/(a·b) B (whole blocks; a side that is no multiple
  of the block is zero-padded, a part-block's scale more);
- ``gptq``, ``awq`` (packed ``qweight``, fp16 ``scales`` and packed ``qzeros`` per group of
  ``group_size`` inputs and per output): bits/8 + (2 + bits/8)/g B; GPTQ's ``g_idx`` (4 B
  per input row) left out; no groups (``group_size`` −1): a scale per column, left out;
- ``bitsandbytes`` ``load_in_8bit``/``load_in_4bit``: the values alone (its per-row or
  per-block absmax scales are left out: the config does not give their layout).

Every weight is sized at that width: the few a checkpoint keeps wider (the embedding, the
head, the norms) are not told apart, and the Given line says so. An unknown
``quant_method`` is refused in one line naming it.

>>> weights_dtype({"quant_method": "fp8", "weight_block_size": [128, 128]}, "c").width
4097/4096
"""

from __future__ import annotations

import sympy as sp

from derive.errors import ProblemError
from derive.problem.dtypes import Dtype, get_dtype

__all__ = ["weights_dtype"]

_METHODS = ("fp8", "gptq", "awq", "bitsandbytes")


def _int(config: dict, key: str, where: str, allowed: tuple[int, ...] = ()) -> int | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or (allowed and value not in allowed):
        want = " or ".join(map(str, allowed)) if allowed else "an integer"
        raise ProblemError(f"{where} field 'quantization_config.{key}'", f"must be {want}")
    return value


def weights_dtype(config: object, where: str) -> Dtype:
    """The dtype ``quantization_config`` stores the weights in (one line naming what it cannot read)."""
    at = f"{where} field 'quantization_config'"
    method = config.get("quant_method") if isinstance(config, dict) else None
    if not isinstance(config, dict) or method not in _METHODS:
        raise ProblemError(
            at, f"unknown quant_method {str(method)[:40]!r}; derive reads {', '.join(_METHODS)}"
        )
    if method == "fp8":
        fmt, block = config.get("fmt", "e4m3"), config.get("weight_block_size")
        if fmt not in ("e4m3", "e5m2"):
            raise ProblemError(f"{at[:-1]}.fmt'", f"{str(fmt)[:40]!r} is not e4m3 or e5m2")
        if block is None:
            return Dtype(f"fp8_{fmt}", sp.Integer(1), "fp8", _said("a per-tensor scale left out"))
        if not (isinstance(block, list) and len(block) == 2 and all(map(_side, block))):
            raise ProblemError(f"{at[:-1]}.weight_block_size'", "must be two positive sides")
        scale = f"a fp32 scale per {block[0]}×{block[1]} block"
        return Dtype(f"fp8_{fmt}", 1 + sp.Rational(4, block[0] * block[1]), "fp8", _said(scale))
    if method == "bitsandbytes":
        bits = 8 if config.get("load_in_8bit") is True else 4 if config.get("load_in_4bit") else 0
        if not bits:
            raise ProblemError(at, "bitsandbytes without load_in_8bit or load_in_4bit is true")
        base = get_dtype(f"int{bits}")
        return Dtype(base.name, base.width, base.compute_as, _said("its absmax scales left out"))
    bits = _int(config, "bits", where, (4, 8)) or 4
    group = _int(config, "group_size", where)
    group = 128 if group is None else group  # GPTQConfig's and AwqConfig's default
    base = get_dtype(f"int{bits}")
    if group < 1:
        return Dtype(base.name, base.width, base.compute_as, _said("a scale per column left out"))
    width = base.width + (2 + base.width) / group
    return Dtype(base.name, width, base.compute_as, _said(f"a fp16 scale and a zero per {group}"))


def _side(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 10**6


def _said(note: str) -> str:
    return f"from the config's quantization_config; {note}; every weight at this width"
