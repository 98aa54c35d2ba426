// derive publish --pyodide: compile the site's Python in Pyodide under Node, so a first visit
// boots from bytecode instead of compiling sympy and derive in the browser. Usage:
//   node compile-bytecode.mjs WORKER_MJS PYODIDE_DIR SITE_ZIP SET_JSON OUT_ZIP STDLIB_ZIP MODULES_JSON
// It boots the judge as the page's worker does (bootJudge, writing .pyc as modules import),
// warms every problem and checks one answer per problem (so the reader and the grader's
// modules compile too), then writes derive.web.in_browser.bytecode_zip to OUT_ZIP and
// stdlib_zip (the standard library with the bytecode of what the judge imported) to STDLIB_ZIP,
// and the names of the modules it imported to MODULES_JSON (make-snapshot.mjs imports them).
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [worker, runtime, siteZip, setJson, out, stdlib, modules] = process.argv.slice(2);
const { bootJudge } = await import(pathToFileURL(worker).href);
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);
const { pyodide, judge } = await bootJudge(
  loadPyodide,
  runtime + path.sep,
  new Uint8Array(readFileSync(siteZip)),
  readFileSync(setJson, "utf8"),
  null,
);
for (const id of judge.problems().toJs()) {
  judge.warm(id);
  judge.answer("/api/check", JSON.stringify({ problem: id, quantity: "flops", answer: "1" }));
}
judge.answer("/api/check", JSON.stringify({ problem: "", quantity: "", answer: "" }));
const module = pyodide.pyimport("derive.web.in_browser");
writeFileSync(out, module.bytecode_zip("/home/pyodide/derive-site").toJs());
writeFileSync(stdlib, module.stdlib_zip().toJs());
writeFileSync(modules, pyodide.runPython(`import json, sys
json.dumps(sorted(n for n, m in sys.modules.items() if n != "__main__"
  and not n.startswith("derive_operators_")  # an operators file, run by its path
  and not str(getattr(m, "__file__", None) or "").startswith("/home/pyodide/derive-set")))`));
