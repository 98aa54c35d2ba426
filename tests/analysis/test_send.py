"""``Send(A[E, F], hops=6)``: a point-to-point send in the book's notation, timed by the one
communication model as a pipeline's send is: the whole tensor over one link of the axis (the
mesh's outermost unless a subscript names one), each hop a step of latency (cut-through)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

E, F = 2048, 8192
V = E * F * 2  # bf16


def _send(cli, text: str, mesh: str) -> dict:
    r = cli(["solve", "--collective", text, "--dtype", "bf16", "--mesh", mesh,
             "--set", f"E={E},F={F}", "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    (one,) = json.loads(r.out)["collectives"]
    return one


@pytest.mark.parametrize(
    ("text", "beta", "alpha", "hops"),
    [
        ("Send(A[E, F], hops=6)", 5 * 10**10, Fraction(5, 10**6), 6),  # the outermost axis
        ("Send_x(A[E, F], hops=3)", 45 * 10**9, Fraction(1, 10**6), 3),
        ("Send_x(A[E, F])", 45 * 10**9, Fraction(1, 10**6), 1),
    ],
)
def test_a_send_is_the_tensor_over_one_link_and_a_latency_a_hop(cli, text, beta, alpha, hops):
    one = _send(cli, text, "x=8@4.5e10+1us:torus,node=4@5e10+5us")
    assert one["kind"] == "send" and Fraction(one["bytes"]) == V and one["steps"] == hops
    assert Fraction(one["time"]) == Fraction(V, beta) + hops * alpha


def test_a_send_names_its_hops_and_a_bad_one_is_refused(cli):
    r = cli(["solve", "--collective", "Send(A[E, F], hops=6)", "--dtype", "bf16",
             "--mesh", "x=8@4.5e10+1us", "--set", f"E={E},F={F}"])  # fmt: skip
    assert r.code == 0 and "6 hop(s)" in r.out
    r = cli(["solve", "--collective", "Send(A[E, F], hops=0)", "--dtype", "bf16",
             "--mesh", "x=8@4.5e10", "--set", f"E={E},F={F}"])  # fmt: skip
    assert r.code == 2 and "hops is at least 1" in r.err and r.err.count("\n") == 1
