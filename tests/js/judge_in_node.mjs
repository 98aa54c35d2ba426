// Judge requests with a published site's checker in Pyodide under Node, as the page's worker
// does (static/publish-worker.mjs's bootJudge). Usage:
//   node judge_in_node.mjs SITE_DIR PYODIDE_DIR < jobs.json > replies.json
// jobs.json: [{"path": "/api/check", "body": {...}}, ...]; replies.json: {"boot_ms", "replies":
// [{"status", "data", "ms"}, ...]}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [site, runtime] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(0, "utf8"));
const { bootJudge } = await import(pathToFileURL(path.join(site, "static", "publish-worker.mjs")).href);
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);
const started = performance.now();
const { judge } = await bootJudge(
  loadPyodide,
  runtime + path.sep,
  new Uint8Array(readFileSync(path.join(site, "python", "derive-site.zip"))),
  readFileSync(path.join(site, "python", "set.json"), "utf8"),
);
const boot_ms = performance.now() - started;
const replies = [];
for (const job of jobs) {
  const t = performance.now();
  const reply = JSON.parse(judge.answer(job.path, JSON.stringify(job.body)));
  replies.push({ ...reply, ms: performance.now() - t });
}
process.stdout.write(JSON.stringify({ boot_ms, replies }) + "\n");
