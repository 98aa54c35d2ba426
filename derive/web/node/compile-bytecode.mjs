// derive publish --pyodide: compile the site's Python in Pyodide under Node, so a first visit
// boots from bytecode instead of compiling sympy and derive in the browser. Usage:
//   node compile-bytecode.mjs WORKER_MJS PYODIDE_DIR SITE_ZIP SET_JSON OUT_ZIP STDLIB_ZIP
// It boots the judge as the page's worker does (bootJudge, writing .pyc as modules import),
// warms every problem and checks one answer per problem (so the reader and the grader's
// modules compile too), then writes derive.web.in_browser.bytecode_zip to OUT_ZIP and
// stdlib_zip (the standard library with the bytecode of what the judge imported) to STDLIB_ZIP.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [worker, runtime, siteZip, setJson, out, stdlib] = process.argv.slice(2);
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
