// Judge requests with a published site's checker in Pyodide under Node, as the page's worker
// does (static/publish-worker.mjs's bootJudge). Usage:
//   node judge_in_node.mjs SITE_DIR PYODIDE_DIR [BYTECODE_ZIP] < jobs.json > replies.json
// jobs.json: [{"path": "/api/check", "body": {...}}, ...]; replies.json: {"boot_ms",
// "boot_cpu_ms", "bytecode_used", "replies": [{"status", "data", "ms"}, ...]}. With
// BYTECODE_ZIP, boot from it when it exists (a second visit), else write it after judging.
// Each zip is checked against the sha256 in the site's settings (index.html), as the page
// does; DERIVE_NO_SHA256=1 leaves the bytecode's unchecked (a kept copy without its hash).
// Pyodide boots with the site's standard library (python/stdlib.zip) where the site ships
// one, as the page does; DERIVE_NO_STDLIB=1 boots it with its own.
// A boot that fails writes {"failed": one line} and exits 3.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [site, runtime, bytecodeFile] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(0, "utf8"));
const { bootJudge } = await import(pathToFileURL(path.join(site, "static", "publish-worker.mjs")).href);
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);
const { oneLine } = await import(pathToFileURL(path.join(site, "static", "publish-worker.mjs")).href);
const page = readFileSync(path.join(site, "index.html"), "utf8");
const settings = JSON.parse(page.match(/<script type="application\/json" id="derive-site">(.*?)<\/script>/s)[1]);
const sha256 = { python: settings.python_sha256, bytecode: process.env.DERIVE_NO_SHA256 ? null : settings.bytecode_sha256 };
const bytecode = bytecodeFile && existsSync(bytecodeFile) ? new Uint8Array(readFileSync(bytecodeFile)) : null;
const started = performance.now();
const cpu = process.cpuUsage();
let booted;
try {
  booted = await bootJudge(
    loadPyodide,
    runtime + path.sep,
    new Uint8Array(readFileSync(path.join(site, "python", "derive-site.zip"))),
    readFileSync(path.join(site, "python", "set.json"), "utf8"),
    bytecode,
    sha256,
    settings.stdlib && !process.env.DERIVE_NO_STDLIB ? path.join(site, settings.stdlib) : null,
  );
} catch (e) {
  process.stdout.write(JSON.stringify({ failed: oneLine(e) }) + "\n");
  process.exit(3);
}
const { pyodide, judge } = booted;
const boot_ms = performance.now() - started;
const used = process.cpuUsage(cpu);
const replies = [];
for (const job of jobs) {
  const t = performance.now();
  const reply = JSON.parse(judge.answer(job.path, JSON.stringify(job.body)));
  replies.push({ ...reply, ms: performance.now() - t });
}
if (bytecodeFile && !bytecode) {
  const zip = pyodide.pyimport("derive.web.in_browser").bytecode_zip("/home/pyodide/derive-site");
  writeFileSync(bytecodeFile, zip.toJs());
}
const boot_cpu_ms = (used.user + used.system) / 1000;
process.stdout.write(JSON.stringify({ boot_ms, boot_cpu_ms, bytecode_used: booted.bytecode, replies }) + "\n");
