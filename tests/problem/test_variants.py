"""A variant per student (issue 47, item 7): a 40-variant assignment keyed, served, published
and graded, each student against their own variant.

The set is ``tests/sets/graded_variants.toml`` (``tests/sets/graded.toml`` with ``variants``).
Expected values are derived here from each variant's problem built independently: the
variant's draws re-typed from the documented generator (``random.Random(f"{seed}:{i}")``
over the varied keys in sorted order), substituted into the TOML text by hand, and the
problem analysed by derive's public API; a student's variant is FNV-1a re-typed here.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
import subprocess
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from derive.checking.api import model_values
from derive.problem.sets.problem_set import load_problem_set, parse_problem_set
from derive.problem.sets.variants import variants_of

SET = ROOT / "tests" / "sets" / "graded_variants.toml"
SEED, COUNT = 7, 40
VARY = {"chip": ["h100", "a100"], "B": [16, 32, 64], "capacity": ["16 GB", "24 GB", "40 GB"]}
STUDENTS = [f"s{k:02d}" for k in range(COUNT)]


def _draws(i: int) -> dict[str, object]:
    rng = random.Random(f"{SEED}:{i}")
    return {key: rng.choice(VARY[key]) for key in sorted(VARY)}


def _student_variant(student: str) -> int:
    h = 0x811C9DC5
    for byte in f"{SEED}:{student}".encode():
        h = ((h ^ byte) * 0x01000193) % 2**32
    return h % COUNT


@cache
def _variant_by_hand(i: int):
    """Variant ``i`` as a teacher would write it out: the file with its draws typed in."""
    d = _draws(i)
    text = SET.read_text("utf-8").split("\n", 5)[5]  # without the comment, title, text, variants
    text = re.sub(r'chip = "[^"]+"', f'chip = "{d["chip"]}"', text)
    text = text.replace("B = 32,", f"B = {d['B']},").replace('"16 GB"', f'"{d["capacity"]}"')
    return parse_problem_set(text, "by-hand.toml", SET.parent)


def _tokens_per_s(i: int) -> str:
    (entry,) = [m for m in _variant_by_hand(i).models if m.id == "qwen-decode"]
    ((_, exact, _),) = model_values(entry, ["tokens_per_s"])
    return exact


def _largest(i: int) -> int:
    gigabytes = int(str(_draws(i)["capacity"]).split()[0])
    return gigabytes * 10**9 // 2  # the card holds only the weights, 2 bytes each


def test_each_variant_draws_from_the_seed_and_its_number_only():
    pset = load_problem_set(SET)
    variants = variants_of(pset)
    assert [i for i, _ in variants] == list(range(COUNT))
    for i, vset in variants:
        d = _draws(i)
        decode = next(m for m in vset.models if m.id == "qwen-decode")
        assert decode.spec.chip == d["chip"] and f"B={d['B']}" in decode.spec.sets
        mm = next(p for p in vset.problems if p.id == "mm-v5e")
        assert mm.spec.chip == d["chip"]  # every problem that has the key
        assert vset.variants is None and vset.order == pset.order
    assert len({tuple(sorted(_draws(i).items())) for i in range(COUNT)}) > 1
    assert variants_of(load_problem_set(ROOT / "tests" / "sets" / "graded.toml"))[0][0] == 0


def test_the_variants_key_is_the_same_under_any_hash_seed(tmp_path):
    keys = []
    for hash_seed in ("1", "2"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "-m", "derive", "key", str(SET), "-o", str(out), "--quiet"]
        subprocess.run(argv, check=True, env=env, capture_output=True, timeout=600)
        keys.append((out / "graded_variants-variants.md").read_bytes())
    assert keys[0] == keys[1]


def test_the_key_has_a_table_per_problem_of_every_variants_exact_answers(tmp_path):
    r = run_cli(["key", str(SET), "-o", str(tmp_path), "--quiet"])
    assert r.code == 0, r
    text = (tmp_path / "graded_variants-variants.md").read_text("utf-8")
    tables = dict(re.findall(r"^## ([\w-]+): .*?\n\n(.*?)(?:\n\n|\Z)", text, re.S | re.M))
    assert list(tables) == list(load_problem_set(SET).order)  # the teacher's order
    decode = [line.split(" | ") for line in tables["qwen-decode"].splitlines()]
    assert decode[0] == ["| variant", "B", "chip", "t_lower", "tokens_per_s |"]
    largest = [line.split(" | ") for line in tables["largest-model"].splitlines()[2:]]
    for i in range(COUNT):
        row = decode[2 + i]
        assert row[:3] == [f"| {i}", str(_draws(i)["B"]), _draws(i)["chip"]]
        assert row[4].startswith(_tokens_per_s(i) + " tokens/s")
        assert largest[i] == [f"| {i}", str(_draws(i)["capacity"]), f"{_largest(i)} |"]


def _class_csv(tmp_path: Path, claims) -> Path:
    path = tmp_path / "answers.csv"
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["who", "problem", "quantity", "claim"])
        for who in STUDENTS:
            v = _student_variant(who)
            out.writerow([who, "qwen-decode", "tokens_per_s", claims(v)])
            out.writerow([who, "largest-model", "N", str(_largest(v))])
    return path


def test_a_class_of_40_is_graded_each_against_their_own_variant(tmp_path):
    def own(v: int) -> str:
        return f"{float(Fraction(_tokens_per_s(v))):.6g} tokens/s"

    verdicts = tmp_path / "verdicts.csv"
    argv = ["check", "--problem-set", str(SET), "--answers", str(_class_csv(tmp_path, own))]
    r = run_cli([*argv, "-o", str(verdicts)])
    assert r.code == 0, r
    rows = list(csv.DictReader(verdicts.open(encoding="utf-8")))
    assert len(rows) == 2 * COUNT and len({_student_variant(s) for s in STUDENTS}) > 10
    for row in rows:
        assert row["verdict"] == "correct", row
        assert row["variant"] == str(_student_variant(row["who"]))
    assert all(line.split()[1:3] == ["2", "2"] for line in r.out.splitlines()[1:])


def test_a_neighbours_answer_is_wrong_and_a_variant_column_wins(tmp_path):
    def other(v: int) -> str:  # the answer of the variant with another batch or chip
        d = _draws(v)
        w = next(u for u in range(COUNT) if _draws(u)["B"] != d["B"])
        return _tokens_per_s(w)

    argv = ["check", "--problem-set", str(SET), "--answers", str(_class_csv(tmp_path, other))]
    data = json.loads(run_cli([*argv, "--format", "json"]).out)
    decode = [a for a in data["answers"] if a["problem"] == "qwen-decode"]
    assert {a["verdict"] for a in decode} == {"incorrect"}
    answers = tmp_path / "by-variant.csv"
    answers.write_text(
        "who,variant,problem,quantity,claim\n"
        f"ann,5,qwen-decode,tokens_per_s,{_tokens_per_s(5)}\n"
        f"ben,{COUNT},qwen-decode,tokens_per_s,{_tokens_per_s(5)}\n"
    )
    r = run_cli(["check", "--problem-set", str(SET), "--answers", str(answers), "--format", "json"])
    ann, ben = json.loads(r.out)["answers"]
    assert ann["verdict"] == "correct" and ann["variant"] == "5"
    assert (
        ben["verdict"] == "refused"
        and f"not a variant of the set (0 to {COUNT - 1})" in ben["reason"]
    )


@pytest.mark.parametrize(
    ("variants", "said"),
    [
        ("variants = 3", "key 'variants': must be a table"),
        ("variants = { count = 4, sed = 3, vary = { B = [1] } }", "must be { count = 40"),
        ("variants = { count = 0, vary = { B = [1] } }", "(count): must be 1 to 1000"),
        ("variants = { count = 4, vary = { Q = [1, 2] } }", "(vary.Q): no problem has this key"),
        ("variants = { count = 4, vary = { B = [] } }", "(vary.B): must be a list of 1 to 100"),
        ('variants = { count = 4, vary = { chip = ["h100", "nochip"] } }', ": variant "),
        ('variants = { count = 4, vary = { B = [4, "x"] } }', "(B = x): problem 'm': key 'set'"),
    ],
)
def test_a_wrong_variants_table_is_one_line(tmp_path, variants, said):
    path = tmp_path / "set.toml"
    path.write_text(
        f'title = "t"\n{variants}\n[[problem]]\nid = "m"\nmodel = "llama-3-8b"\n'
        'chip = "h100"\nset = { B = 4, S = 1024 }\nask = ["params"]\n'
    )
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 2 and said in r.err and len(r.err.strip().splitlines()) == 1, r
    assert "Traceback" not in r.err


starlette = pytest.importorskip("starlette")


@pytest.fixture(scope="module")
def served():
    from starlette.testclient import TestClient

    from derive.web.app import LOOPBACK_HOSTS, create_app
    from derive.web.book import build_workbooks, load_source
    from derive.web.pool import PoolSettings, WorkerPool

    _, pset = load_source(str(SET))
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=20))
    app = create_app(build_workbooks(pset), pool, LOOPBACK_HOSTS, seed=SEED)
    yield lambda: TestClient(app, base_url="http://127.0.0.1")
    pool.close()


def _givens(client, problem: str) -> dict:
    return client.get(f"/api/problems/{problem}").json()["givens"]


def test_each_student_is_served_their_variant_stable_across_reloads(served):
    for who in STUDENTS[:8]:
        v, d = _student_variant(who), _draws(_student_variant(who))
        with served() as client:
            assert client.get("/", params={"student": who}).status_code == 200
            for _reload in range(2):
                index = client.get("/api/problems").json()
                assert (index["variant"], index["variants"], index["student"]) == (v, COUNT, who)
                decode = _givens(client, "qwen-decode")
                assert decode["chip"] == d["chip"] and f"B = {d['B']}" in decode["bound"]
                assert client.get("/").status_code == 200  # a reload keeps the student
        with served() as again:  # another browser, the same id: the same variant
            again.get(f"/?student={who}")
            assert again.get("/api/problems").json()["variant"] == v
            right = {"problem": "qwen-decode", "quantity": "tokens_per_s"}
            reply = again.post("/api/check", json={**right, "answer": _tokens_per_s(v)}).json()
            assert reply["verdict"] == "correct", reply
            other = next(u for u in range(COUNT) if _draws(u)["B"] != d["B"])
            reply = again.post("/api/check", json={**right, "answer": _tokens_per_s(other)}).json()
            assert reply["verdict"] == "incorrect", reply


def test_without_an_id_the_signed_cookie_keeps_a_browser_on_its_variant(served):
    with served() as client:
        client.get("/")
        first = client.get("/api/problems").json()
        assert first["student"] == "" and 0 <= first["variant"] < COUNT
        for _ in range(3):
            client.get("/")
            assert client.get("/api/problems").json()["variant"] == first["variant"]


def test_a_published_site_carries_every_variant_and_judges_the_students(tmp_path):
    from derive.web.in_browser import Judge

    site = tmp_path / "site"
    r = run_cli(["publish", str(SET), "-o", str(site)])
    assert r.code == 0 and "in 40 variants" in r.out, r
    page = (site / "index.html").read_text("utf-8")
    settings = json.loads(re.search(r'id="derive-site">(.*?)</script>', page).group(1))
    variants = settings["variants"]
    assert (variants["count"], variants["seed"], len(variants["books"])) == (COUNT, SEED, COUNT)
    judge = Judge.from_json((site / "python" / "set.json").read_text(), str(tmp_path / "fs"))
    for v in (0, 3, 17, 39):
        d = _draws(v)
        folder = site / "api" / f"w{variants['books'][v]}" / "problems"
        givens = json.loads((folder / "qwen-decode.json").read_text("utf-8"))["givens"]
        assert givens["chip"] == d["chip"] and f"B = {d['B']}" in givens["bound"]
        claim = {"problem": "qwen-decode", "quantity": "tokens_per_s", "answer": _tokens_per_s(v)}
        reply = json.loads(judge.answer("/api/check", json.dumps(claim), v))
        assert reply["data"]["verdict"] == "correct", reply


def test_the_page_computes_a_students_variant_as_derive_does(tmp_path):
    """static/publish.js run in Node with a stub page: the variant it sends the judge."""
    node = __import__("shutil").which("node")
    if node is None:
        pytest.skip("no node")
    script = (ROOT / "derive" / "web" / "static" / "publish.js").read_text("utf-8")
    settings = {"timeout_s": 5, "variants": {"count": COUNT, "seed": SEED, "books": [0] * COUNT}}
    stub = """
const vm = require("vm");
const out = [];
for (const who of __STUDENTS__) {
  const store = {};
  const ctx = {
    document: { getElementById: () => ({ textContent: __SETTINGS__ }), querySelector: () => null,
                createElement: () => ({}), addEventListener: () => {}, baseURI: "http://x/" },
    location: { search: "?student=" + who, hash: "" },
    localStorage: { getItem: (k) => store[k] ?? null, setItem: (k, v) => { store[k] = v; } },
    URL, URLSearchParams, TextEncoder, performance: { now: () => 0 }, window: {},
    Worker: class { postMessage(m) { if (m.type === "boot") out.push(m.variant); } },
  };
  vm.runInNewContext(__SCRIPT__, ctx);
}
console.log(JSON.stringify(out));
"""
    stub = stub.replace("__STUDENTS__", json.dumps(STUDENTS))
    stub = stub.replace("__SETTINGS__", json.dumps(json.dumps(settings)))
    stub = stub.replace("__SCRIPT__", json.dumps(script))
    (tmp_path / "run.js").write_text(stub)
    done = subprocess.run(
        [node, str(tmp_path / "run.js")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [_student_variant(s) for s in STUDENTS]


def test_a_set_with_variants_reads_as_a_set_without_them_elsewhere():
    text = SET.read_text("utf-8")
    pset = parse_problem_set(text, "x.toml", SET.parent)
    assert pset.variants is not None and pset.variants.count == COUNT
    # the file as typed is the set's own problems (the key's main files, the sheet)
    assert next(m for m in pset.models if m.id == "qwen-decode").spec.chip == "h100"


def test_hidden_a_students_steps_and_verdicts_state_none_of_their_variants_answers():
    from starlette.testclient import TestClient

    from derive.web.app import LOOPBACK_HOSTS, create_app
    from derive.web.book import build_workbooks, load_source
    from derive.web.grading import Grader
    from derive.web.pool import PoolSettings, WorkerPool
    from tests.web.test_hidden_leaks import forms, leaks

    _, pset = load_source(str(SET))
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=20), hide_expected=True)
    books = build_workbooks(pset, hints=True, show=False)
    app = create_app(books, pool, LOOPBACK_HOSTS, seed=SEED)
    sets = dict(variants_of(pset))
    asked = [("qwen-decode", "tokens_per_s"), ("qwen-decode", "t_lower"), ("train-8b", "t_lower")]
    try:
        for who in STUDENTS[:3]:
            grader = Grader.of(sets[_student_variant(who)])
            values = {f"{p}/{q}": forms(grader.check(p, q, "1").expected or "") for p, q in asked}
            assert all(values.values())
            with TestClient(app, base_url="http://127.0.0.1") as client:
                client.get(f"/?student={who}")
                index = client.get("/api/problems").json()
                steps = {p["id"]: p["steps"] for p in index["problems"]}
                for pid in ("qwen-decode", "train-8b"):
                    for k in range(1, steps[pid] + 1):
                        text = client.get(f"/api/problems/{pid}/steps/{k}").text
                        assert not leaks(text, values), (who, pid, k)
                    body = {"problem": pid, "quantity": "t_lower", "answer": "1 s"}
                    reply = client.post("/api/check", json=body)
                    assert "expected" not in reply.json() and not leaks(reply.text, values)
    finally:
        pool.close()


# -- a problem's own vary (tests/sets/problem_vary.toml) ------------------------------------

OWN_SET = ROOT / "tests" / "sets" / "problem_vary.toml"
OWN_SEED, OWN_COUNT = 11, 10
SET_VARY = {"chip": ["h100", "a100"], "B": [16, 32]}
OWN_VARY = {
    "decode-own-batch": {"B": [64, 128, 256]},
    "largest-model": {"capacity": VARY["capacity"]},
}
HELD = {
    "decode-own-batch": ("B", "chip"),
    "decode-set-batch": ("B", "chip"),
    "largest-model": ("capacity",),
}
OWN_STUDENTS = [f"t{k:02d}" for k in range(30)]


def _own_draws(i: int, pid: str) -> dict[str, object]:
    """Problem ``pid``'s draws in variant ``i``, as documented: the set's keys it holds from
    ``Random(f"{seed}:{i}")``, then its own from ``Random(f"{seed}:{i}:{id}")``, which win."""
    rng = random.Random(f"{OWN_SEED}:{i}")
    drawn = {key: rng.choice(SET_VARY[key]) for key in sorted(SET_VARY)}
    rng = random.Random(f"{OWN_SEED}:{i}:{pid}")
    own = OWN_VARY.get(pid, {})
    drawn |= {key: rng.choice(own[key]) for key in sorted(own)}
    return {key: drawn[key] for key in HELD[pid]}


def _own_variant(student: str) -> int:
    h = 0x811C9DC5
    for byte in f"{OWN_SEED}:{student}".encode():
        h = ((h ^ byte) * 0x01000193) % 2**32
    return h % OWN_COUNT


@cache
def _decode_by_hand(chip: str, batch: int) -> str:
    """The decode problem typed out at a chip and a batch, derived by the public API."""
    text = (
        f'[[problem]]\nid = "d"\nmodel = "llama-3-8b"\nchip = "{chip}"\n'
        f'set = {{ B = {batch}, S = 4096 }}\nphase = "decode"\nask = ["tokens_per_s"]\n'
    )
    (entry,) = parse_problem_set(text, "by-hand.toml").models
    ((_, exact, _),) = model_values(entry, ["tokens_per_s"])
    return exact


def _own_answer(i: int, pid: str) -> str:
    d = _own_draws(i, pid)
    if pid == "largest-model":
        return str(int(str(d["capacity"]).split()[0]) * 10**9 // 2)
    return _decode_by_hand(str(d["chip"]), int(str(d["B"])))


def test_a_problems_own_vary_draws_for_it_alone_and_wins_over_the_sets():
    from dataclasses import replace

    pset = load_problem_set(OWN_SET)
    base = {m.id: m for m in pset.models}
    given = dict(pset.questions[0].questions.given)
    draws = set()
    for i, vset in variants_of(pset):
        for m in vset.models:  # only the drawn keys differ from the file's problem
            d = _own_draws(i, m.id)
            spec = replace(base[m.id].spec, chip=d["chip"], sets=(f"B={d['B']}", "S=4096"))
            assert m.spec == spec, (i, m.id)
        (largest,) = vset.questions
        assert dict(largest.questions.given) == given | _own_draws(i, "largest-model")
        draws.add(tuple(_own_draws(i, p)["B"] for p in ("decode-own-batch", "decode-set-batch")))
    assert all(own in OWN_VARY["decode-own-batch"]["B"] for own, _ in draws)
    assert {mine for _, mine in draws} == set(SET_VARY["B"])  # the others draw the set's batch


def test_the_key_of_a_set_with_a_problems_vary_has_its_draws_and_answers(tmp_path):
    r = run_cli(["key", str(OWN_SET), "-o", str(tmp_path), "--quiet"])
    assert r.code == 0, r
    text = (tmp_path / "problem_vary-variants.md").read_text("utf-8")
    tables = dict(re.findall(r"^## ([\w-]+): .*?\n\n(.*?)(?:\n\n|\Z)", text, re.S | re.M))
    assert list(tables) == list(HELD)
    for pid, held in HELD.items():
        lines = [line.split(" | ") for line in tables[pid].splitlines()]
        asked = "N" if pid == "largest-model" else "tokens_per_s"
        assert lines[0] == ["| variant", *sorted(held), f"{asked} |"]
        for i, row in enumerate(lines[2:]):
            d = _own_draws(i, pid)
            assert row[: 1 + len(held)] == [f"| {i}", *(str(d[k]) for k in sorted(held))]
            assert row[-1].startswith(_own_answer(i, pid)), (pid, i, row)
    assert len(lines) == 2 + OWN_COUNT


def test_a_class_is_graded_against_each_students_own_draws(tmp_path):
    def neighbour(v: int) -> int:  # a variant whose own batch differs
        own = _own_draws(v, "decode-own-batch")["B"]
        return next(u for u in range(OWN_COUNT) if _own_draws(u, "decode-own-batch")["B"] != own)

    path = tmp_path / "answers.csv"
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["who", "problem", "quantity", "claim"])
        for who in OWN_STUDENTS:
            v = _own_variant(who)
            out.writerow(
                [who, "decode-own-batch", "tokens_per_s", _own_answer(v, "decode-own-batch")]
            )
            out.writerow([who, "largest-model", "N", _own_answer(v, "largest-model")])
            wrong = _own_answer(neighbour(_own_variant(f"{who}-copied")), "decode-own-batch")
            out.writerow([f"{who}-copied", "decode-own-batch", "tokens_per_s", wrong])
    verdicts = tmp_path / "verdicts.csv"
    r = run_cli(
        ["check", "--problem-set", str(OWN_SET), "--answers", str(path), "-o", str(verdicts)]
    )
    assert r.code == 0, r
    rows = list(csv.DictReader(verdicts.open(encoding="utf-8")))
    assert len(rows) == 3 * len(OWN_STUDENTS)
    assert len({_own_variant(s) for s in OWN_STUDENTS}) > 3
    for row in rows:
        copied = row["who"].endswith("-copied")
        assert row["verdict"] == ("incorrect" if copied else "correct"), row
        assert row["variant"] == str(_own_variant(row["who"]))


def test_each_student_is_served_their_problems_own_draws():
    from starlette.testclient import TestClient

    from derive.web.app import LOOPBACK_HOSTS, create_app
    from derive.web.book import build_workbooks, load_source
    from derive.web.pool import PoolSettings, WorkerPool

    _, pset = load_source(str(OWN_SET))
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=20))
    app = create_app(build_workbooks(pset), pool, LOOPBACK_HOSTS, seed=OWN_SEED)
    try:
        for who in OWN_STUDENTS[:4]:
            v = _own_variant(who)
            with TestClient(app, base_url="http://127.0.0.1") as client:
                client.get("/", params={"student": who})
                assert client.get("/api/problems").json()["variant"] == v
                for pid in ("decode-own-batch", "decode-set-batch"):
                    bound = _givens(client, pid)["bound"]
                    assert f"B = {_own_draws(v, pid)['B']}" in bound, (who, pid, bound)
                capacity = _givens(client, "largest-model")[0]
                assert capacity["value"] == _own_draws(v, "largest-model")["capacity"]
                claim = {"problem": "decode-own-batch", "quantity": "tokens_per_s"}
                claim["answer"] = _own_answer(v, "decode-own-batch")
                assert client.post("/api/check", json=claim).json()["verdict"] == "correct"
    finally:
        pool.close()


def test_a_published_site_judges_each_variant_by_its_problems_own_draws(tmp_path):
    from derive.web.in_browser import Judge

    site = tmp_path / "site"
    assert run_cli(["publish", str(OWN_SET), "-o", str(site)]).code == 0
    page = (site / "index.html").read_text("utf-8")
    books = json.loads(re.search(r'id="derive-site">(.*?)</script>', page).group(1))
    judge = Judge.from_json((site / "python" / "set.json").read_text(), str(tmp_path / "fs"))
    for v in range(OWN_COUNT):
        folder = site / "api" / f"w{books['variants']['books'][v]}" / "problems"
        givens = json.loads((folder / "decode-own-batch.json").read_text("utf-8"))["givens"]
        assert f"B = {_own_draws(v, 'decode-own-batch')['B']}" in givens["bound"]
        claim = {"problem": "decode-own-batch", "quantity": "tokens_per_s"}
        claim["answer"] = _own_answer(v, "decode-own-batch")
        reply = json.loads(judge.answer("/api/check", json.dumps(claim), v))
        assert reply["data"]["verdict"] == "correct", (v, reply)
