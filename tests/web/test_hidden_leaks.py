"""Hidden means hidden, by construction (issue 47, item 1): under ``--hide-expected`` no byte a
student can fetch states an asked value.

Every asked quantity of the built-in set and of ``tests/sets/graded.toml`` is claimed wrong
(at distances that are no named slip's ratio); every endpoint's answer is then read (the set,
each problem, each step of the worked solution, the previews, the verdicts with their
diagnoses, a derivation's check) and, for ``derive publish --hide-expected``, every file of
the site, the members of its zips too. Each is scanned for each expected value in every form
derive prints a number: exact (``9850/41``, ``\\frac{9850}{41}``, ``8,030,261,248``), decimal
at three to six significant digits, scientific (``1.2444e8``, ``1.2444e+08``,
``1.2444 \\times 10^{8}``), in its unit and scaled to the units derive prints it in (ms, µs,
kB, GB, GiB, a percentage, days as seconds); a formula as derive prints it, as the result of
an equation (``= \\frac{2 B D F}{…}``).

Small numbers (``2``, ``16``, ``0.5``, ``400``) are everywhere and say nothing: a form of
fewer than 3 significant characters is not scanned (the skip is the form's, so ``121`` is
scanned and ``1.2e2`` is not). A number of the set's own text (a given: ``B = 128`` beside a
KV cache of 128 KiB) is shown by design and not scanned. The files a published site holds
whatever its set (the page's script and styles, the zip's data files: chips, operators,
templates) are scanned for forms of 4 significant characters or more: a three-digit rounding
(``132`` µs, an H100's 132 SMs) meets them by chance. The third-party packages a published site carries (sympy, mpmath, jinja2,
markupsafe, pylatexenc) and KaTeX are library code that knows nothing of the set, and
derive's own modules in the zip are its program (their doctests use the chips the built-in set
uses, so an H100's ridge 9850/41 is in them whatever is asked): neither is scanned; every
other file of derive's in the zip (data, templates) is.

The expected values come from derive's own unhidden checker: this test is about what is
shown, not about what is right (other tests recompute the values from their inputs).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from fractions import Fraction
from functools import cache

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from conftest import ROOT
from starlette.testclient import TestClient

from derive.web.app import LOOPBACK_HOSTS, create_app
from derive.web.book import build_workbook, load_source
from derive.web.pack import PACKAGES
from derive.web.pool import PoolSettings, WorkerPool, grader_of

SETS = {"built-in": None, "graded": str(ROOT / "tests" / "sets" / "graded.toml")}
JSON = {"content-type": "application/json"}
WRONG = (Fraction(31, 100), Fraction(131, 100), Fraction(37))  # no slip's ratio
_EXACT = re.compile(
    r"^(?:[A-Za-z_]\w* [≥≤] )?(?P<n>-?\d+(?:\.\d+)?(?:/\d+)?)(?: (?P<unit>[^\d]*))?$"
)
_SI = {"s": (1, 10**3, 10**6, 10**9), "B": (1, Fraction(1, 10**3), Fraction(1, 10**6),
       Fraction(1, 10**9), Fraction(1, 10**12))}  # fmt: skip


def _binary(value: Fraction) -> Fraction:
    """The scale of the binary unit derive prints bytes in (KiB, MiB, GiB, …: 1 to 1024 of it)."""
    k = 0
    while value / 2 ** (10 * (k + 1)) >= 1 and k < 5:
        k += 1
    return Fraction(1, 2 ** (10 * k))


def _significant(form: str) -> int:
    """Significant characters: digits without leading zeros (nor an integer's trailing ones)."""
    mantissa = re.split(r"[eE]| \\times", form)[0].replace(",", "").replace("-", "")
    if "." not in mantissa and "/" not in mantissa and "{" not in mantissa:
        mantissa = mantissa.rstrip("0")
    return len(mantissa.replace(".", "").lstrip("0"))


def _decimals(x: Fraction) -> set[str]:
    """``x`` as decimals at 3 to 6 significant digits, fixed and scientific."""
    f = float(x)
    out = set()
    for n in range(3, 7):
        out.add(f"{f:.{n}g}")
        sci = f"{f:.{n - 1}e}"
        mantissa, exponent = sci.split("e")
        out |= {sci, f"{mantissa}e{int(exponent)}", f"{mantissa} \\times 10^{{{int(exponent)}}}"}
        if abs(f) >= 1:
            whole = len(str(int(abs(f))))
            out.add(f"{f:.{max(n - whole, 0)}f}")
    return out


def forms(expected: str) -> set[str]:
    """Every form derive prints the number ``expected`` states, of 3 or more significant
    characters (none for a formula or a truth value)."""
    m = _EXACT.match(expected.split(" ≈ ")[0].strip())
    if m is None:
        return set()
    value = Fraction(m["n"])
    if value == 0:
        return set()
    unit = (m["unit"] or "").strip()
    out = {m["n"]}
    if value.denominator != 1:
        out |= {f"\\frac{{{value.numerator}}}{{{value.denominator}}}"}
    else:
        out.add(f"{value.numerator:,}")
    scales: tuple = (1,)
    if unit == "s":
        scales = _SI["s"]
    elif unit in ("B", "bytes") or unit.startswith("B/"):
        scales = (*_SI["B"], _binary(value))
    elif unit == "days":
        scales = (1, 86400)
    elif not unit:
        scales = (1, 100)  # a ratio, as a percentage too
    for s in scales:
        out |= _decimals(value * s)
    return {f for f in out if _significant(f) >= 3}


_BOUNDARY = r"(?<![\w.]){}(?![\d]|\.\d)"  # not inside a hash or a longer number


def leaks(text: str, values: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(answer, form) for each form of an answer that ``text`` holds as a whole number."""
    found = []
    flat = text.replace(" ", "").replace("\\\\", "\\")  # JSON escapes a backslash
    for answer, fs in values.items():
        for form in fs:
            if form.startswith("="):  # a formula as a result, as derive prints it
                if re.search(re.escape(form) + r"(?=\$|\\\]|\\\)|<|,|;|\\n|$)", flat):
                    found.append((answer, form))
            elif form in text and re.search(_BOUNDARY.format(re.escape(form)), text):
                found.append((answer, form))
    return found


@cache
def _prepared(name: str):
    source, pset = load_source(SETS[name])
    grader = grader_of(pset)
    values = {}
    book = build_workbook(pset, hints=True, show_expected=False)
    from derive.web.in_browser import _without_expect

    given = _without_expect(source.text)
    for pid, page in book.pages.items():
        for box in page.asked:
            try:
                result = grader.check(pid, box.quantity, "1")
            except Exception:  # a quantity that does not apply: nothing to hide
                continue
            expected, latex = result.expected or "", (result.expected_latex or "").replace(" ", "")
            fs = {
                f for f in forms(expected) if not re.search(_BOUNDARY.format(re.escape(f)), given)
            }
            if not fs and re.search(r"[A-Z]", latex) and len(latex) > 3:  # a formula in dims
                fs = {"=" + latex}
            if fs:
                values[f"{pid}/{box.quantity}"] = (expected, fs)
    values.update(_leading_values(pset, book, given))
    return source, pset, book, values


def _leading_values(pset, book, given):
    """The right answers at leading order of the operator problems (``B ≥ 121`` for a
    crossover whose exact form is a formula): a student who types them is right too."""
    from derive.checking.quantities import leading
    from derive.pipeline import derive_spec
    from derive.problem.sets.registry import set_registry

    registry, out = set_registry(pset, trust=True), {}
    for entry in pset.problems:
        d = derive_spec(entry.spec, registry)
        if not hasattr(d, "analysis") or not hasattr(d.analysis, "problem"):
            continue
        for box in book.pages[entry.id].asked:
            try:
                t = leading(d.analysis, box.quantity, d.analysis.problem.regime)
            except Exception:
                continue
            if t is None or t.value is None or not t.value.is_number:
                continue
            for text in {str(t.value), *([str(t.threshold)] if t.threshold else [])}:
                fs = {
                    f for f in forms(text) if not re.search(_BOUNDARY.format(re.escape(f)), given)
                }
                if fs:
                    out[f"{entry.id}/{box.quantity} at leading order {text}"] = (text, fs)
    return out


def _wrong_claims(expected: str) -> list[str]:
    m = _EXACT.match(expected.split(" ≈ ")[0].strip())
    if m is None:
        return ["1"]
    value, unit = Fraction(m["n"]), (m["unit"] or "").strip()
    unit = unit if unit in ("s", "B", "days") else ""
    return [f"{float(value * f):.4g} {unit}".strip() for f in WRONG]


@pytest.fixture(scope="module", params=sorted(SETS))
def hidden(request):
    _source, pset, book, values = _prepared(request.param)
    pool = WorkerPool(pset, PoolSettings(workers=2, timeout=20.0), True)
    client = TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1")
    with client:
        yield request.param, client, book, values
    pool.close()


def _all(values):
    return {a: fs for a, (_, fs) in values.items()}


def test_no_endpoint_states_an_answer(hidden):
    _name, client, book, values = hidden
    assert len(values) >= 5, "the sets ask numbers"
    every = _all(values)
    said: list[tuple[str, str]] = []

    def scan(where: str, response, typed: str = "") -> dict:
        """A reply's leaks; a number the student typed, echoed back, is their own."""
        text = response.text
        said.extend((where, f"{a} as {f!r}") for a, f in leaks(text, every) if f not in typed)
        return response.json()

    index = scan("/api/problems", client.get("/api/problems"))
    assert index["expected_shown"] is False and "hidden" in index["shown"]
    for pid, page in book.pages.items():
        scan(f"/api/problems/{pid}", client.get(f"/api/problems/{pid}"))
        for k in range(1, len(page.steps_html) + 1):
            scan(f"step {pid}/{k}", client.get(f"/api/problems/{pid}/steps/{k}"))
        for box in page.asked:
            expected = values.get(f"{pid}/{box.quantity}", ("",))[0]
            for claim in _wrong_claims(expected):
                body = {"problem": pid, "quantity": box.quantity, "answer": claim}
                r = client.post("/api/check", json=body, headers=JSON)
                if r.status_code == 200:
                    reply = scan(f"check {pid}/{box.quantity} {claim!r}", r, claim)
                    assert "expected" not in reply
                    assert not re.search(r"too (large|small)", " ".join(reply["diagnosis"]))
                r = client.post("/api/read", json=body, headers=JSON)
                if r.status_code == 200:
                    scan(f"read {pid} {claim!r}", r, claim)
        if page.detail.get("derivation"):
            lines = ["FLOPs = 2*B*D*F", "I = 300"]
            r = client.post("/api/check-derivation", json={"problem": pid, "lines": lines},
                            headers=JSON)  # fmt: skip
            if r.status_code == 200:
                scan(f"derivation {pid}", r)
    assert not said, said[:20]


def test_the_issue_example_is_withheld(hidden):
    """issue 47: step 8 of the built-in q2 said "B_min = ⌈4925/41⌉ = 121"."""
    name, client, _book, _values = hidden
    if name != "built-in":
        pytest.skip("the built-in set's problem")
    step = client.get("/api/problems/q2/steps/8").json()
    assert step["withheld"] and "121" not in json.dumps(step) and "4925" not in json.dumps(step)


def test_a_step_opens_once_its_answer_is_right(hidden):
    """A withheld step says which answers it waits for, and opens for this student (not
    another) once each is right."""
    _name, client, book, values = hidden
    pid, page, k = next(
        (pid, page, k)
        for pid, page in book.pages.items()
        for k, stated in enumerate(page.withheld, 1)
        if stated and all(a in values for a in stated)
    )
    client.get("/")  # the page: the server's cookie tells this student from others
    step = client.get(f"/api/problems/{pid}/steps/{k}").json()
    assert step["withheld"] and "opens once" in step["html"]
    for answer in page.withheld[k - 1]:
        quantity = answer.split("/", 1)[1]
        exact = values[answer][0].split(" ≈ ")[0]
        exact = re.sub(r"^[A-Za-z_]\w* ≥ ", "", exact)
        body = {"problem": pid, "quantity": quantity, "answer": exact}
        assert client.post("/api/check", json=body, headers=JSON).json()["verdict"] == "correct"
    opened = client.get(f"/api/problems/{pid}/steps/{k}").json()
    assert "withheld" not in opened and opened["html"] == page.steps_html[k - 1]
    other = TestClient(client.app, base_url="http://127.0.0.1")  # another student
    other.get("/")
    assert other.get(f"/api/problems/{pid}/steps/{k}").json().get("withheld")


@pytest.mark.parametrize("name", sorted(SETS))
def test_no_file_of_a_published_site_states_an_answer(name, cli, tmp_path):
    """``derive publish --hide-expected`` into a folder, then every file read back."""
    _source, _pset, _book, values = _prepared(name)
    out = tmp_path / "site"
    r = cli(["publish", *([SETS[name]] if SETS[name] else []), "--hide-expected", "-o", str(out)])
    assert r.code == 0, r.err
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert "api/problems.json" in files and "python/derive-site.zip" in files
    every = _all(values)
    distinct = {a: {f for f in fs if _significant(f) >= 4} for a, fs in every.items()}
    said = []
    for path, data in files.items():
        if path.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for member in archive.namelist():
                    if member.split("/")[0] in PACKAGES or member.endswith(".py"):
                        continue  # library code and derive's program (see the docstring)
                    text = archive.read(member).decode("utf-8", "replace")
                    said += [(f"{path}:{member}", a, f) for a, f in leaks(text, distinct)]
        elif path.startswith(("api/", "python/set.json", "index.html")):
            said += [(path, a, f) for a, f in leaks(data.decode("utf-8", "replace"), every)]
        elif not path.startswith("static/katex/"):
            said += [(path, a, f) for a, f in leaks(data.decode("utf-8", "replace"), distinct)]
    assert not said, said[:20]
    set_text = json.loads(files["python/set.json"])["text"]
    assert "expect" not in set_text
