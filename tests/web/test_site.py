"""``derive publish``: a workbook as a static site whose checker runs in the browser (issue 35).

The site's files are checked here without a browser; the checker itself is run in Pyodide
under Node (tests/js/judge_in_node.mjs boots it exactly as the page's worker does) on a
corpus of claims (right, wrong, unreadable; operators, kernels, models, serving steps and
an operator that only communicates), and every verdict, reading, diagnosis and expected
answer is compared with ``derive check --answers`` on the same claims. The Pyodide tests
need ``node`` and an unpacked npm ``pyodide`` package named by ``DERIVE_PYODIDE`` (.ci/run
fetches it); without them they are skipped, except under CI where they must run.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
import tomllib
from conftest import ROOT, in_ci, run_cli

from derive.web.book import build_workbook, load_source

BUILTIN = ROOT / "derive" / "data" / "problems" / "rooflines.toml"
COMMS = ROOT / "tests" / "sets" / "comms.toml"
HANDOUT = ROOT / "tests" / "sets" / "handout.toml"
JUDGE = ROOT / "tests" / "js" / "judge_in_node.mjs"
MAX_SITE_BYTES = 60 * 10**6  # with the memory snapshot and files.gz (benchmarks/README.md)


def pyodide_or_skip() -> Path:
    """The unpacked Pyodide package (``$DERIVE_PYODIDE``) and node, or a skip saying what is missing."""
    folder = os.environ.get("DERIVE_PYODIDE", "")
    why = None
    if not shutil.which("node"):
        why = "no node on PATH"
    elif not folder or not (Path(folder) / "pyodide.asm.wasm").is_file():
        why = (
            "DERIVE_PYODIDE does not name an unpacked Pyodide package "
            "(cd /tmp && npm pack pyodide@314.0.7 && tar xzf pyodide-314.0.7.tgz; "
            "DERIVE_PYODIDE=/tmp/package); .ci/run fetches it"
        )
    if why is not None:
        if in_ci():
            pytest.fail(f"CI is set but {why}")
        pytest.skip(why)
    return Path(folder)


def publish(tmp: Path, *args: str) -> Path:
    out = tmp / "site"
    tmp.mkdir(parents=True, exist_ok=True)
    result = run_cli(["publish", *args, "-o", str(out)])
    assert result.code == 0, result.err
    return out


@pytest.fixture(scope="module")
def builtin_site(tmp_path_factory) -> Path:
    """The built-in set, published without a runtime (the page would load Pyodide from the CDN)."""
    return publish(tmp_path_factory.mktemp("builtin"))


# ---- the site's files ------------------------------------------------------------------


def test_site_has_every_page_and_step(builtin_site):
    index = json.loads((builtin_site / "api" / "problems.json").read_text(encoding="utf-8"))
    served = build_workbook(load_source(None)[1])  # what derive serve answers
    assert index == served.index()
    for pid, page in served.pages.items():
        detail = json.loads((builtin_site / "api" / "problems" / f"{pid}.json").read_text())
        assert detail == page.detail
        steps = sorted((builtin_site / "api" / "problems" / pid / "steps").glob("*.json"))
        assert len(steps) == detail["steps"]
        # a problem of givens and equations alone has no worked steps; every other kind has
        assert detail["steps"] > 0 or detail["kind"] == "questions", pid
        if steps:
            first = json.loads(steps[0].read_text(encoding="utf-8"))
            assert first["problem"] == pid and first["k"] == 1 and first["html"]
    page = (builtin_site / "index.html").read_text(encoding="utf-8")
    assert 'src="/static' not in page and 'href="/static' not in page  # relative: any sub-path
    assert "static/publish.js" in page and "cdn.jsdelivr.net/npm/pyodide@314.0.7/" in page
    for name in ("katex/katex.min.js", "katex/contrib/auto-render.min.js", "publish-worker.mjs"):
        assert (builtin_site / "static" / name).is_file()
    assert not (builtin_site / "pyodide").exists()


def test_python_zip_holds_the_checker_and_no_tests(builtin_site):
    with zipfile.ZipFile(builtin_site / "python" / "derive-site.zip") as archive:
        names = set(archive.namelist())
    for needed in (
        "derive/web/in_browser.py",
        "derive/operators/matmul.py",
        "derive/models/gpt2.py",
        "sympy/__init__.py",
        "mpmath/__init__.py",
        "jinja2/__init__.py",
        "markupsafe/__init__.py",
        "pylatexenc/__init__.py",
    ):
        assert needed in names
    assert not [n for n in names if "/tests/" in n or "__pycache__" in n or n.endswith(".so")]
    assert not [n for n in names if n.startswith("derive/web/static/")]


def test_publish_is_deterministic(builtin_site, tmp_path):
    again = publish(tmp_path)
    files = sorted(p.relative_to(builtin_site) for p in builtin_site.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for name in files:
        assert (builtin_site / name).read_bytes() == (again / name).read_bytes(), name


def test_no_hints_and_hidden_expected(tmp_path):
    site = publish(tmp_path, str(HANDOUT), "--no-hints", "--hide-expected")
    assert not list((site / "api").rglob("steps"))
    index = json.loads((site / "api" / "problems.json").read_text(encoding="utf-8"))
    assert index["hints"] is False and index["expected_shown"] is False
    assert len(index["problems"]) == 4
    assert json.loads((site / "python" / "set.json").read_text())["hide_expected"] is True


def test_operator_files_need_trust(tmp_path):
    out = tmp_path / "site"
    refused = run_cli(["publish", str(COMMS), "-o", str(out)])
    assert refused.code == 2 and "--trust" in refused.err and len(refused.err.splitlines()) == 1
    assert not out.exists()
    trusted = publish(tmp_path, str(COMMS), "--trust")
    shipped = json.loads((trusted / "python" / "set.json").read_text(encoding="utf-8"))
    assert shipped["files"] == {"comms_ops.py": (COMMS.parent / "comms_ops.py").read_text()}


@pytest.mark.parametrize(
    ("flag", "why"),
    [
        (["--pyodide", "/nonexistent/pyodide"], "is not a folder"),
        (["--pyodide", str(ROOT / "tests")], "pyodide.asm.wasm"),
        (["--timeout", "0"], "must be 0.1 to 600"),
    ],
)
def test_bad_flags_write_nothing(tmp_path, flag, why):
    out = tmp_path / "site"
    result = run_cli(["publish", "-o", str(out), *flag])
    assert result.code == 2 and why in result.err and len(result.err.splitlines()) == 1
    assert not out.exists()


def test_never_overwrites_a_folder_that_is_not_a_site(tmp_path, builtin_site):
    keep = tmp_path / "notes"
    keep.mkdir()
    (keep / "mine.txt").write_text("mine")
    result = run_cli(["publish", "-o", str(keep)])
    assert result.code == 2 and "not a published workbook" in result.err
    assert [p.name for p in keep.iterdir()] == ["mine.txt"]
    again = run_cli(["publish", "-o", str(builtin_site)])  # a site is replaced whole
    assert again.code == 0, again.err


# ---- the checker in Pyodide equals derive check ----------------------------------------


def _gpt2_small_params() -> int:
    """GPT-2 small by hand: token and position embeddings, 12 blocks, a final LayerNorm."""
    vocab, context, d, layers = 50257, 1024, 768, 12
    block = (
        2 * 2 * d  # two LayerNorms, scale and shift
        + 3 * d * d
        + 3 * d  # qkv projection and bias
        + d * d
        + d  # attention output
        + 4 * d * d
        + 4 * d  # MLP up
        + 4 * d * d
        + d  # MLP down
    )
    return vocab * d + context * d + layers * block + 2 * d


def _kernel_intensity() -> Fraction:
    """The built-in set's measured kernel: its FLOPs over its bytes, from the set's givens."""
    table = next(
        p
        for p in tomllib.loads(BUILTIN.read_text(encoding="utf-8"))["problem"]
        if p["id"] == "kernel-h100-measured"
    )
    return Fraction(table["kernel"]["flops"]) / Fraction(table["kernel"]["bytes"])


def _largest_model() -> int:
    """The built-in set's givens-and-equations problem: N · width ≤ capacity, from its givens
    (a decimal GB is 10⁹ bytes)."""
    table = next(
        p
        for p in tomllib.loads(BUILTIN.read_text(encoding="utf-8"))["problem"]
        if p["id"] == "largest-model"
    )
    capacity, unit = table["given"]["capacity"].split()
    width = table["given"]["width"].split()[0]
    assert unit == "GB"
    return int(capacity) * 10**9 // int(width)


# (problem, quantity, claim, the verdict computed here or None: only the two paths compared)
BUILTIN_CORPUS = [
    ("q1", "flops", "2BDF", "correct"),
    ("q1", "flops", "2 * B * D * F", "correct"),
    ("q1", "flops", "3BDF", "incorrect"),
    ("q1", "flops", "2B D F +", "unreadable"),
    ("q1", "intensity", r"\frac{2BDF}{2BD + 2DF + 2BF}", None),
    ("q1", "crossover", r"B \geq 121", None),
    ("q1", "t_math", "2BDF/(1.97e14)", None),
    ("network-sharded", "t_comms", "1 ms", None),
    ("kernel-h100-measured", "intensity", str(_kernel_intensity()), "correct"),
    ("kernel-h100-measured", "intensity", str(2 * _kernel_intensity()), "incorrect"),
    ("kernel-h100-measured", "t_lower", "lots", "unreadable"),
    ("model-gpt2-params", "params", str(_gpt2_small_params()), "correct"),
    ("model-gpt2-params", "params", str(2 * _gpt2_small_params()), "incorrect"),
    ("model-gpt2-params", "params", "124M parameters", None),
    ("model-gpt2-params", "params", "a lot", "unreadable"),
    ("model-70b-v5e-fit", "fits", "yes", None),
    ("serve-70b-decode", "weights_bytes", "1 GB", "incorrect"),
    ("serve-70b-decode", "tokens_per_s", "fast", "unreadable"),
    ("train-8b-zero", "memory_per_device", "80 GB", None),
    ("largest-model", "N", str(_largest_model()), "correct"),  # givens and equations alone
    ("largest-model", "N", str(_largest_model() + 1), "incorrect"),
]

# sp-given: all-gather then reduce-scatter of a 4096 x 4096 bf16 tensor over P = 4 on 1e11 B/s,
# each (P - 1)/P · bytes / bandwidth
_SP_SECONDS = 2 * Fraction(3, 4) * 4096 * 4096 * 2 / Fraction(10**11)
COMMS_CORPUS = [
    ("sp-given", "t_comms", f"{float(_SP_SECONDS * 10**6)} us", "correct"),
    ("sp-given", "t_comms", f"{float(_SP_SECONDS * 10**6) * 2} us", "incorrect"),
    ("sp-given", "t_comms", "quick", "unreadable"),
    ("ar-h100", "t_comms", "1 ms", None),
]


def _derive_check(set_path: Path, corpus: list, tmp: Path, *trust: str) -> list[dict]:
    """``derive check --answers`` on the corpus, one row a claim."""
    answers = tmp / "answers.csv"
    with answers.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["who", "problem", "quantity", "claim"])
        writer.writerows(["t", p, q, c] for p, q, c, _ in corpus)
    done = subprocess.run(
        [sys.executable, "-m", "derive", "check", "--problem-set", str(set_path)]
        + ["--answers", str(answers), *trust],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode in (0, 1), done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def judge_in_node(site: Path, runtime: Path, jobs: list[dict]) -> dict:
    """The site's checker booted in Pyodide under Node, answering ``jobs`` in order."""
    done = subprocess.run(
        ["node", str(JUDGE), str(site), str(runtime)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _compare(corpus: list, replies: list[dict], rows: list[dict]) -> None:
    for (problem, quantity, claim, verdict), reply, row in zip(corpus, replies, rows, strict=True):
        where = f"{problem} {quantity} {claim!r}"
        assert reply["status"] == 200, (where, reply)
        got = reply["data"]
        assert got["verdict"] == row["verdict"], where
        if verdict is not None:
            assert got["verdict"] == verdict, where
        if row["verdict"] == "unreadable":
            assert got["diagnosis"] == [row["reason"]], where
            continue
        assert " | ".join(got["diagnosis"]) == row["diagnosis"], where
        assert (got["read_as"] or "") == row["read_as"], where
        assert (got["expected"] or "") == row["expected"], where


def test_pyodide_verdicts_equal_derive_check(tmp_path):
    runtime = pyodide_or_skip()
    site = publish(tmp_path, "--pyodide", str(runtime))
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    assert size <= MAX_SITE_BYTES, f"the site is {size / 1e6:.1f} MB"
    jobs = [
        {"path": "/api/check", "body": {"problem": p, "quantity": q, "answer": c}}
        for p, q, c, _ in BUILTIN_CORPUS
    ]
    jobs.append({"path": "/api/read", "body": {"problem": "q1", "answer": "2 B D F"}})
    jobs.append(
        {"path": "/api/check", "body": {"problem": "nope", "quantity": "flops", "answer": "1"}}
    )
    jobs.append({"path": "/api/check", "body": {"problem": "q1", "quantity": 3, "answer": "1"}})
    judged = judge_in_node(site, runtime, jobs)
    replies = judged["replies"]
    rows = _derive_check(BUILTIN, BUILTIN_CORPUS, tmp_path)
    _compare(BUILTIN_CORPUS, replies[: len(BUILTIN_CORPUS)], rows)
    read, unknown, bad = replies[len(BUILTIN_CORPUS) :]
    assert read["data"]["ok"] is True and read["data"]["latex"] == "2 B D F"
    assert unknown["status"] == 404 and "no such problem" in unknown["data"]["error"]
    assert bad["status"] == 422 and "quantity" in bad["data"]["error"]
    print(
        f"\nboot {judged['boot_ms'] / 1000:.1f} s; checks (ms):", [round(r["ms"]) for r in replies]
    )


def test_the_memory_snapshot_never_read_the_set(tmp_path):
    """python/snapshot.gz, Pyodide's memory with the judge's modules imported, is made by a
    Python that never reads the set (derive/web/node/make-snapshot.mjs): under --hide-expected
    it holds none of the set's text (its title, its problems' titles), so none of its answers;
    python/files.gz holds the two zips' files and no file of the set."""
    runtime = pyodide_or_skip()
    graded = ROOT / "tests" / "sets" / "graded.toml"
    site = publish(tmp_path, str(graded), "--hide-expected", "--pyodide", str(runtime))
    settings = (site / "index.html").read_text(encoding="utf-8")
    assert (
        '"snapshot": "python/snapshot.gz"' in settings and '"files": "python/files.gz"' in settings
    )
    heap = gzip.decompress((site / "python" / "snapshot.gz").read_bytes())
    data = tomllib.loads(graded.read_text(encoding="utf-8"))
    titles = [data["title"], *(p["title"] for p in data["problem"])]
    assert len(heap) > 10**7 and b"sympy" in heap
    assert [t for t in titles if t.encode() in heap] == []
    files = gzip.decompress((site / "python" / "files.gz").read_bytes())
    index = json.loads(files[4 : 4 + int.from_bytes(files[:4], "little")])
    names = {name for name, _ in index}
    zipped = {n for z in ("derive-site.zip", "derive-bytecode.zip")
              for n in zipfile.ZipFile(site / "python" / z).namelist()}  # fmt: skip
    assert "derive/web/in_browser.py" in names and names <= zipped


def test_a_publish_with_pyodide_is_deterministic(tmp_path):
    """Two publishes of the same tree write the same files, byte for byte, the memory snapshot
    included: make-snapshot.mjs fixes Python's hash seed, the random bytes and clocks Pyodide
    reads while it starts, and keeps the publish's temporary folder out of the heap."""
    runtime = pyodide_or_skip()
    sites = [publish(tmp_path / run, "--pyodide", str(runtime)) for run in ("a", "b")]
    files = [sorted(p.relative_to(site) for p in site.rglob("*") if p.is_file()) for site in sites]
    assert files[0] == files[1] and Path("python/snapshot.gz") in files[0]
    for name in files[0]:
        assert (sites[0] / name).read_bytes() == (sites[1] / name).read_bytes(), name


def test_the_standard_library_ships_with_the_bytecode_the_judge_imports(tmp_path):
    """python/stdlib.zip is Pyodide's own with an unchecked ``.pyc`` (PEP 552) beside the
    source of each module the judge imported, where zipimport looks first."""
    runtime = pyodide_or_skip()
    site = publish(tmp_path, str(HANDOUT), "--pyodide", str(runtime))
    page = (site / "index.html").read_text(encoding="utf-8")
    assert '"stdlib": "python/stdlib.zip"' in page
    own = zipfile.ZipFile(runtime / "python_stdlib.zip")
    shipped = zipfile.ZipFile(site / "python" / "stdlib.zip")
    added = sorted(set(shipped.namelist()) - set(own.namelist()))
    assert set(own.namelist()) <= set(shipped.namelist())
    assert {"fractions.pyc", "json/__init__.pyc", "inspect.pyc"} <= set(added)
    for name in added:
        assert name.endswith(".pyc") and name[:-1] in own.namelist(), name
        assert shipped.read(name)[4:8] == (1).to_bytes(4, "little"), name  # hash, unchecked


def test_pyodide_comms_set_trusted_and_expected_hidden(tmp_path):
    runtime = pyodide_or_skip()
    site = publish(tmp_path, str(COMMS), "--trust", "--hide-expected", "--pyodide", str(runtime))
    jobs = [
        {"path": "/api/check", "body": {"problem": p, "quantity": q, "answer": c}}
        for p, q, c, _ in COMMS_CORPUS
    ]
    replies = judge_in_node(site, runtime, jobs)["replies"]
    rows = _derive_check(COMMS, COMMS_CORPUS, tmp_path, "--trust", "--hide-expected")
    for reply in replies:
        assert "expected" not in reply["data"] and "expected_latex" not in reply["data"]
        reply["data"]["expected"] = None
    _compare(COMMS_CORPUS, replies, rows)


def test_model_config_files_travel_with_the_set(tmp_path):
    config = ROOT / "tests" / "data" / "configs" / "gemma-tiny.json"
    (tmp_path / "configs").mkdir()
    shutil.copy(config, tmp_path / "configs" / "tiny.json")
    homework = tmp_path / "homework.toml"
    homework.write_text(
        'title = "A config"\n[[problem]]\nid = "cfg"\ntitle = "a model from its config"\n'
        'model = "configs/tiny.json"\nask = ["params"]\n',
        encoding="utf-8",
    )
    site = publish(tmp_path, str(homework))
    shipped = json.loads((site / "python" / "set.json").read_text(encoding="utf-8"))
    assert shipped["files"] == {"configs/tiny.json": config.read_text(encoding="utf-8")}
    assert shipped["trust"] is False and "operators" not in shipped["text"]


def test_time_budgets_run_inline_where_fork_cannot(monkeypatch):
    """Pyodide has an ``os.fork`` that cannot succeed: derive.deadline must not call it there."""
    import derive.deadline as deadline

    def no_fork() -> int:
        raise OSError("fork is not supported in a browser")

    monkeypatch.setattr(deadline, "CAN_FORK", False)
    monkeypatch.setattr(os, "fork", no_fork)
    assert deadline.run_with_deadline(sum, [1, 2, 3], seconds=5, what="a sum") == 6


# ---- a site that heals (issue 49, item 3) ----------------------------------------------

TABLE_SET = """[[operator]]
name = "mm_sharded"
dims = ["B", "D", "F", "P"]
flops = "2*B*D*F/P"
reads = [ { name = "X", shape = ["B", "D/P"] }, { name = "Y", shape = ["D/P", "F"] } ]
writes = [ { name = "Z", shape = ["B", "F"] } ]

[[problem]]
id = "sharded"
operator = "mm_sharded"
dtype = "bf16"
chip = "tpu-v5e"
set = { P = 8 }
"""


def _boot(site: Path, runtime: Path, bytecode: Path | None, **env: str):
    """The site's checker booted under Node with ``bytecode`` (as the page boots it): the
    exit code, the reply JSON and what went to the console (stderr)."""
    flops = str(sympy.Rational(2, 8) * sympy.Symbol("B") * sympy.Symbol("D") * sympy.Symbol("F"))
    job = {"path": "/api/check", "body": {"problem": "sharded", "quantity": "flops"}}
    job["body"]["answer"] = flops
    argv = ["node", str(JUDGE), str(site), str(runtime), *([str(bytecode)] if bytecode else [])]
    done = subprocess.run(
        argv,
        input=json.dumps([job]),
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **env},
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def _cut(path: Path, into: Path) -> Path:
    data = path.read_bytes()
    into.write_bytes(data[: len(data) // 2])
    return into


def test_a_damaged_zip_never_stops_the_checker_for_good(tmp_path):
    runtime = pyodide_or_skip()
    homework = tmp_path / "tables.toml"
    homework.write_text(TABLE_SET, encoding="utf-8")
    site = publish(tmp_path, str(homework), "--pyodide", str(runtime))
    page = (site / "index.html").read_text(encoding="utf-8")
    settings = json.loads(page.split('id="derive-site">')[1].split("</script>")[0])
    for name, key in (
        ("derive-site.zip", "python_sha256"),
        ("derive-bytecode.zip", "bytecode_sha256"),
    ):
        assert settings[key] == hashlib.sha256((site / "python" / name).read_bytes()).hexdigest()
    whole = site / "python" / "derive-bytecode.zip"
    code, judged, _ = _boot(site, runtime, whole)
    assert code == 0 and judged["bytecode_used"] is True
    assert judged["replies"][0]["data"]["verdict"] == "correct"
    cut = _cut(whole, tmp_path / "cut-bytecode.zip")
    # the hash tells a cut bytecode; without a hash (a kept copy), unpacking it fails: either
    # way the checker boots from its sources, and says why in the console only
    for env in ({}, {"DERIVE_NO_SHA256": "1"}):
        code, judged, console = _boot(site, runtime, cut, **env)
        assert code == 0 and judged["bytecode_used"] is False, (env, console[-2000:])
        assert judged["replies"][0]["data"]["verdict"] == "correct"
        assert "boots from its sources" in console
    # a damaged standard library (python/stdlib.zip) fails Pyodide's boot: it boots again
    # with its own, from the sources
    _cut(site / "python" / "stdlib.zip", site / "python" / "stdlib.zip")
    code, judged, console = _boot(site, runtime, whole)
    assert code == 0 and judged["bytecode_used"] is False, console[-2000:]
    assert judged["replies"][0]["data"]["verdict"] == "correct"
    assert "boots from its sources" in console
    _cut(site / "python" / "derive-site.zip", site / "python" / "derive-site.zip")
    code, judged, _ = _boot(site, runtime, None)
    assert code == 3 and "\n" not in judged["failed"]
    assert (
        judged["failed"]
        == "python/derive-site.zip is damaged (not the file the site was published with)"
    )


def test_the_page_says_one_line_and_to_reload():
    page = (ROOT / "derive" / "web" / "static" / "publish.js").read_text(encoding="utf-8")
    assert page.count("the checker could not start: ") == 2 and page.count("; reload the page") == 2
    worker = (ROOT / "derive" / "web" / "static" / "publish-worker.mjs").read_text(encoding="utf-8")
    assert "error: oneLine(e)" in worker and "console.error(" in worker


def test_the_site_judge_names_a_givens_problems_quantities_in_plain_words(tmp_path):
    """The in-browser judge (here in CPython, as the worker calls it) grades the built-in
    set's givens-and-equations problem, and a quantity it lacks is named in the student's
    terms (before: 404 "no such problem in this set")."""
    from derive.web.book import SetSource, parse_source
    from derive.web.in_browser import Judge, set_json

    source = SetSource(
        BUILTIN.read_text(encoding="utf-8"), str(BUILTIN), str(BUILTIN.parent), False
    )
    judge = Judge.from_json(set_json(source, parse_source(source), False), str(tmp_path))
    body = {"problem": "largest-model", "quantity": "N", "answer": str(_largest_model())}
    right = json.loads(judge.answer("/api/check", json.dumps(body)))
    assert right["status"] == 200 and right["data"]["verdict"] == "correct", right
    other = json.loads(judge.answer("/api/check", json.dumps({**body, "quantity": "flops"})))
    assert other["status"] == 422 and other["data"]["error"].endswith("its quantities: N")


def test_the_snapshots_warm_up_judges_a_problem_of_every_kind():
    """make-snapshot.mjs judges a made-up set before the snapshot is taken
    (derive/web/warm_up.toml: so a first check of each kind finds sympy's caches and derive's
    memos filled): each of its checks gets a verdict, none an error (an error would warm
    nothing), and none of its problems is one of the built-in set's."""
    from derive.web.in_browser import SET_FORMAT, Judge

    made_up = tomllib.loads((ROOT / "derive" / "web" / "warm_up.toml").read_text("utf-8"))
    data = {"format": SET_FORMAT, "origin": "warm_up.toml", "text": made_up["set"], "files": {}}
    judge = Judge.from_json(json.dumps({**data, "trust": False, "hide_expected": False}))
    for problem, quantity, answer in made_up["checks"]:
        body = json.dumps({"problem": problem, "quantity": quantity, "answer": answer})
        reply = json.loads(judge.answer("/api/check", body))
        assert reply["status"] == 200 and reply["data"]["verdict"], (problem, quantity, reply)
    problems = tomllib.loads(made_up["set"])["problem"]
    assert {"operator", "kernel", "model", "phase", "train"} <= {k for p in problems for k in p}
    assert {p["id"] for p in problems} == {c[0] for c in made_up["checks"]}
    builtin = tomllib.loads(BUILTIN.read_text(encoding="utf-8"))["problem"]
    tables = lambda p: {k: v for k, v in p.items() if k not in ("id", "title", "text", "ask")}  # noqa: E731
    assert not [p for p in problems if tables(p) in map(tables, builtin)]
    script = (ROOT / "derive" / "web" / "node" / "make-snapshot.mjs").read_text("utf-8")
    assert '"/derive/web/warm_up.toml"' in script and 'judge.answer("/api/check", body)' in script


def test_the_site_judge_warms_a_box_by_judging_it(tmp_path):
    """The worker warms the boxes of the problem the page shows (``Judge.warm`` with a
    quantity: a wrong answer judged, its diagnosis made); a box the problem lacks warms nothing
    and raises nothing (its check says so)."""
    from derive.web.book import SetSource, parse_source
    from derive.web.in_browser import Judge, set_json

    source = SetSource(
        BUILTIN.read_text(encoding="utf-8"), str(BUILTIN), str(BUILTIN.parent), False
    )
    judge = Judge.from_json(set_json(source, parse_source(source), False), str(tmp_path))
    for quantity in ("flops", "intensity", "no_such_box"):
        judge.warm("q1", 0, quantity)
    judge.warm("q1")
    body = {"problem": "q1", "quantity": "intensity", "answer": "40"}
    reply = json.loads(judge.answer("/api/check", json.dumps(body)))
    assert reply["status"] == 200 and reply["data"]["verdict"] == "incorrect", reply
