"""``derive export``: a set as PrairieLearn questions, a Moodle XML quiz and a QTI 1.2 package.

Every file the export of ``tests/sets/graded.toml`` and of the built-in set writes is checked
against its format's published schema where one exists, and every answer it carries is judged
by derive's own checker (what the LMS accepts is what ``derive check`` accepts):

- PrairieLearn: ``info.json`` against PrairieLearn's ``infoQuestion.json``, each ``pl-*``
  element's attributes against the element's schema (``pl-number-input.json``,
  ``pl-symbolic-input.json``, ``pl-string-input.json``); ``server.py`` is run in a bare interpreter (``python -I``, no
  derive) and its answers judged.
- QTI 1.2: the assessment against IMS's QTI ASI 1.2.1 DTD (``ims_qtiasiv1p2p1.dtd``); the
  manifest's resource as Canvas reads it.
- Moodle has no published schema: the XML is parsed and read as Moodle's importer reads it
  (``question/format/xml/format.php``: ``answer/@fraction``, ``answer/text``,
  ``answer/tolerance``, absolute).

The schema files are not part of this repository (they are PrairieLearn's and IMS's): the
tests read them from ``$DERIVE_EXPORT_SCHEMAS``, else from ``shared/schemas/`` beside the
repository, and skip the schema checks (only those) without them. Their sources:
PrairieLearn/PrairieLearn@88fb8556a7a1768e2082736be9095241b11238d7
``apps/prairielearn/src/schemas/schemas/infoQuestion.json``,
``apps/prairielearn/elements/pl-number-input/schemas/pl-number-input.json``,
``apps/prairielearn/elements/pl-symbolic-input/schemas/pl-symbolic-input.json``,
``apps/prairielearn/elements/pl-string-input/schemas/pl-string-input.json``; the IMS
QTI ASI 1.2.1 DTD (Final, 14 Feb 2003) as swl10/pyslet@b30e9a439f6c0f0e2d01f1ac80986944bed7427b
ships it, ``unittests/data_imsqtiv1p2p1/ims_qtiasiv1p2p1.dtd``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET
import zipfile
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

GRADED = ROOT / "tests" / "sets" / "graded.toml"
VARIANTS = ROOT / "tests" / "sets" / "graded_variants.toml"
SCHEMAS = Path(os.environ.get("DERIVE_EXPORT_SCHEMAS") or ROOT.parent / "shared" / "schemas")
TARGETS = ("prairielearn", "moodle", "qti")
SETS = {"graded": str(GRADED), "rooflines": None}


def _schema(name: str) -> Path:
    path = SCHEMAS / name
    if not path.is_file():
        pytest.skip(f"{name} is not in {SCHEMAS} (set DERIVE_EXPORT_SCHEMAS): see the docstring")
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """Each set exported to each format: (set stem, format) → the export's folder."""
    out = {}
    for stem, path in SETS.items():
        for target in TARGETS:
            folder = tmp_path_factory.mktemp(f"{stem}-{target}")
            argv = ["export", *([path] if path else []), "--to", target, "-o", str(folder)]
            result = run_cli(argv)
            assert result.code == 0, result.err
            out[stem, target] = folder
    return out


@pytest.fixture(scope="module")
def graders():
    """Per set stem: its problem set and derive's checker of its answers."""
    from derive.web.book import load_source
    from derive.web.grading import Grader

    out = {}
    for stem, path in SETS.items():
        _, pset = load_source(path)
        entries = {e.id: e for e in (*pset.entries(), *pset.natives)}
        out[stem] = (pset, Grader(entries, pset.operators, problem_set=pset))
    return out


def _rtol(pset, pid: str, quantity: str) -> Fraction:
    return Fraction(pset.rtol(pid, quantity) or "0.01")  # derive's default tolerance, 1 %


def _claim(number: str, unit: str) -> str:
    return f"{number} {unit}".strip()


# --- PrairieLearn ---------------------------------------------------------------------------


class _Elements(HTMLParser):
    """The ``pl-*`` elements of a question.html, with their attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.startswith("pl-"):
            self.found.append((tag, {k: v or "" for k, v in attrs}))


def _pl_elements(text: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(text)
    return parser.found


def _run_servers(folders: list[Path], seed: int) -> dict[str, dict]:
    """Each question's ``generate(data)`` run in a bare interpreter: folder name → data."""
    script = (
        "import json, runpy, sys\n"
        "sys.modules['derive'] = None  # import derive fails: grading needs none of it\n"
        "out = {}\n"
        "for folder in sys.argv[2:]:\n"
        "    data = {'params': {}, 'correct_answers': {}, 'variant_seed': int(sys.argv[1])}\n"
        "    runpy.run_path(folder + '/server.py')['generate'](data)\n"
        "    out[folder] = data\n"
        "print(json.dumps(out))\n"
    )
    argv = [sys.executable, "-I", "-c", script, str(seed), *map(str, folders)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd="/")
    return {Path(k).name: v for k, v in json.loads(done.stdout).items()}


@pytest.mark.parametrize("stem", SETS)
def test_prairielearn_info_json_follows_prairielearns_schema(exported, graders, stem):
    import jsonschema

    schema = json.loads(_schema("infoQuestion.json").read_text(encoding="utf-8"))
    pset, _ = graders[stem]
    folders = sorted((exported[stem, "prairielearn"] / "questions").iterdir())
    assert [f.name for f in folders] == sorted(f"{stem}-{pid}" for pid in pset.order)
    for folder in folders:
        info = json.loads((folder / "info.json").read_text(encoding="utf-8"))
        jsonschema.Draft7Validator(schema).validate(info)
        pid = folder.name.removeprefix(f"{stem}-")
        assert info["uuid"] == str(uuid.uuid5(uuid.NAMESPACE_URL, f"derive:{stem}/{pid}"))
        assert info["type"] == "v3" and info["topic"] == pset.title


@pytest.mark.parametrize("stem", SETS)
def test_prairielearn_inputs_follow_the_elements_schemas(exported, graders, stem):
    import jsonschema

    schemas = {
        tag: json.loads(_schema(f"{tag}.json").read_text(encoding="utf-8"))
        for tag in ("pl-number-input", "pl-symbolic-input", "pl-string-input")
    }
    pset, _ = graders[stem]
    for folder in (exported[stem, "prairielearn"] / "questions").iterdir():
        pid = folder.name.removeprefix(f"{stem}-")
        text = (folder / "question.html").read_text(encoding="utf-8")
        elements = _pl_elements(text)
        assert elements[0] == ("pl-question-panel", {})
        for tag, attrs in elements[1:]:
            jsonschema.Draft4Validator(schemas[tag]).validate(attrs)
            if tag == "pl-number-input":  # the checker's tolerance, relative, and no other
                assert Fraction(attrs["rtol"]) == _rtol(pset, pid, attrs["answers-name"])
                assert attrs["atol"] == "0" and attrs["comparison"] == "relabs"


@pytest.mark.parametrize("stem", SETS)
def test_prairielearn_server_grades_without_derive(exported, graders, stem):
    """``server.py`` runs with no derive importable; every answer it states is right by
    derive's checker, and the question text and givens render in the question's panel."""
    from derive.web.book import build_workbook

    pset, grader = graders[stem]
    pages = build_workbook(pset, hints=False).pages
    folders = sorted((exported[stem, "prairielearn"] / "questions").iterdir())
    datas = _run_servers(folders, seed=7)
    asked = 0
    for folder in folders:
        pid = folder.name.removeprefix(f"{stem}-")
        data = datas[folder.name]
        question = (folder / "question.html").read_text(encoding="utf-8")
        inputs = {a["answers-name"]: (tag, a) for tag, a in _pl_elements(question)[1:]}
        assert set(inputs) == set(data["correct_answers"])
        for name, answer in data["correct_answers"].items():
            tag, attrs = inputs[name]
            number = tag == "pl-number-input"
            claim = _claim(repr(answer), attrs.get("suffix", "")) if number else answer
            assert grader.check(pid, name, claim).verdict == "correct", (pid, name, claim)
            asked += 1
        assert question.count("{{") == 1  # mustache's one tag: the variant's question
        panel = question.replace("{{{params.html}}}", data["params"]["html"])
        for part in ("question_html", "givens_html"):
            assert pages[pid].detail[part] in panel
    assert asked >= len(folders)


# --- Moodle ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stem", SETS)
def test_moodle_xml_is_what_moodles_importer_reads(exported, graders, stem):
    pset, grader = graders[stem]
    (path,) = exported[stem, "moodle"].glob("*.xml")
    quiz = ET.parse(path).getroot()
    assert quiz.tag == "quiz"
    category, seen = None, set()
    for question in quiz:
        kind = question.get("type")
        assert kind in ("category", "numerical", "essay", "truefalse")
        if kind == "category":
            category = question.findtext("category/text")
            assert category.startswith("$course$/top/")
            continue
        pid, quantity = category.rsplit("/", 2)[1:]
        seen.add(pid)
        text = question.find("questiontext")
        assert text.get("format") == "html" and question.findtext("name/text")
        if kind == "essay":  # a formula: graded by hand, the answer in the grader's information
            assert "The answer:" in question.findtext("graderinfo/text")
            continue
        if kind == "truefalse":  # Moodle's true is derive's yes
            fractions = {a.findtext("text"): a.get("fraction") for a in question.iter("answer")}
            (right,) = (word for word, fraction in fractions.items() if fraction == "100")
            assert sorted(fractions.values()) == ["0", "100"]
            claim = {"true": "yes", "false": "no"}[right]
            assert grader.check(pid, quantity, claim).verdict == "correct"
            continue
        (answer,) = question.findall("answer")
        assert answer.get("fraction") == "100"
        value, tolerance = float(answer.findtext("text")), float(answer.findtext("tolerance"))
        unit = re.search(r"\(in ([^)]*)\)\?</p>$", text.findtext("text"))
        claim = _claim(answer.findtext("text"), unit[1] if unit else "")
        assert grader.check(pid, quantity, claim).verdict == "correct"
        assert tolerance == pytest.approx(abs(value) * float(_rtol(pset, pid, quantity)))
        if value:  # twice the tolerance off is wrong for derive too
            wrong = _claim(repr(value + 2 * tolerance), unit[1] if unit else "")
            assert grader.check(pid, quantity, wrong).verdict == "incorrect"
    assert seen <= set(pset.order) and seen


# --- QTI 1.2 --------------------------------------------------------------------------------


def _without_namespaces(text: str) -> bytes:
    """The root's namespace declarations left out: the DTD is QTI's namespace-free form."""
    return re.sub(r'\s(?:xmlns(?::\w+)?|xsi:schemaLocation)="[^"]*"', "", text, count=3).encode()


def _qti_valid(text: str) -> bool:
    from lxml import etree

    dtd = etree.DTD(str(_schema("ims_qtiasiv1p2p1.dtd")))
    return dtd.validate(etree.fromstring(_without_namespaces(text)))


@pytest.mark.parametrize("stem", SETS)
def test_qti_assessment_follows_the_ims_dtd(exported, stem):
    folder = exported[stem, "qti"]
    text = (folder / stem / f"{stem}.xml").read_text(encoding="utf-8")
    assert _qti_valid(text)
    broken = text.replace("<presentation>", "<presentation><flavour/>", 1)
    assert not _qti_valid(broken)  # the DTD does check


@pytest.mark.parametrize("stem", SETS)
def test_qti_package_is_what_canvas_imports(exported, graders, stem):
    pset, grader = graders[stem]
    folder = exported[stem, "qti"]
    manifest = ET.parse(folder / "imsmanifest.xml").getroot()
    cp = "{http://www.imsglobal.org/xsd/imscp_v1p1}"
    (resource,) = manifest.iter(f"{cp}resource")
    assert resource.get("type") == "imsqti_xmlv1p2"
    (href,) = (f.get("href") for f in resource.iter(f"{cp}file"))
    with zipfile.ZipFile(folder / f"{stem}.zip") as packed:
        assert sorted(packed.namelist()) == sorted(["imsmanifest.xml", href])
        for name in packed.namelist():
            assert packed.read(name) == (folder / name).read_bytes()
    ns = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
    root = ET.parse(folder / href).getroot()
    items = root.findall(".//q:item", ns)
    assert items
    for item in items:
        kind = item.find(".//q:fieldentry", ns).text
        pid = next(p for p in sorted(pset.order, key=len, reverse=True)
                   if item.get("ident").startswith(f"derive-{stem}-{p}-"))  # fmt: skip
        quantity = item.get("ident").removeprefix(f"derive-{stem}-{pid}-").rsplit("-", 1)[0]
        if kind == "essay_question":
            assert "The answer:" in item.find(".//q:itemfeedback//q:mattext", ns).text
            continue
        if kind == "true_false_question":
            labels = [label.get("ident") for label in item.iter(f"{{{ns['q']}}}response_label")]
            right = item.find(".//q:varequal", ns).text
            assert labels == ["yes", "no"] and right in labels
            assert grader.check(pid, quantity, right).verdict == "correct"
            continue
        assert kind == "numerical_question"
        assert item.find(".//q:render_fib", ns).get("fibtype") == "Decimal"
        low = float(item.find(".//q:vargte", ns).text)
        high = float(item.find(".//q:varlte", ns).text)
        middle, unit = (
            (low + high) / 2,
            re.search(r"\(in ([^)]*)\)\?</p>$", item.find(".//q:mattext", ns).text),
        )
        assert (
            grader.check(pid, quantity, _claim(repr(middle), unit[1] if unit else "")).verdict
            == "correct"
        )
        rtol = float(_rtol(pset, pid, quantity))
        assert (high - low) / 2 == pytest.approx(abs(middle) * rtol, rel=1e-9, abs=1e-300)


# --- every format ---------------------------------------------------------------------------


def _shown(folder: Path, target: str) -> str:
    """Every question's HTML as the LMS reads it (XML text decoded)."""
    if target == "prairielearn":
        return "\n".join(p.read_text(encoding="utf-8") for p in folder.rglob("server.py"))
    texts = [e.text or "" for p in folder.rglob("*.xml") for e in ET.parse(p).iter()]
    return "\n".join(texts)


HOSTILE = """title = "A <b>bold</b> set"
text = "Answer it."

[[problem]]
id = "mm"
title = "Tom & Jerry's <i>matmul</i>"
text = "Is <script>alert(1)</script> & B < D \\"quoted\\"? Give $I$."
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 4096, D = 4096, F = 4096 }
ask = ["intensity"]
"""


@pytest.mark.parametrize("target", TARGETS)
def test_a_sets_text_is_escaped_in_every_format(tmp_path, target):
    path = tmp_path / "hostile.toml"
    path.write_text(HOSTILE, encoding="utf-8")
    result = run_cli(["export", str(path), "--to", target, "-o", str(tmp_path / "out")])
    assert result.code == 0, result.err
    shown = _shown(tmp_path / "out", target)
    if target == "prairielearn":  # the HTML sits in a Python string of server.py
        shown = shown.encode().decode("unicode_escape")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; B &lt; D" in shown
    assert "<script>" not in shown
    for path in (tmp_path / "out").rglob("*.xml"):
        ET.parse(path)  # a title with markup still leaves the XML well formed
    if target == "prairielearn":
        info = json.loads(next((tmp_path / "out").rglob("info.json")).read_text(encoding="utf-8"))
        assert info["title"] == "Tom & Jerry's <i>matmul</i>"  # JSON, not HTML: as typed


TOLERANT = """title = "Five per cent"
text = "Answer within 5 %."

[[problem]]
id = "mm"
title = "A square matmul"
text = "Its arithmetic intensity?"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 4096, D = 4096, F = 4096 }
ask = ["intensity"]
rtol = "0.05"
"""


def test_a_sets_tolerance_is_the_lmss(tmp_path):
    """A problem's ``rtol = "0.05"`` is PrairieLearn's rtol, Moodle's tolerance (5 % of the
    value, absolute) and QTI's range (the value ± 5 %)."""
    path = tmp_path / "tolerant.toml"
    path.write_text(TOLERANT, encoding="utf-8")
    for target in TARGETS:
        assert (
            run_cli(["export", str(path), "--to", target, "-o", str(tmp_path / target)]).code == 0
        )
    question = (tmp_path / "prairielearn/questions/tolerant-mm/question.html").read_text()
    (_, attrs), *_ = (e for e in _pl_elements(question) if e[0] == "pl-number-input")
    assert attrs["rtol"] == "0.05"
    answer = ET.parse(tmp_path / "moodle/tolerant.moodle.xml").find(".//answer")
    value = float(answer.findtext("text"))
    n = 4096  # the intensity, computed here: 2·B·D·F FLOPs over bf16's 2 bytes of X, Y and Z
    assert value == pytest.approx(2 * n**3 / (2 * (n * n + n * n + n * n)), rel=1e-15)
    assert float(answer.findtext("tolerance")) == pytest.approx(0.05 * value)
    ns = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
    item = ET.parse(tmp_path / "qti/tolerant/tolerant.xml").find(".//q:item", ns)
    low, high = (float(item.find(f".//q:{v}", ns).text) for v in ("vargte", "varlte"))
    assert (low, high) == pytest.approx((0.95 * value, 1.05 * value))


def test_an_export_is_byte_identical_from_run_to_run(exported, tmp_path):
    for target in TARGETS:
        again = tmp_path / target
        assert run_cli(["export", str(GRADED), "--to", target, "-o", str(again)]).code == 0
        first = exported["graded", target]
        names = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
        assert names == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
        for name in names:
            assert (first / name).read_bytes() == (again / name).read_bytes(), name


def test_every_variant_is_exported(tmp_path):
    """The 40-variant assignment: a PrairieLearn question carries every variant's answers,
    Moodle a category per quantity with one question per variant, QTI a group drawing one."""
    from derive.problem.sets.problem_set import load_problem_set
    from derive.problem.sets.variants import variants_of

    count = len(variants_of(load_problem_set(VARIANTS)))
    assert count == 40
    for target in TARGETS:
        out = tmp_path / target
        r = run_cli(["export", str(VARIANTS), "--to", target, "-o", str(out)])
        assert r.code == 0, r.err
    folders = sorted((tmp_path / "prairielearn/questions").iterdir())
    assert folders
    for folder in folders:
        assert (folder / "server.py").read_text().count("'answers':") == count
        assert json.loads((folder / "info.json").read_text())["singleVariant"] is False
        if (SCHEMAS / "infoQuestion.json").is_file():
            import jsonschema

            schema = json.loads(_schema("infoQuestion.json").read_text(encoding="utf-8"))
            jsonschema.Draft7Validator(schema).validate(
                json.loads((folder / "info.json").read_text())
            )
    quiz = ET.parse(next((tmp_path / "moodle").glob("*.moodle.xml"))).getroot()
    kinds = [q.get("type") for q in quiz]
    assert kinds.count("category") * (count + 1) == len(kinds)
    (text,) = [p.read_text(encoding="utf-8") for p in (tmp_path / "qti").rglob("*.xml")
               if p.name != "imsmanifest.xml"]  # fmt: skip
    assert "<selection_number>1</selection_number>" in text
    if (SCHEMAS / "ims_qtiasiv1p2p1.dtd").is_file():
        assert _qti_valid(text)


def test_a_yes_no_is_a_true_false_question(exported):
    quiz = ET.parse(exported["rooflines", "moodle"] / "rooflines.moodle.xml").getroot()
    names = [q.findtext("name/text") for q in quiz if q.get("type") == "truefalse"]
    assert any(name.endswith("Whether it fits") for name in names)


def test_an_answer_no_box_takes_is_named_and_left_out(monkeypatch, cli, tmp_path):
    """An answer that is no number, yes/no or formula (neither set has one: the test makes
    ``t_lower`` one) is named on the output and left out of the files."""
    import derive.commands.export as export

    real = export._answer
    monkeypatch.setattr(
        export, "_answer", lambda box, *a: None if box.quantity == "t_lower" else real(box, *a)
    )
    result = cli(["export", str(GRADED), "--to", "moodle", "-o", str(tmp_path / "m")])
    assert result.code == 0
    assert (
        "not exported: qwen-decode/t_lower (a word: no box of these formats takes it)" in result.out
    )
    assert "Lower bound of the step" not in (tmp_path / "m/graded.moodle.xml").read_text()


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["export", "missing.toml", "--to", "qti", "-o", "OUT"], "missing.toml"),
        (["export", str(GRADED), "--to", "blackboard", "-o", "OUT"], "invalid choice"),
        (["export", str(GRADED), "--to", "moodle"], "-o"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(cli, tmp_path, argv, why):
    out = tmp_path / "out"
    result = cli([str(out) if a == "OUT" else a for a in argv])
    assert result.code == 2
    assert result.err.count("\n") == 1 and result.err.startswith("error:") and why in result.err
    assert not out.exists()


def test_a_folder_of_someone_elses_is_never_written(cli, tmp_path):
    out = tmp_path / "course"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = cli(["export", str(GRADED), "--to", "prairielearn", "-o", str(out)])
    assert result.code == 2 and result.err.startswith("error: -o ")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
