// derive publish --pyodide: a memory snapshot of Pyodide with the judge's modules imported, so
// a first visit restores Python's heap instead of starting Python, importing sympy and derive
// (static/publish-worker.mjs, bootFromSnapshot). Usage:
//   node make-snapshot.mjs PYODIDE_DIR SITE_ZIP BYTECODE_ZIP STDLIB_ZIP MODULES_JSON OUT
// MODULES_JSON: the names of the modules the judge imported when compile-bytecode.mjs warmed
// and checked every problem. This is a fresh Python that never reads the set: it imports those
// modules, loads the built-in operators and chips, and judges a made-up set's answers of each
// kind (derive/web/warm_up.toml: sympy's caches and derive's memos filled for a first check),
// nothing else, so the heap it saves holds no value of the set (a site published with
// --hide-expected states no asked value in any file).
// The same tree makes the same snapshot, byte for byte: Python's hash seed is fixed, and so are
// the random bytes (mimalloc's keys, `random`'s seed) and the clocks (Date.now, performance.now)
// Pyodide reads while it starts. Every visitor of a site restores that one heap whatever its seed,
// and the judge seeds its own generators (checking/sampling.py): a fixed seed here loses nothing.
import nodeCrypto from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

let seed = 0x2545f491; // xorshift32
const next = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), seed >>> 0);
nodeCrypto.randomFillSync = (view) => {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 255;
  return view;
};
Math.random = () => next() / 2 ** 32;
let clock = 0; // one millisecond a call
Date.now = () => 1.7e12 + clock++;
performance.now = () => clock++;

const [runtime, siteZip, bytecodeZip, stdlib, modules, out] = process.argv.slice(2);
process.argv[1] = "make-snapshot.mjs"; // Python's sys.orig_argv and $_, not the publish's temp folder
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);
const SITE = "/home/pyodide/derive-site";
const pyodide = await loadPyodide({
  indexURL: runtime + path.sep, fullStdLib: false, stdLibURL: stdlib, _makeSnapshot: true,
  env: { HOME: "/home/pyodide", PYTHONHASHSEED: "0" }, // the same heap at every publish
});
for (const zip of [siteZip, bytecodeZip]) {
  pyodide.unpackArchive(new Uint8Array(readFileSync(zip)), "zip", { extractDir: SITE });
}
pyodide.globals.set("derive_modules", readFileSync(modules, "utf8"));
pyodide.runPython(`
import gc, importlib, json, sys
sys.path.insert(0, ${JSON.stringify(SITE)})
sys.dont_write_bytecode = True
for name in json.loads(derive_modules):
    try:
        importlib.import_module(name)
    except Exception:
        pass  # a module that only imports in its context: the first check imports it
import sympy
from derive.pipeline.cache import registry
from derive.problem.chips import load_chips
sympy.Symbol("x") + 1  # sympy's first Add finishes its import (sympy.tensor, sympy.combinatorics)
registry(())  # the built-in operators, as every set without operator files of its own loads them
load_chips()  # chips.toml, read by every set's first problem
# a made-up set judged (warm_up.toml): what a first check of each kind fills in, in the heap
import tomllib
from derive.web.in_browser import SET_FORMAT, Judge
made_up = tomllib.loads(open(${JSON.stringify(SITE)} + "/derive/web/warm_up.toml", encoding="utf-8").read())
data = {"format": SET_FORMAT, "origin": "warm_up.toml", "text": made_up["set"], "files": {}}
judge = Judge.from_json(json.dumps({**data, "trust": False, "hide_expected": False}))
for problem, quantity, answer in made_up["checks"]:
    body = json.dumps({"problem": problem, "quantity": quantity, "answer": answer})
    judge.answer("/api/read", body)
    judge.answer("/api/check", body)
del made_up, data, judge, body
del derive_modules
gc.collect()
gc.freeze()  # what the snapshot holds is never collected: no full collection walks it (as the CLI)
`);
writeFileSync(out, pyodide.makeMemorySnapshot());
