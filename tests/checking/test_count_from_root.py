"""A count solved from an equation: the real root a student types is right, with a note naming
the count, unless the problem says ``count_from_root = "reject"`` (issue 47).

The problem: how many 3-byte parameters fit in 16 GB (N · width <= capacity); its root is
16·10⁹/3, not an integer, and the count is the largest integer below it. Both are computed
here from the givens.
"""

from __future__ import annotations

from fractions import Fraction
from math import floor

import pytest

ROOT_N = Fraction(16 * 10**9, 3)  # capacity / width, a decimal GB being 10⁹ bytes
COUNT = floor(ROOT_N)


def _set(tmp_path, extra: str = ""):
    path = tmp_path / "fit.toml"
    path.write_text(
        'title = "Counts"\n[[problem]]\nid = "fit"\n'
        'text = "How many 3-byte parameters fit in 16 GB?"\n'
        'given = { capacity = "16 GB", width = "3 bytes" }\n'
        'equations = ["N * width <= capacity"]\nunknowns = ["N"]\n' + extra,
        encoding="utf-8",
    )
    return path


def _check(cli, path, claim: str, *flags: str):
    return cli(["check", "--problem-set", str(path), "--problem", "fit", "--quantity", "N",
                "--claim", claim, *flags])  # fmt: skip


@pytest.mark.parametrize(
    "claim", [f"{ROOT_N.numerator}/{ROOT_N.denominator}", f"{float(ROOT_N):.1f}"]
)
def test_the_real_root_is_right_and_the_count_is_named(cli, tmp_path, claim):
    out = _check(cli, _set(tmp_path), claim)
    assert out.code == 0 and out.out.startswith("verdict: correct"), out.out + out.err
    assert "real root" in out.out and f"N = {COUNT}" in out.out, out.out
    hidden = _check(cli, _set(tmp_path), claim, "--hide-expected")
    assert hidden.out.startswith("verdict: correct") and str(COUNT) not in hidden.out


def test_the_set_may_reject_the_root_and_says_the_count(cli, tmp_path):
    path = _set(tmp_path, 'count_from_root = "reject"\n')
    out = _check(cli, path, f"{float(ROOT_N):.1f}")
    assert out.code == 1 and out.out.startswith("verdict: incorrect"), out.out + out.err
    assert "real root, not the count asked" in out.out and f"N = {COUNT}" in out.out
    assert _check(cli, path, str(COUNT)).out.startswith("verdict: correct")


@pytest.mark.parametrize("claim", [str(COUNT + 1), str(COUNT - 1), f"{float(ROOT_N) * 1.02:.1f}"])
def test_a_wrong_count_stays_wrong(cli, tmp_path, claim):
    out = _check(cli, _set(tmp_path), claim)
    assert out.out.startswith("verdict: incorrect"), out.out


@pytest.mark.parametrize("value", ['"maybe"', "1"])
def test_count_from_root_is_accept_or_reject(cli, tmp_path, value):
    out = cli(
        ["key", str(_set(tmp_path, f"count_from_root = {value}\n")), "-o", str(tmp_path / "k")]
    )
    assert out.code == 2 and len(out.err.splitlines()) == 1, out.err
    assert "key 'count_from_root'" in out.err and "Traceback" not in out.err
