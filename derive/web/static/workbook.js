// derive workbook: the page. Plain JavaScript, no build step; it talks only to the JSON API
// (/api/problems, /api/problems/{id}, /api/problems/{id}/steps/{k}, /api/read, /api/check,
// /api/check-derivation). Progress lives in localStorage and can be exported as a file.
// Text from the server or the student goes into the page as text; only the HTML fragments
// the server renders (question, givens, steps; escaped there) are inserted as HTML.
"use strict";

const VERDICTS = {
  "correct": "✓ Right",
  "correct-leading-order": "✓ Right to leading order",
  "incorrect": "✗ Not right",
  "unreadable": "? Cannot read this answer",
};
const PREVIEW_DELAY_MS = 250;
// The derivation box's example: its syntax only, in letters no problem uses (it answers nothing).
const DERIVATION_EXAMPLE = "For example, one step per line:\nI = \\frac{4ab}{2a + 2b}\n  = \\frac{2ab}{a + b}\n  \\approx 2a   (when a \\ll b)";

let SET = null; // GET /api/problems
let storeKey = "derive-workbook";

// ---- small helpers -------------------------------------------------------------------
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function math(latex, display) {
  const span = el("span", { class: "math" });
  if (window.katex) {
    window.katex.render(latex, span, { throwOnError: false, displayMode: !!display });
  } else {
    span.textContent = latex;
  }
  return span;
}

function renderMath(node) {
  if (window.renderMathInElement) {
    window.renderMathInElement(node, {
      delimiters: [
        { left: "\\[", right: "\\]", display: true },
        { left: "\\(", right: "\\)", display: false },
      ],
      throwOnError: false,
    });
  }
}

function fragment(html) {
  const div = el("div");
  div.innerHTML = html; // server-rendered, escaped by the server's templates
  renderMath(div);
  return div;
}

async function api(path, body) {
  // a published workbook (derive publish) answers the same API in the browser: static/publish.js
  if (window.deriveLocalApi) return window.deriveLocalApi(path, body);
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new Error("cannot reach the derive server (is it still running?)");
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const err = new Error((data && data.error) || `the server answered ${response.status}`);
    err.status = response.status;
    throw err;
  }
  return data;
}

// ---- progress (localStorage) ---------------------------------------------------------
function loadProgress() {
  try {
    const data = JSON.parse(localStorage.getItem(storeKey) || "{}");
    return data && typeof data === "object" && data.problems ? data : { problems: {} };
  } catch (e) {
    return { problems: {} };
  }
}

function saveProgress(progress) {
  progress.saved = new Date().toISOString();
  localStorage.setItem(storeKey, JSON.stringify(progress));
}

function problemProgress(progress, id) {
  if (!progress.problems[id]) progress.problems[id] = { answers: {}, hints: 0, derivation: "" };
  return progress.problems[id];
}

function score(id, asked) {
  const p = loadProgress().problems[id];
  let right = 0;
  for (const q of asked) {
    const a = p && p.answers && p.answers[q];
    if (a && (a.verdict === "correct" || a.verdict === "correct-leading-order")) right += 1;
  }
  return right;
}

function updateOverall() {
  if (!SET) return;
  let right = 0, total = 0;
  for (const p of SET.problems) { right += score(p.id, p.asked); total += p.asked.length; }
  document.getElementById("overall").textContent = `${right} of ${total} answers right`;
}

function exportProgress() {
  const data = { workbook: SET ? SET.title : "", ...loadProgress() };
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  const a = el("a", { href: URL.createObjectURL(blob), download: "derive-progress.json" });
  document.body.append(a);
  a.click();
  a.remove();
}

function importProgress(event) {
  const file = event.target.files[0];
  if (!file) return;
  file.text().then((text) => {
    const data = JSON.parse(text);
    if (!data || typeof data.problems !== "object") throw new Error("not a progress file");
    saveProgress({ problems: data.problems });
    route();
  }).catch((e) => alert(`Cannot import: ${e.message}`));
  event.target.value = "";
}

// ---- index ---------------------------------------------------------------------------
function showIndex() {
  const main = document.getElementById("main");
  document.title = SET.title;
  const list = el("ul", { class: "problems" });
  SET.problems.forEach((p, i) => {
    const right = score(p.id, p.asked);
    const pct = p.asked.length ? Math.round((100 * right) / p.asked.length) : 0;
    const fill = el("span", { class: "fill" });
    fill.style.width = `${pct}%`;
    const meter = el("span", { class: right === p.asked.length && right > 0 ? "meter done" : "meter" },
      `${right} / ${p.asked.length} right`, el("span", { class: "track" }, fill));
    list.append(el("li", {}, el("a", { href: `#/p/${encodeURIComponent(p.id)}`, "data-id": p.id },
      el("span", { class: "num", text: `Problem ${i + 1} · ${p.id}` }),
      meter,
      el("span", { class: "title", text: p.title }))));
  });
  const intro = fragment(SET.text_html);
  intro.className = "intro";
  main.replaceChildren(el("h1", { text: SET.title }), ...banner(), intro, list);
  updateOverall();
}

// what a workbook under --hide-expected shows (the server says it in words), and, in a set
// with a variant per student, which variant this is and a field to give one's student id
function banner() {
  const out = SET.shown ? [el("p", { class: "banner", role: "note", text: SET.shown })] : [];
  if (!SET.variants) return out;
  const who = SET.student ? ` (student ${SET.student})` : " (give your student id to get yours)";
  out.push(el("form", { method: "get", action: "", class: "banner student", role: "note" },
    el("span", { text: `Your numbers: variant ${SET.variant} of ${SET.variants}${who}. ` }),
    el("input", { name: "student", value: SET.student || "", placeholder: "student id",
      "aria-label": "Student id", maxlength: "64", pattern: "[A-Za-z0-9_.@+-]+" }),
    el("button", { type: "submit", text: "Use this id" })));
  return out;
}

// ---- problem page --------------------------------------------------------------------
function verdictBox(result) {
  const box = el("div", { class: `verdict ${result.verdict}`, role: "status" });
  // a right number is exact, or right to the tolerance only (the diagnosis gives the exact value)
  const how = { true: " (exact)", false: " (to the tolerance, not exact)" }[result.exact] || "";
  box.append(el("span", { class: "badge", text: (VERDICTS[result.verdict] || result.verdict) + how }));
  if (result.read_as_latex) box.append(" — read as ", math(result.read_as_latex));
  if (result.diagnosis && result.diagnosis.length) {
    box.append(el("ul", {}, ...result.diagnosis.map((d) => el("li", { text: d }))));
  }
  if (result.expected_latex && result.verdict !== "correct") {
    const details = el("details", {}, el("summary", { text: "Show the expected answer" }),
      math(result.expected_latex, true));
    box.append(details);
  }
  return box;
}

function errorBox(message) {
  return el("div", { class: "verdict error", role: "status" }, el("span", { class: "badge", text: message }));
}

function answerRow(problem, asked, progress) {
  const saved = problemProgress(progress, problem.id).answers[asked.quantity] || {};
  const id = `answer-${asked.quantity}`;
  const input = el("input", {
    id, type: "text", autocomplete: "off", spellcheck: "false", maxlength: "2000",
    placeholder: asked.placeholder, "data-quantity": asked.quantity,
  });
  input.value = saved.answer || "";
  const preview = el("div", { class: "preview", "aria-live": "polite" });
  const result = el("div", { class: "result" });
  const button = el("button", { type: "button", text: "Check" });
  let timer = null;
  let seq = 0;

  async function showPreview() {
    const text = input.value;
    const mine = ++seq;
    if (!text.trim()) { preview.replaceChildren(); return; }
    try {
      const r = await api("/api/read", { problem: problem.id, answer: text, quantity: asked.quantity });
      if (mine !== seq) return;
      preview.replaceChildren(r.ok ? el("span", {}, "reads as ", r.latex ? math(r.latex) : r.read_as)
        : el("span", { class: "bad", text: r.reason }));
    } catch (e) {
      if (e.status === 429) return;  // the server is busy: the preview waits for the next keystroke
      if (mine === seq) preview.replaceChildren(el("span", { class: "bad", text: e.message }));
    }
  }

  async function check() {
    const text = input.value;
    if (!text.trim()) { input.focus(); return; }
    button.disabled = true;
    try {
      const r = await api("/api/check", { problem: problem.id, quantity: asked.quantity, answer: text });
      result.replaceChildren(verdictBox(r));
      const progressNow = loadProgress();
      problemProgress(progressNow, problem.id).answers[asked.quantity] = { answer: text, verdict: r.verdict };
      saveProgress(progressNow);
      updateOverall();
    } catch (e) {
      result.replaceChildren(errorBox(e.message));
    } finally {
      button.disabled = false;
    }
  }

  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(showPreview, PREVIEW_DELAY_MS); });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); check(); } });
  button.addEventListener("click", check);
  if (saved.verdict) {
    result.replaceChildren(el("div", { class: `verdict ${saved.verdict}` },
      el("span", { class: "badge", text: `${VERDICTS[saved.verdict] || saved.verdict} (last check)` })));
  }
  if (input.value) showPreview();
  const label = el("label", { for: id }, asked.label, asked.latex ? el("span", { class: "sym" }, math(asked.latex)) : null);
  return el("div", { class: "answer", "data-quantity": asked.quantity },
    label, el("div", { class: "row" }, input, button), preview, result);
}

function solutionSection(problem) {
  const section = el("section", { class: "card" }, el("h2", { text: "Worked solution" }));
  if (!problem.hints) {
    section.append(el("p", { class: "muted", text: "Hints and solutions are turned off for this workbook." }));
    return section;
  }
  const steps = el("div", { class: "steps" });
  const hint = el("button", { type: "button", class: "quiet", id: "hint" });
  const all = el("button", { type: "button", class: "quiet", id: "solution", text: "Show the whole solution" });
  const status = el("span", { class: "muted" });
  let shown = 0;
  const withheld = new Map(); // step number -> its box, while it waits for a right answer

  function label() {
    hint.textContent = shown < problem.steps ? `Hint: show step ${shown + 1} of ${problem.steps}`
      : withheld.size ? "Ask again for the withheld steps" : "All steps shown";
    hint.disabled = all.disabled = shown >= problem.steps && !withheld.size;
  }
  async function step(k) {
    const s = await api(`/api/problems/${encodeURIComponent(problem.id)}/steps/${k}`);
    const box = fragment(s.html);
    box.className = s.withheld ? "step withheld" : "step";
    if (s.withheld) withheld.set(k, box); else withheld.delete(k);
    return box;
  }
  async function reveal(upTo) {
    hint.disabled = all.disabled = true;
    try {
      for (const [k, old] of [...withheld]) old.replaceWith(await step(k));
      while (shown < upTo) {
        steps.append(await step(shown + 1));
        shown += 1;
      }
      const progress = loadProgress();
      const mine = problemProgress(progress, problem.id);
      mine.hints = Math.max(mine.hints || 0, shown);
      saveProgress(progress);
      status.textContent = "";
    } catch (e) {
      status.textContent = e.message;
    }
    label();
  }
  hint.addEventListener("click", () => reveal(shown + 1));
  all.addEventListener("click", () => reveal(problem.steps));
  label();
  section.append(el("p", { class: "muted", text: "Stuck? Reveal the worked solution one step at a time." }),
    el("div", { class: "actions" }, hint, all, status), steps);
  const before = problemProgress(loadProgress(), problem.id).hints || 0;
  if (before > 0) reveal(Math.min(before, problem.steps));
  return section;
}

function derivationSection(problem, progress) {
  const area = el("textarea", {
    id: "derivation", spellcheck: "false", "aria-label": "your derivation",
    placeholder: DERIVATION_EXAMPLE,
  });
  area.value = problemProgress(progress, problem.id).derivation || "";
  const out = el("div", { class: "result" });
  const button = el("button", { type: "button", text: "Check derivation", id: "check-derivation" });
  button.addEventListener("click", async () => {
    const lines = area.value.split("\n");
    const p = loadProgress();
    problemProgress(p, problem.id).derivation = area.value;
    saveProgress(p);
    button.disabled = true;
    try {
      const r = await api("/api/check-derivation", { problem: problem.id, lines });
      const box = el("div", { class: `verdict ${r.verdict}` },
        el("span", { class: "badge", text: VERDICTS[r.verdict] || r.verdict }),
        r.first_wrong_line ? ` — first wrong step on line ${r.first_wrong_line}` : "");
      if (r.diagnosis.length) box.append(el("ul", {}, ...r.diagnosis.map((d) => el("li", { text: d }))));
      const list = el("ol", { class: "lines" }, ...r.steps.map((s) => el("li", {
        class: s.ok ? "ok" : "wrong", "data-line": String(s.line),
      }, el("span", { class: "mark", text: `${s.ok ? "✓" : "✗"} line ${s.line}` }), math(s.text),
      s.why ? el("span", { class: "why", text: s.why }) : null)));
      out.replaceChildren(box, list);
    } catch (e) {
      out.replaceChildren(errorBox(e.message));
    } finally {
      button.disabled = false;
    }
  });
  return el("section", { class: "card" }, el("h2", { text: "Check a derivation" }),
    el("p", { class: "muted", text: "One step per line: '=' for an exact step, '\\approx' for a leading-order step. The first wrong line is marked." }),
    area, el("div", { class: "actions" }, button), out);
}

async function showProblem(id) {
  const main = document.getElementById("main");
  let problem;
  try {
    problem = await api(`/api/problems/${encodeURIComponent(id)}`);
  } catch (e) {
    main.replaceChildren(el("p", { class: "crumbs" }, el("a", { href: "#/", text: "← All problems" })), errorBox(e.message));
    return;
  }
  document.title = `${problem.title} — ${SET.title}`;
  const index = SET.problems.findIndex((p) => p.id === problem.id);
  const progress = loadProgress();
  const question = fragment(problem.question_html);
  question.className = "question";
  const givens = fragment(problem.givens_html);
  const answers = el("section", { class: "card" }, el("h2", { text: "Your answers" }),
    el("p", { class: "muted", text: problem.kind === "model"
      ? "Type a number (3.7e9, 4.3e19), with a unit where it has one (21 GB, 52 KiB, 17 days), or yes/no; press Enter or Check."
      : problem.kind === "questions"
      ? "Type a number with its unit where it has one (3.2e5 $, 4.5 days, 2.3 ms); press Enter or Check."
      : problem.asked.length && problem.asked.every((a) => !a.placeholder.includes("formula"))
      ? "Type a number, with a unit where it has one (2.3 ms, 1.2e12, 21 GB); press Enter or Check."
      : problem.kind === "kernel"
      ? "Type a number, with a unit where it has one (37 FLOPs/byte, 2.3 ms, 63%); press Enter or Check."
      : problem.only_communicates
      ? "Type a time with its unit (70 us, 2.3 ms); press Enter or Check."
      : "Type a formula in the dims (LaTeX or plain: 3xy, \\frac{x}{4}, 3*x*y) or a number; press Enter or Check." }),
    ...problem.asked.map((a) => answerRow(problem, a, progress)));
  const next = SET.problems[index + 1];
  main.replaceChildren(
    el("p", { class: "crumbs" }, el("a", { href: "#/", text: "← All problems" }),
      next ? el("span", {}, " · ", el("a", { href: `#/p/${encodeURIComponent(next.id)}`, text: "next problem →" })) : null),
    el("h1", { text: `Problem ${index + 1}: ${problem.title}` }), ...banner(),
    el("section", { class: "card" }, question,
      el("details", { class: "givens-box", open: "" }, el("summary", { text: "Given" }), givens)),
    answers, ...(problem.steps > 0 ? [solutionSection(problem)] : []),
    ...(problem.derivation === false ? [] : [derivationSection(problem, progress)]));
  updateOverall();
}

// ---- routing -------------------------------------------------------------------------
function route() {
  const m = location.hash.match(/^#\/p\/(.+)$/);
  if (m) showProblem(decodeURIComponent(m[1]));
  else showIndex();
  window.scrollTo(0, 0);
}

async function start() {
  try {
    SET = await api("/api/problems");
  } catch (e) {
    document.getElementById("main").replaceChildren(errorBox(e.message));
    return;
  }
  storeKey = `derive-workbook:${SET.title}${SET.variants ? `:variant ${SET.variant}` : ""}`;
  document.getElementById("home").textContent = SET.title;
  document.getElementById("export").addEventListener("click", exportProgress);
  document.getElementById("import").addEventListener("change", importProgress);
  window.addEventListener("hashchange", route);
  route();
}

document.addEventListener("DOMContentLoaded", start);
