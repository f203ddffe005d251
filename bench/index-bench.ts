/**
 * Index benchmark: `npm run bench:index -- <dir> [--all] [--searches N] [--no-python]`.
 * Prints files, MB, symbols, cold and warm seconds, MB/s, the median search-call time on the warm index,
 * and, when the tree holds Python files, Python's own `ast.parse` + `ast.walk` over the same files.
 * `--all` also descends into node_modules, dist, build, vendor (to measure dependency trees).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildIndex } from "../src/index/index.ts";
import { SearchApis } from "../src/search/search-api.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    all: { type: "boolean" },
    searches: { type: "string", default: "200" },
    "no-python": { type: "boolean" },
  },
});
const dir = positionals[0];
if (!dir) {
  console.error("usage: npm run bench:index -- <dir> [--all] [--searches N] [--no-python]");
  process.exit(2);
}

const cacheDir = mkdtempSync(join(tmpdir(), "auto-fix-bench-cache-"));
const opts = { cacheDir, ...(values.all ? { includeSkippedDirs: true } : {}) };
try {
  const t0 = performance.now();
  const cold = await buildIndex(dir, opts);
  const coldS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const warm = await buildIndex(dir, opts);
  const warmS = (performance.now() - t1) / 1000;
  const s = cold.stats;
  const mb = s.bytes / 1024 / 1024;
  const symbols = s.classes + s.functions + s.methods;
  console.log(`dir            ${dir}${values.all ? " (including dependency/build dirs)" : ""}`);
  console.log(`files          ${s.files}  (${cold.files.filter((f) => f.isTest).length} tests)`);
  console.log(`MB             ${mb.toFixed(1)}`);
  console.log(
    `symbols        ${symbols}  (${s.classes} classes, ${s.functions} functions, ${s.methods} methods)`,
  );
  console.log(`cold           ${coldS.toFixed(2)} s  (${(mb / coldS).toFixed(1)} MB/s, cache ${s.cache})`);
  console.log(
    `warm           ${warmS.toFixed(3)} s  (${(mb / warmS).toFixed(0)} MB/s, cache ${warm.stats.cache}, ${(coldS / warmS).toFixed(1)}x faster than cold)`,
  );

  // Search calls on the warm index: names drawn evenly from the index itself.
  const n = Number(values.searches);
  const apis = new SearchApis(warm);
  const src = warm.files.filter((f) => !f.isTest);
  const pick = <T>(arr: T[], i: number): T | undefined =>
    arr[Math.floor((i * 7919) % Math.max(arr.length, 1))];
  const classes = src.flatMap((f) => f.symbols.filter((x) => x.kind === "class").map((x) => ({ f, x })));
  const methods = src.flatMap((f) => f.symbols.filter((x) => x.kind === "method").map((x) => ({ f, x })));
  const funcs = src.flatMap((f) => f.symbols.filter((x) => x.kind !== "class").map((x) => ({ f, x })));
  const calls: [string, (string | number)[]][] = [];
  for (let i = 0; calls.length < n && src.length > 0; i++) {
    const c = pick(classes, i);
    const m = pick(methods, i);
    const fn = pick(funcs, i);
    const file = pick(src, i)!;
    if (c) calls.push(["search_class", [c.x.name]]);
    if (fn) calls.push(["search_method", [fn.x.name]]);
    if (m?.x.className) calls.push(["search_method_in_class", [m.x.name, m.x.className]]);
    if (fn) calls.push(["search_method_in_file", [fn.x.name, fn.f.path]]);
    if (c) calls.push(["search_class_in_file", [c.x.name, c.f.path]]);
    if (fn) calls.push(["search_code", [`def ${fn.x.name}(`]]);
    if (fn) calls.push(["search_code", [`${fn.x.name}(`]]);
    calls.push(["search_code_in_file", ["return", file.path]]);
    calls.push(["get_code_around_line", [file.path, 10, 15]]);
  }
  const times: number[] = [];
  const perApi = new Map<string, number[]>();
  for (const [name, args] of calls.slice(0, n)) {
    const t = performance.now();
    await apis.call(name, args);
    const ms = performance.now() - t;
    times.push(ms);
    perApi.set(name, [...(perApi.get(name) ?? []), ms]);
  }
  const med = (xs: number[]): number => {
    const a = [...xs].sort((x, y) => x - y);
    return a[Math.floor(a.length / 2)] ?? 0;
  };
  const p90 = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.9)] ?? 0;
  console.log(
    `search         ${times.length} calls: median ${med(times).toFixed(2)} ms, p90 ${p90(times).toFixed(2)} ms, max ${Math.max(...times, 0).toFixed(1)} ms`,
  );
  for (const [name, xs] of perApi) {
    console.log(`  ${name.padEnd(22)} median ${med(xs).toFixed(2)} ms (${xs.length} calls)`);
  }

  const pyFiles = cold.files.filter((f) => f.language === "python").map((f) => join(cold.realRoot, f.path));
  if (pyFiles.length > 0 && !values["no-python"]) {
    const list = join(cacheDir, "py-files.txt");
    writeFileSync(list, pyFiles.join("\n"));
    const script = [
      "import ast, sys, time",
      "paths = open(sys.argv[1]).read().split('\\n')",
      "t = time.perf_counter(); n = 0",
      "for p in paths:",
      "    src = open(p, 'rb').read()",
      "    try: tree = ast.parse(src)",
      "    except (SyntaxError, ValueError): continue",
      "    for node in ast.walk(tree):",
      "        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)): n += 1",
      "print(len(paths), n, time.perf_counter() - t)",
    ].join("\n");
    const r = spawnSync("python3", ["-c", script, list], { encoding: "utf8" });
    if (r.status === 0) {
      const [files, defs, secs] = r.stdout.trim().split(/\s+/);
      const pyS = Number(secs);
      console.log(
        `python ast     ${files} files, ${defs} defs: ${pyS.toFixed(2)} s (ast.parse + ast.walk, one process)`,
      );
      console.log(
        `cold vs python ${(pyS / coldS).toFixed(2)}x faster (all languages indexed: ${coldS.toFixed(2)} s)`,
      );
    } else {
      console.log(`python ast     not run: ${r.error?.message ?? r.stderr.trim().slice(0, 200)}`);
    }
  }
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}
