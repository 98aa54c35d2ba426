"""docs/architecture.md's "Adding a quantity", followed on a toy quantity: its row alone.

A fresh interpreter adds one row to the catalogue before any other module of derive is
imported (as a row of ``table.py`` would be): ``toy_peak``, a kernel's peak FLOP/s read
from its records (``read="peak.value"``), asked, expected, checked and boxed. With no other
line of code, the quantity is a Python attribute of the derivation, a key of its JSON, a
name ``--define`` may use, a quantity ``derive check`` judges (alone and in a set), an ask
on a set's question sheet and an ``expect`` its key checks, and an answer box of its page.
The expected value is the kernel's own peak as its JSON reports it (another path).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import contextlib, io, json, sys
import derive.catalogue as catalogue
from derive.catalogue import lookup, reading, table
from derive.catalogue.records import At, Box, Use
from derive.formula.units import Dimension

toy = table._row(
    "toy_peak", "toy peak", Dimension.FLOP_RATE,
    At(table.KERNEL, table.ALL, "the toy peak", Box("Toy peak", "", "FLOP/s"), read="peak.value"),
)
for module in (table, catalogue, lookup, reading):
    module.QUANTITIES = tuple(table._ROWS)
lookup._BY_NAME[toy.name] = toy
for made in (lookup.rows_for, lookup.names_for, lookup.phrases, lookup.spelling_map,
             reading.rows_valued_in):
    made.cache_clear()
early = ("catalogue", "errors", "formula", "lazy")
assert all(m.split(".")[1] in early for m in sys.modules if m.startswith("derive."))

import derive
from derive.commands.cli import main
from derive.problem.sets.problem_set import load_problem_set
from derive.web.kernel_pages import kernel_page

def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()

kernel = ["--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100"]
seen = {"attribute": str(derive.solve(flops="1e12", bytes="2.5e9", chip="h100").toy_peak)}
code, out = run("solve", *kernel, "--define", "half = toy_peak / 2", "--format", "json")
seen["json"] = json.loads(out)
code, out = run("check", *kernel, "--quantity", "toy_peak", "--claim", seen["json"]["peak"])
seen["check"] = out.splitlines()[0]
with open(sys.argv[1] + "/toy.toml", "w") as toml:
    toml.write(
        'title = "toy"\n[[problem]]\nid = "p"\nkernel = { flops = "1e12", bytes = "2.5e9" }\n'
        f'chip = "h100"\nask = ["toy_peak"]\nexpect = {{ toy_peak = "{seen["json"]["peak"]}" }}\n'
    )
seen["key"] = run("key", sys.argv[1] + "/toy.toml", "-o", sys.argv[1] + "/key")[0]
with open(sys.argv[1] + "/key/toy-questions.md") as sheet:
    seen["sheet"] = sheet.read()
code, out = run("check", "--problem-set", sys.argv[1] + "/toy.toml", "--problem", "p",
                "--quantity", "toy_peak", "--claim", "1 FLOP/s")
seen["set_check"] = out.splitlines()[0]
from pathlib import Path
entry = load_problem_set(Path(sys.argv[1]) / "toy.toml").every_entry()[0]
seen["boxes"] = [(a.quantity, a.label) for a in kernel_page(entry, False).asked]
print(json.dumps(seen))
"""


def test_a_toy_quantity_added_by_its_row_alone_is_everywhere(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    report = seen["json"]
    peak = report["peak"]  # the kernel's peak as its JSON reports it
    assert seen["attribute"] == peak and report["toy_peak"] == peak  # Python, the JSON
    assert report["defined"]["half"]["exact"] == str(int(peak) // 2)  # --define
    assert seen["check"] == "verdict: correct"  # derive check --quantity toy_peak
    assert seen["key"] == 0 and "- the toy peak" in seen["sheet"]  # an ask and an expect
    assert seen["set_check"] != "verdict: correct"  # a set's check judges it (1 FLOP/s: no)
    assert seen["boxes"] == [["toy_peak", "Toy peak"]]  # the workbook's answer box
