"""Collectives (issue 14, item 3): ring bytes per device, link time, bad declarations; a
composite with a collective as its steps read it, a group that is a dim, free dims.

The ring is simulated here chunk by chunk (who holds what, who sends what), so the
bytes a device sends are counted, not taken from derive's formula.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive import Collective, Tensor, dims
from derive.errors import DeclarationError
from tests.conftest import run_cli


def _ring_all_reduce(values: list[list[int]]) -> tuple[list[list[int]], int]:
    """Ring all-reduce of P vectors of P chunks; returns the results and chunks sent per device."""
    group = len(values)
    data = [list(v) for v in values]
    sent = [0] * group
    for step in range(group - 1):  # reduce-scatter: device i sends chunk (i - step) to i + 1
        moves = [(i, (i - step) % group, data[i][(i - step) % group]) for i in range(group)]
        for i, chunk, value in moves:
            data[(i + 1) % group][chunk] += value
            sent[i] += 1
    for step in range(group - 1):  # all-gather: device i sends its finished chunk (i + 1 - step)
        moves = [(i, (i + 1 - step) % group, data[i][(i + 1 - step) % group]) for i in range(group)]
        for i, chunk, value in moves:
            data[(i + 1) % group][chunk] = value
            sent[i] += 1
    assert len(set(sent)) == 1
    return data, sent[0]


def _ring_all_gather(group: int) -> int:
    held = [{i} for i in range(group)]
    sent = [0] * group
    for step in range(group - 1):
        for i in range(group):
            held[(i + 1) % group].add((i - step) % group)
            sent[i] += 1
    assert all(h == set(range(group)) for h in held)
    return sent[0]


def _ring_all_to_all(group: int) -> tuple[int, list[int], int]:
    """An all-to-all on a one-way ring, chunk by chunk: device s holds chunk (s, d) of each
    destination d (P² chunks of size/P² in all, P per device) and sends each d ≠ s of them
    around the ring, s → s+1 → … → d. Returns the chunks one device sends of its own, the
    chunks each link i → i+1 carries, and the longest trip in hops."""
    held = {(s, d): s for s in range(group) for d in range(group)}  # chunk -> where it is
    own = [sum(1 for d in range(group) if d != s) for s in range(group)]
    links = [0] * group
    hops = 0
    while any(at != d for (_, d), at in held.items()):
        hops += 1
        for chunk, at in list(held.items()):
            if at != chunk[1]:
                links[at] += 1
                held[chunk] = (at + 1) % group
    assert all(at == d for (_, d), at in held.items()) and len(set(own)) == 1
    return own[0], links, hops


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(1, 50), st.sampled_from([1, 2, 4]))
def test_ring_bytes_match_a_simulated_ring(group, chunk, width):
    size = group * group * chunk  # elements of the full tensor: P chunks of P·chunk
    values = [[(7 * i + j) % 11 for j in range(group)] for i in range(group)]
    result, chunks = _ring_all_reduce(values)
    assert all(row == [sum(col) for col in zip(*values, strict=True)] for row in result)
    (n,) = dims("n")
    tensor = Tensor("Y", (n,), width=width)
    expected = {
        "all_reduce": chunks,
        "all_gather": _ring_all_gather(group),
        "reduce_scatter": group - 1,  # the first half of the all-reduce
        "all_to_all": _ring_all_to_all(group)[1][0],  # chunks of size/P², the others size/P
    }
    for kind, count in expected.items():
        collective = Collective(kind, tensor, group=group)
        unit = chunk if kind == "all_to_all" else group * chunk
        assert collective.bytes_term.subs(n, size) == count * unit * width
        assert collective.steps == (2 * (group - 1) if kind == "all_reduce" else group - 1)


@pytest.mark.parametrize("group", [2, 3, 4, 5, 8, 9])
def test_an_all_to_all_is_timed_by_its_busiest_link_not_as_an_all_gather(tmp_path, group):
    """Each device holds size/P and sends (P−1)/P of it; on the ring a chunk crosses as many
    links as its distance, so the link carries more than the device's own chunks. Once
    derive timed it as an all-gather, (P−1)/P of the whole tensor per device."""
    own, links, hops = _ring_all_to_all(group)
    assert own == group - 1 and len(set(links)) == 1  # every link carries the same
    path = tmp_path / "ops.py"
    path.write_text(A2A)
    argv = ["solve", "dispatch", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set", "B=4096", "--set", "F=1024", "--set", f"P={group}", "--link-latency", "1us"]
    data = json.loads(run_cli([*argv, "--format", "json"]).out)
    size = 4096 * 1024 * 2
    chunk = Fraction(size, group * group)
    (a2a,) = data["collectives"]
    assert Fraction(a2a["size"]) == size and a2a["steps"] == hops
    assert own * chunk == Fraction(size, group) * Fraction(group - 1, group)
    assert Fraction(a2a["sent"]) == links[0] * chunk  # what leaves one device over its link
    time = links[0] * chunk / Fraction(45 * 10**10) + hops * Fraction(1, 10**6)
    assert Fraction(a2a["t_comms"]) == Fraction(data["t_comms"]) == time
    if group > 2:
        assert Fraction(a2a["sent"]) != Fraction(group - 1, group) * size  # not an all-gather
    text = run_cli(argv).out
    assert "each link carries (1 + 2 + … + P−1) · size/P² = (P−1)/(2P) × size" in text, text


A2A = """
from derive import Collective, Operator, Tensor, dims
B, F, P = dims("B F P")
dispatch = Operator(name="dispatch", flops=0,
                    comms=[Collective("all_to_all", Tensor("X", (B, F)), group=P)])
"""


OPERATORS = """
from derive import Collective, Composite, Operator, Tensor, dims
B, F = dims("B F")
all_reduce = Operator(name="tp_all_reduce", flops=0,
                      comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=8)])
copy = Operator(name="copy", flops=B * F, reads=[Tensor("X", (B, F))], writes=[Tensor("Y", (B, F))])
copy_then_reduce = Composite(name="copy_then_reduce",
                             parts=[("copy", copy, {}), ("reduce", all_reduce, {})])
"""


def test_all_reduce_of_an_8192_square_bf16_tensor_over_8_devices(tmp_path):
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    argv = ["solve", "copy_then_reduce", "--operators", str(path), "--dtype", "bf16"]
    argv += ["--chip", "h100", "--set", "B=8192", "--set", "F=8192", "--link-latency", "2us"]
    result = run_cli([*argv, "--format", "json"])
    assert result.code == 0, result
    data = json.loads(result.out)
    size = 8192 * 8192 * 2  # bf16: 2 bytes
    sent = Fraction(2 * 7, 8) * size  # ring all-reduce, P = 8
    link = Fraction(45 * 10**10)  # h100 NVLink, one way, chips.toml "4.5e11"
    time = sent / link + 14 * Fraction(2, 10**6)
    reduce_kernel = data["step"]["kernels"][1]
    assert Fraction(reduce_kernel["comms_bytes"]) == sent == 234881024
    assert Fraction(reduce_kernel["t_comms"]) == time
    copy_time = max(Fraction(8192 * 8192, 989 * 10**12), Fraction(2 * size, 335 * 10**10))
    assert Fraction(data["step"]["t_lower"]) == copy_time + time
    assert data["step"]["binding"] == "comms"
    (reduce,) = data["collectives"]
    assert (reduce["kind"], reduce["group"], reduce["steps"]) == ("all_reduce", 8, 14)
    assert Fraction(reduce["size"]) == size and Fraction(reduce["sent"]) == sent
    text = run_cli(argv).out
    assert "ring all-reduce: 2(P−1)/P × size sent per device" in text


def test_a_comms_only_operator_alone_is_timed_on_its_link(tmp_path):
    """Once refused (issue 26 item 17: comms-only operators are valid); the times are
    pinned in tests/solution/test_comms_only_steps.py."""
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    result = run_cli(
        ["solve", "tp_all_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    )
    assert result.code == 0 and "Link-bound (the interconnect binds)" in result.out


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ('Collective("all_reduce", Tensor("Y", (B,)), group=0)', "at least 2"),
        ('Collective("all_sum", Tensor("Y", (B,)), group=4)', "unknown collective"),
        ('Collective("all_gather", "Y", group=4)', "sends a Tensor"),
    ],
)
def test_bad_collectives_exit_2_with_one_line(tmp_path, declaration, message):
    path = tmp_path / "bad.py"
    path.write_text(
        "from derive import Collective, Operator, Tensor, dims\nB, = dims('B')\n"
        f"op = Operator(name='bad', flops=0, comms=[{declaration}])\n"
    )
    result = run_cli(["operators", "--operators", str(path)])
    assert result.code == 2 and result.err.count("\n") == 1, result
    assert message in result.err
    with pytest.raises(DeclarationError):
        (B,) = dims("B")
        Collective("all_reduce", Tensor("Y", (B,)), group=1)


def test_negative_link_latency_exits_2():
    result = run_cli(
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--link-latency=-1us"]
    )
    assert result.code == 2 and "cannot be negative" in result.err and result.err.count("\n") == 1


# -- a composite with a collective: its per-part table and link roofline, a dim group, free dims


def _solve(*argv: str, fmt: str = "json") -> str:
    result = run_cli(["solve", *argv, "--format", fmt])
    assert result.code == 0, result
    return result.out


def test_a_composite_with_a_collective_reads_true(tmp_path):
    """The per-part table times the all-reduce (it dominates), the link roofline compares
    two numbers instead of setting them equal, and the link (not memory) binds there."""
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    argv = ["copy_then_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set", "B=8192", "--set", "F=8192", "--link-latency", "2us"]
    text = _solve(*argv, fmt="md")
    size = 8192 * 8192 * 2
    reduce_time = Fraction(14, 8) * size / Fraction(45 * 10**10) + 14 * Fraction(2, 10**6)
    copy_time = max(Fraction(8192 * 8192, 989 * 10**12), Fraction(2 * size, 335 * 10**10))
    share = reduce_time / (reduce_time + copy_time)
    assert share > Fraction(1, 2)  # the premise: the all-reduce is most of the runtime
    assert "reduce (dominant)" in text and "reduce dominates" in text
    assert f"{float(100 * share):.3g} %" in text
    assert r"\frac{2}{7} = \frac{19780}{9}" not in text  # a false equation, once printed
    assert r"\frac{2}{7} < \frac{19780}{9}" in text
    assert "Network: link-bound for every B" in text and "Network: memory-bound" not in text


def test_a_collectives_group_may_be_a_dim(tmp_path):
    """Collective(group=P) with P a dim: `--set P=8` gives what group=8 gives; P = 1 is
    refused; left free, P stays in the formulas (no traceback, no root 'B* = 0')."""
    path = tmp_path / "ops.py"
    path.write_text(
        OPERATORS.replace('B, F = dims("B F")', 'B, F, P = dims("B F P")').replace(
            "group=8", "group=P"
        )
    )
    argv = ["copy_then_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set", "B=8192", "--set", "F=8192", "--link-latency", "2us"]
    data = json.loads(_solve(*argv, "--set", "P=8"))
    (reduce,) = data["collectives"]
    size = 8192 * 8192 * 2
    assert (reduce["group"], reduce["steps"]) == (8, 14)
    assert Fraction(reduce["sent"]) == Fraction(2 * 7, 8) * size
    refused = run_cli(["solve", *argv, "--set", "P=1"])
    assert refused.code == 2 and refused.err.count("\n") == 1 and "--set P=1" in refused.err
    free = _solve(*argv[:-4], "--link-latency", "2us", fmt="md")  # B, F and P free
    assert "B^{*} = 0" not in free and "P is the dim P" in free
    free_json = json.loads(_solve(*argv[:-4], "--link-latency", "2us"))
    assert free_json["collectives"][0]["group"] == "P"


def test_a_collective_with_free_dims_has_no_traceback(tmp_path):
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    argv = ["copy_then_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    text = _solve(*argv, "--link-latency", "2us", fmt="md")
    assert r"\frac{7 B F}{9 \times 10^{11}}" in text  # T of the all-reduce, in B and F
