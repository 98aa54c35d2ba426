"""The teacher's order (issue 47, item 6): the key, the question sheet and the workbook number
the problems as the set's file lists them, whatever their kinds.

The set below interleaves the kinds (a model, an operator, a what-if, a kernel, a problem of
givens and equations, another operator): derive used to group them by kind, so the cost of a
what-if moved from 3rd to 5th.
"""

from __future__ import annotations

import re

import pytest

SET = """
title = "Order"

[[problem]]
id = "params"
title = "GPT-2 small's parameters"
model = "gpt2-small"
ask = ["params"]

[[problem]]
id = "ridge"
title = "An H100's ridge"
operator = "matmul"
dtype = "bf16"
chip = "h100"
ask = ["ridge"]

[[problem]]
id = "amdahl"
title = "A what-if"
what_if = { profile = "gemm=62%,other=38%", speedup = "gemm=1.8", measured_time = "70 ms" }
ask = ["what_if_time"]

[[problem]]
id = "kernel"
title = "A kernel by its numbers"
chip = "h100"
kernel = { flops = "1e12", bytes = "2.5e9" }
ask = ["intensity"]

[[problem]]
id = "card"
title = "The largest model a card holds"
given = { capacity = "16 GB", width = "2 bytes" }
equations = ["N * width <= capacity"]
unknowns = ["N"]

[[problem]]
id = "a100"
title = "An A100's ridge"
operator = "matmul"
dtype = "bf16"
chip = "a100"
ask = ["ridge"]
"""
FILE_ORDER = ["params", "ridge", "amdahl", "kernel", "card", "a100"]


@pytest.fixture
def set_file(tmp_path):
    path = tmp_path / "order.toml"
    path.write_text(SET)
    return path


def test_the_key_and_the_sheet_keep_the_files_order(cli, set_file, tmp_path):
    r = cli(["key", str(set_file), "-o", str(tmp_path / "key")])
    assert r.code == 0, r.err
    key = (tmp_path / "key" / "order.md").read_text()
    numbered = re.findall(r"^## Problem (\d+) \(([\w-]+)\)", key, flags=re.M)
    assert numbered == [(str(i), pid) for i, pid in enumerate(FILE_ORDER, 1)]
    sheet = (tmp_path / "key" / "order-questions.md").read_text()
    titles = re.findall(r"^## \d+\. (.+)$", sheet, flags=re.M)
    by_id = dict(re.findall(r'id = "([\w-]+)"\ntitle = "([^"]+)"', SET))
    assert titles == [by_id[pid] for pid in FILE_ORDER]
    tex = (tmp_path / "key" / "order.tex").read_text()
    assert [
        t.split(" (")[0] for t in re.findall(r"\\subsection\{Problem \d+ \(([\w-]+)\)", tex)
    ] == (FILE_ORDER)


def test_the_workbook_keeps_the_files_order(set_file):
    from derive.web.book import build_workbook, load_source

    _, pset = load_source(str(set_file))
    assert pset.order == tuple(FILE_ORDER)
    index = build_workbook(pset).index()
    assert [p["id"] for p in index["problems"]] == FILE_ORDER
