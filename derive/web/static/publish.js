// derive published workbook (derive publish): answers the workbook's JSON API in the browser.
// GET requests read the site's files (api/...json, written by derive publish from the same
// pages derive serve shows); POST requests (check, read, check-derivation) go to a Web
// Worker running derive's checker in Pyodide (static/publish-worker.mjs). The worker boots
// as soon as the page opens, while the student reads. A check past the time limit is stopped
// the only way a browser can stop Python: the worker is terminated and booted again.
"use strict";

(function () {
  const settings = JSON.parse(document.getElementById("derive-site").textContent);
  const LIMIT_MS = settings.timeout_s * 1000;
  let worker = null;
  let ready = false;
  let failed = null;
  let queue = []; // jobs not yet sent: {id, path, body, resolve, reject}
  let running = null; // the job the worker is judging, with its timer
  let nextId = 1;
  let shownLast = null; // the problem on the page, told to a worker booted again
  const timings = { boot_ms: null, checks_ms: [], jobs: [], bytecode_kept: false, bytecode_used: false };
  window.deriveTimings = timings; // read by the tests and shown in the footer
  const mine = variantOf(settings.variants);

  // A set with a variant per student: the student id given as ?student=ID (kept in this
  // browser), else an id drawn once for this browser; its variant is FNV-1a (32 bits) of
  // "seed:id" modulo the count, as derive computes it (derive/problem/sets/variants.py).
  function variantOf(variants) {
    if (!variants) return { variant: 0, prefix: "" };
    const typed = new URLSearchParams(location.search).get("student") || "";
    const keep = (key, value) => { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } };
    const kept = (key) => { try { return localStorage.getItem(key) || ""; } catch (e) { return ""; } };
    if (/^[A-Za-z0-9_.@+-]{1,64}$/.test(typed)) keep("derive-student", typed);
    const student = kept("derive-student");
    let who = student || kept("derive-browser");
    if (!who) keep("derive-browser", (who = `browser-${Math.random().toString(36).slice(2, 12)}`));
    let h = 0x811c9dc5;
    for (const b of new TextEncoder().encode(`${variants.seed}:${who}`)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    const variant = h % variants.count;
    const shown = { variant, variants: variants.count, student };
    return { variant, shown, prefix: `w${variants.books[variant]}/` };
  }

  function status(text) {
    let node = document.getElementById("engine");
    if (!node) {
      node = document.createElement("span");
      node.id = "engine";
      const foot = document.querySelector(".foot");
      if (foot) foot.append(" ", node);
    }
    node.textContent = text;
  }

  function firstProblem() {
    const m = location.hash.match(/^#\/p\/(.+)$/);
    return m ? decodeURIComponent(m[1]) : null;
  }

  function boot() {
    ready = false;
    failed = null;
    const started = performance.now();
    status("The checker is loading (Python in this browser)…");
    worker = new Worker(new URL("static/publish-worker.mjs", document.baseURI), { type: "module" });
    worker.onmessage = (event) => {
      const m = event.data;
      if (m.type === "ready") {
        ready = true;
        timings.boot_ms = performance.now() - started;
        timings.bytecode_used = !!m.kept;
        // each phase of the boot (static/publish-worker.mjs), in ms since the page opened
        timings.phases = Object.fromEntries(Object.entries(m.phases || {}).map(([k, t]) => [k, t - performance.timeOrigin]));
        timings.bytecode_shipped = !!m.shipped; // compiled at publish time (--pyodide, Node)
        if (m.shipped) timings.bytecode_kept = true; // the site's file: the next visit has it too
        status(`The checker is ready: answers are checked in this browser (loaded in ${(timings.boot_ms / 1000).toFixed(1)} s).`);
        pump();
      } else if (m.type === "kept") {
        timings.bytecode_kept = true; // the next visit boots without compiling
      } else if (m.type === "failed") {
        failed = `the checker could not start: ${m.error}; reload the page`;
        status(failed);
        for (const job of queue) job.reject(new Error(failed));
        queue = [];
      } else if (m.type === "reply" && running && running.id === m.id) {
        const job = running;
        clearTimeout(job.timer);
        running = null;
        timings.checks_ms.push(performance.now() - job.sent);
        // the worker's part of it (static/publish-worker.mjs): waited there, and judged
        timings.jobs.push({ path: job.path, ms: performance.now() - job.sent, queued_ms: job.sent - job.queued, ...(m.worker || {}) });
        if (m.status === 200) job.resolve(m.data);
        else {
          const err = new Error(m.data.error);
          err.status = m.status;
          job.reject(err);
        }
        pump();
      }
    };
    worker.onerror = (event) => {
      failed = `the checker could not start: ${event.message || "the worker failed"}; reload the page`;
      status(failed);
    };
    worker.postMessage({
      type: "boot",
      variant: mine.variant,
      first: firstProblem(),
      settings: {
        site: document.baseURI, pyodide: settings.pyodide, python_sha256: settings.python_sha256,
        bytecode: settings.bytecode, bytecode_sha256: settings.bytecode_sha256, stdlib: settings.stdlib,
        snapshot: settings.snapshot, snapshot_sha256: settings.snapshot_sha256, files: settings.files, files_sha256: settings.files_sha256,
      },
    });
    if (shownLast) worker.postMessage(shownLast);
  }

  function overtime() {
    const job = running;
    running = null;
    worker.terminate(); // the only way to stop Python in a browser: a new worker
    const err = new Error(`the check took longer than ${settings.timeout_s} s and was stopped`);
    err.status = 422;
    job.reject(err);
    boot();
  }

  function pump() {
    if (!ready || running || !queue.length) return;
    running = queue.shift();
    running.sent = performance.now();
    running.timer = setTimeout(overtime, LIMIT_MS);
    const sentAt = performance.timeOrigin + running.sent; // the worker's clock too
    worker.postMessage({ type: "job", id: running.id, path: running.path, body: running.body, variant: mine.variant, sent_at: sentAt });
  }

  function judged(path, body) {
    if (failed) return Promise.reject(new Error(failed));
    return new Promise((resolve, reject) => {
      queue.push({ id: nextId++, path, body, resolve, reject, queued: performance.now() });
      pump();
    });
  }

  async function file(path) {
    // /api/problems -> api/problems.json; /api/problems/q1/steps/2 -> api/problems/q1/steps/2.json
    // (a set with variants: api/w<the variant's workbook>/problems/...)
    const url = new URL(`${path.replace(/^\/api\//, `api/${mine.prefix}`)}.json`, document.baseURI);
    let response;
    try {
      response = await fetch(url);
    } catch (e) {
      throw new Error("cannot read the workbook's files (is the site still served?)");
    }
    if (!response.ok) {
      const err = new Error(response.status === 404
        ? `${decodeURIComponent(path)}: not in this workbook`
        : `the site answered ${response.status}`);
      err.status = response.status;
      throw err;
    }
    const data = await response.json();
    const shown = path.match(/^\/api\/problems\/([^/]+)$/);
    if (shown && worker && Array.isArray(data.asked)) {
      // the problem on the page: the worker warms its boxes first (a later check is quick)
      const quantities = data.asked.map((a) => a.quantity);
      shownLast = { type: "shown", problem: decodeURIComponent(shown[1]), quantities };
      worker.postMessage(shownLast);
    }
    return path === "/api/problems" && mine.shown ? { ...data, ...mine.shown } : data;
  }

  // the worker warms only while the student is not typing (static/publish-worker.mjs)
  let typed = 0;
  document.addEventListener("input", () => {
    if (!worker || performance.now() - typed < 100) return;
    typed = performance.now();
    worker.postMessage({ type: "typing" });
  }, true);

  window.deriveLocalApi = (path, body) => (body === undefined ? file(path) : judged(path, body));
  boot();
})();
