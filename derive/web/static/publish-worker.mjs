// derive published workbook: the checker, in a Web Worker. It boots Pyodide, unpacks the
// site's Python (derive, sympy and what they import: python/derive-site.zip), reads the set
// (python/set.json) and answers the page's POST requests with derive's own checker
// (derive.web.in_browser.Judge: the server's validation, grader and JSON). No fork, thread
// or signal: the page stops a check that runs too long by terminating this worker.
// The same module runs under Node (tests): bootJudge does the work, the worker part only
// listens for messages.

/** Boot Pyodide and derive's judge from the site's files.
 *
 * @param {Function} loadPyodide - Pyodide's loader (pyodide.mjs).
 * @param {string} indexURL - the folder of the Pyodide runtime.
 * @param {Uint8Array} zip - python/derive-site.zip.
 * @param {string} setText - python/set.json.
 * @returns the judge (a Python object: answer(path, body), problems(), warm(id)).
 */
export async function bootJudge(loadPyodide, indexURL, zip, setText) {
  const pyodide = await loadPyodide({ indexURL, fullStdLib: false });
  const site = "/home/pyodide/derive-site";
  pyodide.unpackArchive(zip, "zip", { extractDir: site });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(site)})`);
  const module = pyodide.pyimport("derive.web.in_browser");
  return module.Judge.from_json(setText);
}

async function bootInWorker(settings) {
  const base = new URL(settings.site, self.location.href);
  const runtime = new URL(settings.pyodide, base).href;
  const [{ loadPyodide }, zip, setText] = await Promise.all([
    import(runtime + "pyodide.mjs"),
    fetch(new URL("python/derive-site.zip", base)).then((r) => {
      if (!r.ok) throw new Error(`python/derive-site.zip: ${r.status}`);
      return r.arrayBuffer();
    }),
    fetch(new URL("python/set.json", base)).then((r) => {
      if (!r.ok) throw new Error(`python/set.json: ${r.status}`);
      return r.text();
    }),
  ]);
  return bootJudge(loadPyodide, runtime, new Uint8Array(zip), setText);
}

if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  let judge = null;
  let waiting = [];
  let warmList = [];

  function warmNext() {
    // analyse the set's problems one at a time while idle, so later first checks are quick
    if (!warmList.length) return;
    judge.warm(warmList.shift());
    setTimeout(warmNext, 0);
  }

  function answer(job) {
    let reply;
    try {
      reply = JSON.parse(judge.answer(job.path, JSON.stringify(job.body)));
    } catch (e) {
      reply = { status: 500, data: { error: `internal error while checking (${e.name || e})` } };
    }
    self.postMessage({ type: "reply", id: job.id, ...reply });
  }

  self.onmessage = async (event) => {
    const message = event.data;
    if (message.type === "boot") {
      const started = performance.now();
      try {
        judge = await bootInWorker(message.settings);
      } catch (e) {
        self.postMessage({ type: "failed", error: String(e && e.message ? e.message : e) });
        return;
      }
      self.postMessage({ type: "ready", ms: performance.now() - started });
      waiting.forEach(answer);
      waiting = [];
      warmList = message.first ? [message.first] : [];
      warmList.push(...judge.problems().toJs());
      setTimeout(warmNext, 0);
    } else if (message.type === "job") {
      if (judge) answer(message);
      else waiting.push(message);
    }
  };
}
