"""chips.toml's hardware facts (``[<chip>.facts]``, the peak's parts, the ICI and the node):
``derive chips --format json`` lists every one exactly as the file states it, and the
questions the Scaling Book asks of the hardware are answered here from the table's inputs.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import ROOT

from derive.errors import ChipDataError
from derive.problem.chips import parse_chips

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

TABLE = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text("utf-8"))
_FACT_KEYS = (
    "units", "clock_hz", "ici_axes", "ici_wraparound_axis", "ici_wraparound_cube",
    "node_devices", "node_link_bytes_per_s",
)  # fmt: skip


def _facts_in_file(table: dict) -> dict[str, dict]:
    rows = {k: v for k, v in table.items() if k in _FACT_KEYS or k.endswith("_flops_per_clock")}
    return {**rows, **table.get("facts", {})}


@pytest.fixture(scope="module")
def listed(tmp_path_factory) -> dict:
    from conftest import run_cli

    result = run_cli(["chips", "--format", "json"])
    assert result.code == 0, result.err
    return json.loads(result.out)


def _fact(listed: dict, chip: str, key: str) -> Fraction:
    return Fraction(listed[chip]["facts"][key]["value"])


def test_the_json_lists_every_fact_of_the_file_exactly(listed):
    assert list(listed) == list(TABLE)
    for name, table in TABLE.items():
        want = _facts_in_file(table)
        got = listed[name]["facts"]
        assert set(got) == set(want), name
        for key, row in want.items():
            assert Fraction(got[key]["value"]) == Fraction(row["value"]), (name, key)
            assert got[key]["source"] == row["source"] and got[key]["edition"] == row["edition"]
            assert row["source"] and row["edition"], (name, key)


def test_the_new_chips_and_facts_are_there(listed):
    assert {"tpu-v4p"} <= set(listed)
    for chip in ("tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v4p"):
        for key in ("ici_links", "host_chips", "pcie_bytes_per_s", "dcn_bytes_per_s_per_host"):
            assert key in listed[chip]["facts"], (chip, key)
    assert "vmem_bytes" in listed["tpu-v5e"]["facts"]
    for chip in ("a100", "h100"):
        for key in ("smem_bytes_per_sm", "register_file_bytes_per_sm", "pcie_bytes_per_s"):
            assert key in listed[chip]["facts"], (chip, key)


def test_a_gpus_flops_per_sm_per_clock_is_its_peak_over_sms_and_clock(listed):
    for chip in ("a100", "h100"):
        peak = Fraction(listed[chip]["peaks"]["bf16"]["flop_per_s"])
        sms, clock = _fact(listed, chip, "units"), _fact(listed, chip, "clock_hz")
        per_sm = peak / (sms * clock)  # the datasheet's peak, rounded: within 0.1 % of the parts
        stated = _fact(listed, chip, "bf16_flops_per_clock")
        assert abs(per_sm - stated) <= stated / 1000, (chip, float(per_sm), stated)
        per_core = stated / _fact(listed, chip, "tensor_cores_per_sm")
        assert per_core == {"a100": 512, "h100": 1024}[chip]  # 256 / 512 FMA a clock, 2 FLOPs
    # a SM's register file: 65,536 32-bit registers; its shared memory within its L1
    h100 = listed["h100"]["facts"]
    assert _fact(listed, "h100", "register_file_bytes_per_sm") == 65536 * 4
    assert Fraction(h100["smem_bytes_per_sm"]["value"]) <= Fraction(
        h100["l1_smem_bytes_per_sm"]["value"]
    )


def test_a_nodes_egress_is_its_gpus_times_each_ones_nic(listed):
    egress = _fact(listed, "h100", "node_devices") * _fact(listed, "h100", "node_link_bytes_per_s")
    assert egress == 8 * Fraction(400 * 10**9, 8)  # 8 NICs of 400 Gb/s


def test_a_tpus_mxus_times_their_flops_per_clock_and_clock_is_its_peak(listed):
    peak = Fraction(listed["tpu-v5e"]["peaks"]["bf16"]["flop_per_s"])
    mxus, clock = _fact(listed, "tpu-v5e", "units"), _fact(listed, "tpu-v5e", "clock_hz")
    per_clock = _fact(listed, "tpu-v5e", "bf16_flops_per_clock")
    assert per_clock == 2 * 128 * 128  # a 128x128 systolic array's multiply-adds, 2 FLOPs each
    assert abs(mxus * per_clock * clock - peak) <= peak / 200  # the book's 1.5 GHz, rounded


def test_a_tpus_links_hosts_and_pod(listed):
    for chip in ("tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v4p"):
        axes = _fact(listed, chip, "ici_axes")
        assert _fact(listed, chip, "ici_links") == 2 * axes  # both neighbours on every axis
    # a full pod: hosts = chips / chips per host, TensorCores, FLOP/s, HBM (Question 2)
    for chip, pod, hosts in (("tpu-v5e", 16 * 16, 32), ("tpu-v5p", 16 * 20 * 28, 2240)):
        chips, per_host = _fact(listed, chip, "pod_chips"), _fact(listed, chip, "host_chips")
        assert chips == pod and chips / per_host == hosts
    cores = _fact(listed, "tpu-v5p", "pod_chips") * _fact(listed, "tpu-v5p", "tensorcores")
    assert cores == 16 * 20 * 28 * 2
    # PCIe: a bf16 matmul from host memory with B << D, F is FLOPs bound past B = peak / PCIe
    v6e = listed["tpu-v6e"]
    batch = Fraction(v6e["peaks"]["bf16"]["flop_per_s"]) / _fact(
        listed, "tpu-v6e", "pcie_bytes_per_s"
    )
    assert batch == Fraction(92 * 10**13, 32 * 10**9)
    # a host's DCN against its chips' PCIe: the DCN is the narrower
    for chip in ("tpu-v5e", "tpu-v5p"):
        pcie = _fact(listed, chip, "host_chips") * _fact(listed, chip, "pcie_bytes_per_s")
        assert _fact(listed, chip, "dcn_bytes_per_s_per_host") < pcie


def test_a_fact_without_a_source_is_refused():
    text = (
        '[c]\nhbm_bytes_per_s = { value = "1", source = "s", edition = "e" }\n'
        'peak_bf16_flop_per_s = { value = "1", source = "s", edition = "e" }\n'
        '[c.facts]\nvmem_bytes = { value = "1" }\n'
    )
    with pytest.raises(ChipDataError, match=r"facts\.vmem_bytes"):
        parse_chips(text, "chips.toml")


def test_a_gpus_nvlink_is_its_links_times_each_links_bandwidth(listed):
    for chip in ("a100", "h100", "h200", "b200", "gb200"):
        links = _fact(listed, chip, "nvlink_links") * _fact(listed, chip, "nvlink_link_bytes_per_s")
        assert links == Fraction(listed[chip]["link_bytes_per_s"]), chip  # the datasheet's


def test_a_nodes_egress_from_the_book_is_the_datasheets_nics(listed):
    egress = _fact(listed, "h100", "node_egress_bytes_per_s")
    assert egress == _fact(listed, "h100", "node_devices") * _fact(
        listed, "h100", "node_link_bytes_per_s"
    )
    # GB200 NVL72: 9x the GPUs of a B200 node, 9x its egress (400 Gb/s a GPU either way)
    b200 = listed["b200"]["facts"]
    gpus = Fraction(b200["nvl72_domain_gpus"]["value"]) / Fraction(
        b200["nvlink_domain_gpus"]["value"]
    )
    assert gpus == 9
    assert _fact(listed, "b200", "nvl72_node_egress_bytes_per_s") == gpus * _fact(
        listed, "b200", "node_egress_bytes_per_s"
    )
    assert _fact(listed, "b200", "nvl72_node_egress_bytes_per_s") == 72 * Fraction(400 * 10**9, 8)


def test_gb200_nvl72_is_one_domain_of_72_blackwells(listed, cli):
    gb200, b200 = listed["gb200"], listed["b200"]["facts"]
    assert _fact(listed, "gb200", "nvlink_domain_gpus") == Fraction(
        b200["nvl72_domain_gpus"]["value"]
    )
    assert _fact(listed, "gb200", "node_egress_bytes_per_s") == Fraction(
        b200["nvl72_node_egress_bytes_per_s"]["value"]
    )
    domain = _fact(listed, "gb200", "node_devices")
    assert domain * _fact(listed, "gb200", "node_link_bytes_per_s") == _fact(
        listed, "gb200", "node_egress_bytes_per_s"
    )
    # the rack's totals (with sparsity) are 72 GPUs' sparse figures, twice each dense peak
    dense = {k: Fraction(v["flop_per_s"]) for k, v in gb200["peaks"].items()}
    assert dense["bf16"] * 72 * 2 == 360 * 10**15 and dense["fp8"] * 72 * 2 == 720 * 10**15
    assert dense["fp4"] * 72 * 2 == 1440 * 10**15
    assert Fraction(gb200["link_bytes_per_s"]) * 72 * 2 == 1296 * 10**11  # "130 TB/s"
    # `--mesh default` on two racks: the NVLink switch of 72 inside, the NICs across
    r = cli(["train", "llama-3-8b", "--chip", "gb200", "--dp", "144", "--zero", "1",
             "--batch-tokens", str(144 * 8192 * 4), "--seq", "8192", "--mesh", "default"])  # fmt: skip
    assert r.code == 0, r.err
    assert "gpu=72@9e11:switch,node=2@5e10" in r.out


def test_a_gpus_smem_and_registers_against_a_tpus_vmem(listed):
    # an H100's SMEM and registers over all its SMs, against a TPU v5e's VMEM (Quiz 1, Q5)
    sms = _fact(listed, "h100", "units")
    on_chip = sms * (
        _fact(listed, "h100", "l1_smem_bytes_per_sm")
        + _fact(listed, "h100", "register_file_bytes_per_sm")
    )
    assert on_chip == 132 * 2 * 256 * 1024
    assert on_chip < _fact(listed, "tpu-v5e", "vmem_bytes") == 128 * 1024 * 1024
    # a B200's SMs each add Tensor Memory as large as its registers
    assert _fact(listed, "b200", "tmem_bytes_per_sm") == _fact(
        listed, "b200", "register_file_bytes_per_sm"
    )
