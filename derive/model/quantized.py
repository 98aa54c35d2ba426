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

_METHODS = ("fp8", "gptq", "awq", "bitsandbytes")


_SIDES = range(1, 10**6)


def _count(value: object, allowed: range) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in allowed


def weights_dtype(config: object, where: str) -> Dtype:
    """The dtype ``quantization_config`` stores the weights in (one line naming what it cannot read)."""
    at = f"{where} field 'quantization_config'"
    method = config.get("quant_method") if isinstance(config, dict) else None
    if not isinstance(config, dict) or method not in _METHODS:
        why = f"unknown quant_method {str(method)[:40]!r}; derive reads {', '.join(_METHODS)}"
        raise ProblemError(at, why)
    if method == "fp8":
        fmt, block = config.get("fmt", "e4m3"), config.get("weight_block_size") or []
        sides = isinstance(block, list) and len(block) in (0, 2)
        if fmt not in ("e4m3", "e5m2") or not (sides and all(_count(n, _SIDES) for n in block)):
            raise ProblemError(at, "fmt is e4m3 or e5m2, weight_block_size two positive sides")
        base, scale = get_dtype(f"fp8_{fmt}"), sp.Rational(4, block[0] * block[1]) if block else 0
        note = (
            f"a fp32 scale per {'×'.join(map(str, block))} block"
            if block
            else "a per-tensor scale left out"
        )
    elif method == "bitsandbytes":
        bits = 8 if config.get("load_in_8bit") is True else 4 if config.get("load_in_4bit") else 0
        if not bits:
            raise ProblemError(at, "bitsandbytes without load_in_8bit or load_in_4bit is true")
        base, scale, note = get_dtype(f"int{bits}"), 0, "its absmax scales left out"
    else:  # GPTQConfig's and AwqConfig's defaults: 4 bits, groups of 128
        bits, group = config.get("bits", 4), config.get("group_size", 128)
        if not (_count(bits, range(4, 9, 4)) and _count(group, range(-1, 10**6))):
            raise ProblemError(at, "bits must be 4 or 8 and group_size an integer")
        base = get_dtype(f"int{bits}")
        scale = (2 + base.width) / group if group > 0 else 0
        note = (
            f"a fp16 scale and a zero per {group}" if group > 0 else "a scale per column left out"
        )
    note = f"from the config's quantization_config; {note}; every weight at this width"
    return Dtype(base.name, base.width + scale, base.compute_as, note)
