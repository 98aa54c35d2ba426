"""The workbook in a real browser: Debian's Chromium driven by Playwright against a live server.

Opens a problem, types a right answer and a wrong one, sees the verdicts and the diagnosis,
reveals a hint, reloads and finds the progress kept. Screenshots go to the temp folder
(``derive-web-*.png``). Skipped only when /usr/bin/chromium is absent and CI is not set;
under CI it must run. Playwright's own browser download is never used.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
import sympy as sp
from conftest import ROOT, in_ci

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(tempfile.gettempdir())

if not CHROMIUM.exists():
    if in_ci():
        pytest.fail("CI is set but /usr/bin/chromium is missing (.ci/run installs it)")
    pytest.skip(
        "no /usr/bin/chromium (apt-get install chromium); runs under CI", allow_module_level=True
    )
if in_ci():
    from playwright.sync_api import sync_playwright
else:
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright

B, D, F = sp.symbols("B D F")


@pytest.fixture(scope="module")
def server():
    """``derive serve`` on a free loopback port; yields its URL."""
    yield from _serve()


@pytest.fixture(scope="module")
def comms_server():
    """``derive serve`` on tests/sets/comms.toml (its operators file trusted); yields its URL."""
    yield from _serve(str(ROOT / "tests" / "sets" / "comms.toml"), "--trust")


def _serve(*args: str):
    proc = subprocess.Popen(
        [sys.executable, "-m", "derive", "serve", *args, "--port", "0", "--workers", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    url, seen = None, []
    while url is None:
        try:
            line = lines.get(timeout=60)
        except queue.Empty:
            break
        seen.append(line)
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        url = m.group(1) if m else None
    if url is None:
        proc.kill()
        pytest.fail(f"derive serve did not start: {''.join(seen)}")
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def page(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.errors = errors
        yield pg
        browser.close()


def test_work_a_problem_and_keep_progress(server, page):
    page.goto(server)
    page.wait_for_selector(".problems li")
    assert page.locator(".problems li").count() >= 10
    page.screenshot(path=str(SHOTS / "derive-web-index.png"))

    page.click("a[data-id=q1]")
    page.wait_for_selector("#answer-flops")
    assert page.locator(".katex").count() > 5  # givens rendered by the vendored KaTeX

    # A right answer, checked with Enter, with the live preview first.
    page.fill("#answer-flops", str(2 * B * D * F))
    page.wait_for_selector("[data-quantity=flops] .preview .katex")
    page.press("#answer-flops", "Enter")
    right = page.wait_for_selector("[data-quantity=flops] .verdict.correct")
    assert "Right" in right.inner_text()

    # A wrong one (the ridge point for the crossover), checked with the button.
    q1_ridge = sp.Rational("3.94e14") / sp.Rational("8.2e11")
    page.fill("#answer-crossover", str(sp.ceiling(q1_ridge)))
    page.click("[data-quantity=crossover] button")
    wrong = page.wait_for_selector("[data-quantity=crossover] .verdict.incorrect")
    assert "Not right" in wrong.inner_text()
    assert page.locator("[data-quantity=crossover] .verdict li").count() >= 1

    # An unreadable one: the preview says why before any check.
    page.fill("#answer-bytes", "2BD +")
    page.wait_for_selector("[data-quantity=bytes] .preview .bad")

    # A hint: the first step of the worked solution.
    page.click("#hint")
    page.wait_for_selector(".steps .step")
    assert "Step 1" in page.locator(".steps .step").first.inner_text()

    # A derivation with a wrong last line.
    page.fill("#derivation", "I = \\frac{2BDF}{BD+DF+BF}\n\\approx 2B\n= 3B")
    page.click("#check-derivation")
    page.wait_for_selector("ol.lines li.wrong")
    assert page.locator("ol.lines li.wrong").first.get_attribute("data-line") == "3"
    page.screenshot(path=str(SHOTS / "derive-web-problem.png"), full_page=True)

    # Reload: answers, verdicts, the hint and the derivation are still there.
    page.reload()
    page.wait_for_selector("#answer-flops")
    assert page.input_value("#answer-flops") == str(2 * B * D * F)
    assert page.input_value("#answer-crossover") == str(sp.ceiling(q1_ridge))
    page.wait_for_selector("[data-quantity=flops] .verdict.correct")
    page.wait_for_selector("[data-quantity=crossover] .verdict.incorrect")
    page.wait_for_selector(".steps .step")
    assert "3B" in page.input_value("#derivation")

    # The index counts one right answer for q1.
    page.click("text=← All problems")
    meter = page.wait_for_selector("a[data-id=q1] .meter")
    assert meter.inner_text().startswith("1 / ")
    assert page.errors == []


def test_work_a_whole_model_problem(server, page):
    """A model problem: its givens, a right and a GB/GiB-slipped answer, a hint; no derivation box."""
    L, d, f, V, positions = 12, 768, 3072, 50257, 1024  # GPT-2 small, counted naively
    block = (4 * d * d + 4 * d) + (2 * d * f + f + d) + 2 * (2 * d)
    params = L * block + V * d + positions * d + 2 * d
    page.goto(server + "#/p/model-gpt2-params")
    page.wait_for_selector("#answer-params")
    assert "50257" in page.locator(".givens-box").inner_text()
    assert page.locator("#derivation").count() == 0

    page.fill("#answer-params", str(params))
    page.wait_for_selector("[data-quantity=params] .preview .katex")
    page.press("#answer-params", "Enter")
    page.wait_for_selector("[data-quantity=params] .verdict.correct")

    page.goto(server + "#/p/model-gqa-kv")
    page.wait_for_selector("#answer-kv_bytes_per_token")
    kib = 2 * 32 * 8 * 128 * 2 // 1024  # Llama 3 8B's bf16 KV cache per token, in KiB
    page.fill("#answer-kv_bytes_per_token", f"{kib} KB")
    page.click("[data-quantity=kv_bytes_per_token] button")
    wrong = page.wait_for_selector("[data-quantity=kv_bytes_per_token] .verdict.incorrect")
    assert "KiB" in wrong.inner_text()
    page.click("#hint")
    page.wait_for_selector(".steps .step")
    page.screenshot(path=str(SHOTS / "derive-web-model.png"), full_page=True)
    assert page.errors == []


def test_day_one_reads_right(server, page):
    """Issue 26 items 1-5 as a student sees them: the ceilings given, the echo with its unit,
    a number for a formula answered plainly, a neutral derivation example, a box per "Find:"."""
    page.goto(server + "#/p/serve-70b-decode")
    page.wait_for_selector("#answer-t_lower")
    givens = page.locator(".givens-box").inner_text()
    assert "HBM bandwidth" in givens and "link bandwidth" in givens and "peak (bf16)" in givens
    for quantity in ("t_lower", "tokens_per_s", "crossover"):
        assert page.locator(f"#answer-{quantity}").count() == 1
    for quantity in ("weights_bytes", "kv_bytes"):  # steps of the solution, not asked
        assert page.locator(f"#answer-{quantity}").count() == 0

    page.fill("#answer-t_lower", "12.5 ms")
    preview = page.wait_for_selector("[data-quantity=t_lower] .preview .katex")
    assert "ms" in preview.inner_text() and "0.0125" in preview.inner_text()
    page.press("#answer-t_lower", "Enter")
    verdict = page.wait_for_selector("[data-quantity=t_lower] .verdict")
    assert "ms" in verdict.inner_text()
    page.fill("#answer-crossover", "B >= 121")
    page.press("#answer-crossover", "Enter")
    verdict = page.wait_for_selector("[data-quantity=crossover] .verdict")
    assert "≥" in verdict.inner_text()

    page.goto(server + "#/p/q2")
    page.wait_for_selector("#answer-t_mem")
    placeholder = page.get_attribute("#derivation", "placeholder") or ""
    assert "\\approx" in placeholder and "BDF" not in placeholder and "B" not in placeholder
    page.fill("#answer-t_mem", "1.2 ms")
    page.press("#answer-t_mem", "Enter")
    said = page.wait_for_selector("[data-quantity=t_mem] .verdict li").inner_text()
    assert "formula in B, D, F" in said and "tensor" not in said
    assert page.errors == []


def test_time_a_transfer_alone(comms_server, page):
    """Issue 26 item 17 in the workbook: a bare all-reduce's page gives the collective, the
    link and the group, takes a time with its unit and shows the steps; no derivation box."""
    ring = sp.Rational(2 * 7, 8) * 2 * 8192 * 8192 / sp.Rational("4.5e11") + 14 * sp.Rational(
        "2e-6"
    )
    page.goto(comms_server + "#/p/ar-h100")
    page.wait_for_selector("#answer-t_comms")
    givens = page.locator(".givens-box").inner_text()
    assert "all-reduce" in givens and "NVLink" in givens and "P = 8" in givens
    assert page.locator("#derivation").count() == 0
    page.fill("#answer-t_comms", f"{float(ring) * 1e6:.4g} us")
    preview = page.wait_for_selector("[data-quantity=t_comms] .preview .katex")
    assert "µs" in preview.inner_text()
    page.press("#answer-t_comms", "Enter")
    page.wait_for_selector("[data-quantity=t_comms] .verdict.correct")
    page.fill("#answer-t_comms", f"{float(ring) * 1e3:.4g} us")
    page.press("#answer-t_comms", "Enter")
    wrong = page.wait_for_selector("[data-quantity=t_comms] .verdict.incorrect")
    assert "right in ms" in wrong.inner_text()
    page.click("#hint")
    page.wait_for_selector(".steps .step")
    assert "Collectives" in page.locator(".steps .step").first.inner_text()
    page.screenshot(path=str(SHOTS / "derive-web-comms.png"), full_page=True)
    assert page.errors == []


def test_answer_a_givens_problem_and_a_bounds_problem(server, page):
    """Issue 33: a problem of givens and equations alone and a ``bounds`` problem, answered."""
    from fractions import Fraction

    new_step = Fraction(70, 1000) * (Fraction(38, 100) + Fraction(62, 100) / Fraction(18, 10))
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(server + "#/p/amdahl-step")
    page.wait_for_selector("#answer-what_if_time")  # a native what-if since issue 36
    assert "the new step time" in page.locator("div[data-quantity=what_if_time]").inner_text()
    page.fill("#answer-what_if_time", f"{float(new_step) * 1000:.4g} ms")
    page.press("#answer-what_if_time", "Enter")
    page.wait_for_selector("[data-quantity=what_if_time] .verdict.correct")
    page.screenshot(path=str(SHOTS / "derive-web-questions-1280.png"), full_page=True)

    b, d, f = 4096, 8192, 8192  # mm-h100: bf16 on an H100, 989 TFLOP/s and 3.35 TB/s
    lower = max(
        Fraction(2 * b * d * f, 989 * 10**12), Fraction(2 * (b * d + d * f + b * f), 335 * 10**10)
    )
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server + "#/p/mm-h100")
    page.wait_for_selector("#answer-t_lower")
    page.fill("#answer-t_lower", f"{float(lower) * 1000:.4g} ms")
    page.click("[data-quantity=t_lower] button")
    page.wait_for_selector("[data-quantity=t_lower] .verdict.correct")
    page.screenshot(path=str(SHOTS / "derive-web-bounds-390.png"), full_page=True)
    page.set_viewport_size({"width": 1100, "height": 900})
    assert page.errors == []


@pytest.fixture(scope="module")
def hidden_server():
    """``derive serve --hide-expected`` on the built-in set; yields its URL."""
    yield from _serve("--hide-expected")


def test_answers_typed_as_students_type_them_under_hide_expected(hidden_server, page):
    """Issue 47: a ``$…$`` answer, ``1.38x`` and ``$1.08`` read and judged in Chromium, with
    nothing of the expected value on a hidden page; screenshots at 1280 and 390 px."""
    import json
    from fractions import Fraction

    from conftest import run_cli

    share = Fraction(38, 100) + Fraction(62, 100) / Fraction(18, 10)  # Amdahl: 62 % 1.8× faster
    new_step, speedup = Fraction(70, 1000) * share, 1 / share
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(hidden_server + "#/p/amdahl-step")
    page.wait_for_selector("#answer-what_if_time")
    page.fill("#answer-what_if_time", f"${float(new_step) * 1000:.4g}\\text{{ ms}}$")
    page.press("#answer-what_if_time", "Enter")
    page.wait_for_selector("[data-quantity=what_if_time] .verdict.correct")
    page.fill("#answer-what_if_speedup", f"{float(speedup):.3g}x")
    page.press("#answer-what_if_speedup", "Enter")
    page.wait_for_selector("[data-quantity=what_if_speedup] .verdict.correct")
    page.fill("#answer-what_if_limit", f"{float(1 / Fraction(38, 100)) * 0.9:.3g}×")  # 10 % low
    page.press("#answer-what_if_limit", "Enter")
    page.wait_for_selector("[data-quantity=what_if_limit] .verdict.incorrect")
    shown = page.locator("body").inner_text()
    assert f"{float(1 / Fraction(38, 100)):.3g}" not in shown  # 2.63: the limit stays hidden
    page.screenshot(path=str(SHOTS / "derive-web-hidden-1280.png"), full_page=True)

    # the cost of a million decode tokens at the step's own time (the engine's, read as given)
    argv = ["model", "llama-2-70b", "--chip", "h100", "--devices", "8", "--phase", "decode"]
    step = run_cli([*argv, "--set", "B=64", "--set", "S=8192", "--format", "json"])
    seconds = Fraction(json.loads(step.out)["serving"]["step"]["t_lower"])
    per_million = Fraction(249, 100) * 8 * seconds / 3600 * Fraction(10**6, 64)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(hidden_server + "#/p/cost-of-serving")
    page.wait_for_selector("#answer-cost_per_million_tokens")
    page.fill("#answer-cost_per_million_tokens", f"${float(per_million):.3g}")
    page.press("#answer-cost_per_million_tokens", "Enter")
    page.wait_for_selector("[data-quantity=cost_per_million_tokens] .verdict.correct")
    page.screenshot(path=str(SHOTS / "derive-web-hidden-390.png"), full_page=True)
    page.set_viewport_size({"width": 1100, "height": 900})
    assert page.errors == []
