"""CSV text of number columns with numpy: integers as ``%d``, floats as C's ``%.9g``.

Vectorised printf, faster than Python's %-formatting row by row (:func:`plain_rows`, the
library reference it is tested against; figures in benchmarks/README.md, row (e));
``derive sweep`` writes its rows with it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from derive.errors import ProblemError

_CHUNK = 1 << 14  # rows formatted at a time (the slot buffer stays in cache)
_MINUS, _DOT, _ZERO, _E, _PLUS = 45, 46, 48, 101, 43


@lru_cache(maxsize=1)
def _tables():
    """Powers of ten 10^0..10^300 (correctly rounded), the ASCII digits of 0000..9999 by
    position, and the trailing zeros of 0..9999 (4 for 0)."""
    pow10 = np.array([float(10**i) for i in range(301)])
    digits4 = (
        np.frombuffer(b"".join(b"%04d" % i for i in range(10000)), dtype=np.uint8)
        .reshape(10000, 4)
        .T.copy()
    )
    trailing0 = np.array(
        [4 if i == 0 else len(str(i)) - len(str(i).rstrip("0")) for i in range(10000)],
        dtype=np.int32,
    )
    return pow10, digits4, trailing0


def _put(out: np.ndarray, k: int, cond: np.ndarray, char: int | np.ndarray) -> int:
    """Write ``char`` (a code or an array of codes) where ``cond`` holds, NUL elsewhere, as slot k."""
    if not cond.any():
        return k
    np.multiply(cond, char, out=out[k], casting="unsafe")
    return k + 1


def _mantissa(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    pow10 = _tables()[0]
    k = 8 - e
    k1 = np.clip(k, -300, 300)
    k2 = np.clip(k - k1, 0, 300)
    p = pow10[np.abs(k1)]
    with np.errstate(over="ignore"):
        return np.rint(np.where(k >= 0, a * p * pow10[k2], a / p))


def _g9_slots(x: np.ndarray, out: np.ndarray, k: int) -> int:
    """Write the characters of ``%.9g`` of each value as slot rows ``out[k:]`` (0 = no character).

    Vectorised printf: a 9-digit mantissa m and exponent e per value, then one row
    per character position that any value uses; unused positions stay NUL and are
    squeezed out later. Equal to C's ``%.9g`` except possibly in the last digit for
    a value within half an ulp of a decimal tie. Non-finite values are refused.
    """
    if not np.isfinite(x).all():
        raise ProblemError("sweep", "a value is not finite (a division by zero?); no CSV written")
    _, digits4, trailing0 = _tables()
    a = np.abs(x)
    pos = a > 0
    allpos = bool(pos.all())
    safe = a if allpos else np.where(pos, a, 1.0)
    e = np.floor(np.log10(safe)).astype(np.int32)
    m = _mantissa(safe, e)
    low, high = m < 1e8, m >= 1e9
    if low.any() or high.any():  # log10 off by one near a power of ten
        e = e - low + high
        m = _mantissa(safe, e)
        high = m >= 1e9
        e = e + high
        m = np.where(high, 1e8, m)
    m = m.astype(np.int32)
    if not allpos:
        m, e = np.where(pos, m, 0), np.where(pos, e, 0)
    top = m // 10000
    c = m - top * 10000
    d0 = top // 10000
    b = top - d0 * 10000
    nd = 9 - np.where(c != 0, trailing0[c], 4 + np.where(b != 0, trailing0[b], 4))
    if not allpos:
        nd = np.where(pos, nd, 1)
    sci = (e < -4) | (e >= 9)
    fixneg = ~sci & (e < 0)
    fixpos = ~(sci | fixneg)
    anysci, anyfixpos = bool(sci.any()), bool(fixpos.any())
    ndig = np.where(fixpos, np.maximum(nd, e + 1), nd) if anyfixpos else nd
    k = _put(out, k, np.signbit(x), _MINUS)
    k = _put(out, k, fixneg, _ZERO)
    k = _put(out, k, fixneg, _DOT)
    for z in (2, 3, 4):
        k = _put(out, k, fixneg & (e <= -z), _ZERO)
    digits = [d0 + _ZERO] + [digits4[j][b] for j in range(4)] + [digits4[j][c] for j in range(4)]
    emin, emax = (int(e.min()), int(e.max())) if anyfixpos else (0, -1)
    for j in range(9):
        k = _put(out, k, j < ndig, digits[j])
        if j < 8:
            dot = fixpos & (e == j) & (nd > j + 1) if emin <= j <= emax else None
            if j == 0 and anysci:
                dot = sci & (nd > 1) if dot is None else dot | (sci & (nd > 1))
            if dot is not None:
                k = _put(out, k, dot, _DOT)
    if anysci:
        ae = np.abs(e)
        k = _put(out, k, sci, _E)
        k = _put(out, k, sci, np.where(e >= 0, _PLUS, _MINUS))
        k = _put(out, k, sci & (ae >= 100), ae // 100 + _ZERO)
        k = _put(out, k, sci, (ae // 10) % 10 + _ZERO)
        k = _put(out, k, sci, ae % 10 + _ZERO)
    return k


def _int_slots(v: np.ndarray, out: np.ndarray, k: int) -> int:
    """Write the decimal digits of non-negative integers below 10^16 as slot rows."""
    if v.size and (v.min() < 0 or v.max() >= 10**16):
        raise ProblemError("sweep", "an integer column is out of range")
    digits4 = _tables()[1]
    groups = [v // 10**12, (v // 10**8) % 10**4, (v // 10**4) % 10**4, v % 10**4]
    width = len(str(int(v.max()))) if v.size else 1
    ndigits = np.ones(v.shape, dtype=np.int32)
    for t in range(1, 16):
        ndigits += v >= 10**t
    for pos in range(16 - width, 16):
        g, j = divmod(pos, 4)
        k = _put(out, k, ndigits >= 16 - pos, digits4[j][groups[g]])
    return k


def format_csv(
    header: list[str], columns: list[tuple[str, np.ndarray]], *, plain: bool = False
) -> str:
    """CSV text: the header, then one row per point; each column is ``("int", int64)`` or ``("g", float64)``.

    ``plain=True`` formats with Python's ``%d`` and ``%.9g`` instead of the numpy writer:
    the same text (the tests hold the two equal), slower (benchmarks/README.md, row (e)).
    """
    rows = plain_rows(columns) if plain else csv_rows(columns)
    return ((",".join(header) + "\n").encode("ascii") + rows).decode("ascii")


def plain_rows(columns: list[tuple[str, np.ndarray]]) -> bytes:
    """The rows of a CSV with Python's %-formatting, row by row: the library reference that
    :func:`csv_rows` is tested against and benchmarked beside."""
    if not all(np.isfinite(col).all() for _, col in columns):
        raise ProblemError("sweep", "a value is not finite (a division by zero?); no CSV written")
    row = ",".join("%d" if kind == "int" else "%.9g" for kind, _ in columns) + "\n"
    return "".join(map(row.__mod__, zip(*(col.tolist() for _, col in columns)))).encode("ascii")


def csv_rows(columns: list[tuple[str, np.ndarray]]) -> bytes:
    """The rows of a CSV as ASCII bytes, built with numpy in chunks of rows: each value's
    characters go to slot rows, then the NULs of unused slots are squeezed out. Faster than
    ``numpy.savetxt`` and than :func:`plain_rows` by more than the repository's 20 % rule asks
    (row (e) of ``benchmarks/run.py``; figures in benchmarks/README.md), which is why it is
    kept."""
    n = len(columns[0][1]) if columns else 0
    parts = []
    slots = np.empty((32 * len(columns), min(n, _CHUNK) or 1), dtype=np.uint8)
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        out = slots[:, : stop - start]
        k = 0
        for i, (kind, col) in enumerate(columns):
            chunk = col[start:stop]
            k = _int_slots(chunk, out, k) if kind == "int" else _g9_slots(chunk, out, k)
            out[k] = 44 if i < len(columns) - 1 else 10
            k += 1
        flat = np.ascontiguousarray(out[:k].T).ravel()
        parts.append(flat[flat != 0].tobytes())
    return b"".join(parts)
