"""No example the workbook shows is an answer (issue 26 item 4, widened): a box's
placeholder and the line above the boxes give example answers (``124e6``, ``128 KiB``,
``400 FLOPs/byte``, ``550 us``), and each of those was a right answer to a problem of the
built-in set or of a set under tests/sets (GPT-2's parameters, Llama 3 8B's KV bytes per
token, the measured kernel's intensity, the all-reduce's time). Every example is checked
here, through the server's own /api/check, against every box of every page: none may be
judged right."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from derive.web.app import LOOPBACK_HOSTS, create_app
from derive.web.book import build_workbook, load_source
from derive.web.pool import PoolSettings, WorkerPool
from tests.conftest import ROOT

SETS = [None, "tests/sets/handout.toml", "tests/sets/comms.toml", "tests/sets/teacher.toml"]
# an example: a number (perhaps 1.2e3 or 78%), perhaps a unit of letters and slashes
_EXAMPLE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e\d+)?(?:\s?%|\s[A-Za-zµ]+(?:/[A-Za-z]+)?)?")


def _instruction_examples() -> list[str]:
    """The examples in the workbook's "Type a …" lines (one per kind of page): each
    parenthesised list, split at its commas (formulas such as ``2BDF`` included)."""
    script = (ROOT / "derive" / "web" / "static" / "workbook.js").read_text(encoding="utf-8")
    lines = re.findall(r'"(Type a [^"]*)"', script)
    assert len(lines) >= 4, lines
    found = set()
    for line in lines:
        for group in re.findall(r"\(([^()]*)\)", line.replace("\\\\", "\\")):
            for example in group.removeprefix("LaTeX or plain: ").split(", "):
                found.add(example.strip())
    return sorted(found)


def _examples(text: str) -> list[str]:
    return [m.group(0).strip() for m in _EXAMPLE.finditer(text)]


@pytest.mark.parametrize("source", SETS, ids=lambda s: s or "built-in")
def test_no_example_is_a_right_answer(source):
    _, pset = load_source(str(ROOT / source) if source else None, trust=True)
    book = build_workbook(pset)
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0), False)
    shown = _instruction_examples()
    right = []
    try:
        with TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1") as c:
            for pid, page in book.pages.items():
                for box in page.detail["asked"]:
                    for example in sorted(set(shown + _examples(box["placeholder"]))):
                        r = c.post(
                            "/api/check",
                            json={"problem": pid, "quantity": box["quantity"], "answer": example},
                        )
                        assert r.status_code in (200, 400, 422), r.text
                        if r.status_code == 200 and r.json()["verdict"].startswith("correct"):
                            right.append((pid, box["quantity"], example))
    finally:
        pool.close()
    assert right == []
