// derive published workbook: the checker, in a Web Worker. It boots Pyodide, unpacks the
// site's Python (derive, sympy and what they import: python/derive-site.zip), reads the set
// (python/set.json) and answers the page's POST requests with derive's own checker
// (derive.web.in_browser.Judge: the server's validation, grader and JSON). No fork, thread
// or signal: the page stops a check that runs too long by terminating this worker.
// The same module runs under Node (tests): bootJudge does the work, the worker part only
// listens for messages.

const SITE = "/home/pyodide/derive-site";

/** Boot Pyodide and derive's judge from the site's files, each zip checked against its sha256
 * first. The bytecode is an optimisation: if it is damaged, or fails to unpack or import, the
 * judge boots again from the sources (the traceback goes to the console only).
 *
 * @param {Function} loadPyodide - Pyodide's loader (pyodide.mjs).
 * @param {string} indexURL - the folder of the Pyodide runtime.
 * @param {Uint8Array} zip - python/derive-site.zip.
 * @param {string} setText - python/set.json.
 * @param {Uint8Array|null} bytecode - the bytecode shipped or kept from an earlier visit, if any.
 * @param {{python?: string, bytecode?: string}} sha256 - the zips' hashes, as published (hex).
 * @param {string|null} stdlib - the URL of the site's standard library with bytecode
 *   (python/stdlib.zip), booted with instead of Pyodide's own (sources only), if shipped.
 * @returns {pyodide, judge, bytecode}: the judge is a Python object (answer(path, body),
 *   problems(), warm(id)); bytecode: whether it booted from the bytecode.
 */
export async function bootJudge(loadPyodide, indexURL, zip, setText, bytecode = null, sha256 = {}, stdlib = null) {
  if (bytecode || stdlib) {
    try {
      return await boot(loadPyodide, { indexURL, fullStdLib: false, ...(stdlib ? { stdLibURL: stdlib } : {}) }, zip, setText, bytecode, sha256);
    } catch (e) {
      if (e.sources) throw e; // the sources themselves are damaged: booting again cannot help
      console.error("derive: the bytecode (or the standard library shipped with it) did not load, so the checker boots from its sources", e);
    }
  }
  return boot(loadPyodide, { indexURL, fullStdLib: false }, zip, setText, null, sha256);
}

// When each phase of a boot ended (ms since the epoch: the page and the worker share the
// clock), posted with "ready" for the page's timings and benchmarks/first_verdict.py.
const at = () => performance.timeOrigin + performance.now();

async function boot(loadPyodide, options, zip, setText, bytecode, sha256) {
  const phases = { start: at() };
  const pyodide = await loadPyodide(options);
  phases.pyodide = at();
  const check = (bytes, expected, what) => {
    if (expected && digest(pyodide, bytes) !== expected) {
      throw Object.assign(new Error(`${what} is damaged (not the file the site was published with)`), { sources: !bytecode || bytes === zip });
    }
  };
  check(zip, sha256.python, "python/derive-site.zip");
  if (bytecode) check(bytecode, sha256.bytecode, "the checker's bytecode");
  pyodide.unpackArchive(zip, "zip", { extractDir: SITE });
  if (bytecode) pyodide.unpackArchive(bytecode, "zip", { extractDir: SITE });
  // without kept bytecode, write it as modules compile, so the next visit can keep it
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(SITE)})\nsys.dont_write_bytecode = ${bytecode ? "True" : "False"}`);
  phases.unpacked = at();
  pyodide.runPython("import sympy");
  phases.sympy = at();
  const module = pyodide.pyimport("derive.web.in_browser");
  phases.derive = at();
  const judge = module.Judge.from_json(setText);
  phases.judge = at();
  return { pyodide, judge, bytecode: !!bytecode, phases };
}

/** The sha256 of some bytes, in hex (Python's hashlib: the browser's crypto.subtle exists only
 * in secure contexts). */
function digest(pyodide, bytes) {
  pyodide.globals.set("derive_bytes", bytes);
  return pyodide.runPython("import hashlib\nfound = hashlib.sha256(derive_bytes.to_py()).hexdigest()\ndel derive_bytes\nfound");
}

/** An error in one line for the student (a Python traceback's last line; the whole in the console). */
export function oneLine(e) {
  const lines = String((e && e.message) || e).split("\n").map((l) => l.trim()).filter(Boolean);
  return (lines[lines.length - 1] || "unknown error").slice(0, 300);
}

// The browser keeps the compiled bytecode (Cache Storage, where the page's origin has it),
// under the hash of the site's Python zip: a new publish never meets old bytecode.
const BYTECODE_CACHE = "derive-workbook-bytecode";

async function keptBytecode(key) {
  try {
    const hit = await (await caches.open(BYTECODE_CACHE)).match(key);
    if (!hit) return null;
    return { bytes: new Uint8Array(await hit.arrayBuffer()), sha256: hit.headers.get("x-sha256") };
  } catch (e) {
    return null; // no Cache Storage here (not a secure context): boot from sources
  }
}

async function keepBytecode(key, pyodide) {
  try {
    const bytes = pyodide.pyimport("derive.web.in_browser").bytecode_zip(SITE).toJs();
    const sha256 = digest(pyodide, bytes);
    const cache = await caches.open(BYTECODE_CACHE);
    for (const old of await cache.keys()) await cache.delete(old);
    await cache.put(key, new Response(bytes, { headers: { "x-sha256": sha256 } }));
    self.postMessage({ type: "kept", bytes: bytes.length });
  } catch (e) {
    // keeping is an optimisation; a failure costs the next visit its compile time only
  }
}

/** The bytes at url, checked against their sha256 (the browser's: a secure context) and
 * gunzipped by the browser. */
async function gunzipped(url, sha256) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  const bytes = await r.arrayBuffer();
  const hex = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== sha256) throw new Error(`${url} is damaged (not the file the site was published with)`);
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
}

/** Boot from the site's memory snapshot (python/snapshot.gz: Pyodide with the judge's modules
 * imported, made at publish time by node/make-snapshot.mjs) and write the site's Python from
 * python/files.gz: no Python start, no import of sympy or derive, no unzipping in Python. */
async function bootFromSnapshot(settings, base, runtime, stdlib, setText) {
  const phases = { start: at() };
  const url = (name) => new URL(settings[name], base).href;
  const files = gunzipped(url("files"), settings.files_sha256);
  const snapshot = gunzipped(url("snapshot"), settings.snapshot_sha256);
  for (const p of [files, snapshot]) p.catch(() => {});
  snapshot.then(() => (phases.snapshot = at()), () => {});
  const [{ loadPyodide }, { default: create }] = await Promise.all([
    import(runtime + "pyodide.mjs"), import(runtime + "pyodide.asm.mjs"),
  ]);
  // the runtime downloads while the snapshot downloads and unpacks
  const pyodide = await loadPyodide({
    indexURL: runtime, fullStdLib: false, stdLibURL: stdlib, _loadSnapshot: snapshot,
    // Pyodide's memory starts small: grown to the snapshot's size before it is restored
    createPyodideModule: async (options) => {
      const module = await create(options);
      module.growMemory((await snapshot).length);
      return module;
    },
  });
  phases.pyodide = at();
  const bytes = await files;
  let offset = 4 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  const made = new Set();
  for (const [name, size] of JSON.parse(new TextDecoder().decode(bytes.subarray(4, offset)))) {
    const target = `${SITE}/${name}`;
    const folder = target.slice(0, target.lastIndexOf("/"));
    if (!made.has(folder)) made.add(folder) && pyodide.FS.mkdirTree(folder);
    // the file system keeps the bytes where they are (the stream's buffer): no copy
    pyodide.FS.writeFile(target, bytes.subarray(offset, (offset += size)), { canOwn: true });
  }
  phases.unpacked = phases.sympy = phases.derive = at();
  const judge = pyodide.pyimport("derive.web.in_browser").Judge.from_json(await setText);
  phases.judge = at();
  return { pyodide, judge, bytecode: true, phases, snapshot: true };
}

async function bootInWorker(settings) {
  const base = new URL(settings.site, self.location.href);
  const runtime = new URL(settings.pyodide, base).href;
  const key = new URL(`python/derive-site.zip?bytecode=${settings.python_sha256}`, base).href;
  const stdlib = settings.stdlib ? new URL(settings.stdlib, base).href : null;
  if (settings.snapshot && self.crypto && crypto.subtle && self.DecompressionStream) {
    const setText = fetch(new URL("python/set.json", base)).then((r) => {
      if (!r.ok) throw new Error(`python/set.json: ${r.status}`);
      return r.text();
    });
    try {
      const booted = await bootFromSnapshot(settings, base, runtime, stdlib, setText);
      return { ...booted, key, kept: true, shipped: true, fetched: booted.phases.start };
    } catch (e) {
      console.error("derive: the memory snapshot did not load, so the checker boots from the site's zips", e);
    }
  }
  // Pyodide boots while the site's files download: the first boot's loader is already running
  const loaded = import(runtime + "pyodide.mjs");
  const options = { indexURL: runtime, fullStdLib: false, ...(stdlib ? { stdLibURL: stdlib } : {}) };
  let early = loaded.then((m) => m.loadPyodide(options));
  early.catch(() => {}); // a failure is met (and reported) where the boot awaits it
  const loadPyodide = async (opts) => {
    const started = early;
    early = null;
    return started || (await loaded).loadPyodide(opts);
  };
  const [zip, setText, bytecode, file] = await Promise.all([
    fetch(new URL("python/derive-site.zip", base)).then((r) => {
      if (!r.ok) throw new Error(`python/derive-site.zip: ${r.status}`);
      return r.arrayBuffer();
    }),
    fetch(new URL("python/set.json", base)).then((r) => {
      if (!r.ok) throw new Error(`python/set.json: ${r.status}`);
      return r.text();
    }),
    keptBytecode(key),
    // a site published with its Pyodide ships the bytecode compiled at publish time: a first
    // visit boots from it too (nothing to keep afterwards, the browser caches the file); if it
    // cannot be read, the judge compiles from sources, as a site without it does
    settings.bytecode ? fetch(new URL(settings.bytecode, base))
      .then(async (r) => (r.ok ? new Uint8Array(await r.arrayBuffer()) : null))
      .catch(() => null) : null,
  ]);
  const shipped = bytecode ? null : file;
  const fetched = at();
  const sha256 = { python: settings.python_sha256, bytecode: bytecode ? bytecode.sha256 : settings.bytecode_sha256 };
  const booted = await bootJudge(loadPyodide, runtime, new Uint8Array(zip), setText, bytecode ? bytecode.bytes : shipped, sha256, stdlib);
  // kept: the next visit has bytecode (booted from it; a damaged one is compiled and kept anew)
  return { ...booted, key, kept: booted.bytecode, shipped: booted.bytecode && !!shipped, fetched };
}

if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  let judge = null;
  let booted = null;
  let waiting = [];
  let shown = []; // [problem, quantity]: the boxes of the problem the page shows, warmed first
  let rest = []; // the set's problems, warmed one at a time once the page is idle
  let timer = null;
  let lastActive = -Infinity; // the last request, or the student's last keystroke
  const checked = new Set(); // the boxes checked already ("problem quantity"): warmed by that
  let variant = 0; // a set with a variant per student: the page's (static/publish.js)
  // A warm runs between checks, never during one: a check that arrives waits for the warm
  // running then (a cold box's diagnosis takes up to a few hundred ms right after a boot). So
  // a warm starts only after IDLE_MS without a request or a keystroke (the page tells each,
  // static/publish.js): the boxes of the problem the page shows first (each judged once with
  // a wrong answer, so its diagnosis is ready too), then the set's other problems. A student
  // reading or thinking leaves time for them; one typing and checking never waits behind one.
  const IDLE_MS = 400;

  function schedule(ms = 0) {
    if (timer === null) timer = setTimeout(warmNext, ms);
  }

  function warmNext() {
    timer = null;
    if (!judge) return;
    while (shown.length && checked.has(shown[0].join(" "))) shown.shift();
    const idle = performance.now() - lastActive;
    if ((shown.length || rest.length) && idle < IDLE_MS) return schedule(IDLE_MS - idle);
    const next = shown.length ? shown.shift() : rest.length ? [rest.shift(), null] : null;
    if (next === null) {
      // then keep the bytecode compiled meanwhile for the next visit
      if (!booted.kept) keepBytecode(booted.key, booted.pyodide);
      return;
    }
    try {
      judge.warm(next[0], variant, next[1]);
    } catch (e) {
      console.error("derive: warming", next, e); // the check says so when it comes
    }
    schedule();
  }

  function answer(job) {
    let reply;
    const started = at();
    if (job.path === "/api/check" && job.body) checked.add(`${job.body.problem} ${job.body.quantity}`);
    try {
      reply = JSON.parse(judge.answer(job.path, JSON.stringify(job.body), job.variant || 0));
    } catch (e) {
      reply = { status: 500, data: { error: `internal error while checking (${e.name || e})` } };
    }
    const ended = at();
    lastActive = performance.now();
    // where the request's time went in here: from the page's post to its start (the boot or
    // a warm running then), and judging
    const worker = { waited_ms: started - (job.sent_at || started), ran_ms: ended - started };
    self.postMessage({ type: "reply", id: job.id, ...reply, worker });
  }

  self.onmessage = async (event) => {
    const message = event.data;
    if (message.type === "boot") {
      variant = message.variant || 0;
      const started = performance.now();
      const opened = at();
      try {
        booted = await bootInWorker(message.settings);
        judge = booted.judge;
      } catch (e) {
        console.error("derive: the checker could not start", e);
        self.postMessage({ type: "failed", error: oneLine(e) });
        return;
      }
      const phases = { worker: opened, fetched: booted.fetched, ...booted.phases };
      self.postMessage({ type: "ready", ms: performance.now() - started, kept: booted.kept, shipped: booted.shipped, phases });
      waiting.forEach(answer);
      waiting = [];
      rest = judge.problems().toJs();
      if (message.first) rest.unshift(message.first);
      schedule();
    } else if (message.type === "shown") {
      // the page opened a problem: its boxes first, before anything else is warmed
      shown = message.quantities.map((q) => [message.problem, q]);
      schedule();
    } else if (message.type === "typing") {
      lastActive = performance.now();
    } else if (message.type === "job") {
      lastActive = performance.now();
      if (judge) answer(message);
      else waiting.push(message);
    }
  };
}
