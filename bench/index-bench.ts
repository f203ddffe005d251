/**
 * Index benchmark: `npm run bench:index -- <dir> [--all] [--rounds N] [--searches N] [--no-python]`.
 *
 * Each round indexes `dir` cold (fresh cache) and then, when the tree holds Python files, runs Python's
 * own `ast.parse` + `ast.walk` over the same files in a child process, so both see the same machine
 * load. The first round is reported apart: it also starts the parse workers and warms up the grammar
 * code, which later builds in the same process do not pay again. Prints files, MB, symbols, cold and warm seconds, MB/s, CPU seconds, the best and median of
 * the rounds, and the median search-call time on the warm index. `--all` also descends into
 * node_modules, dist, build and vendor (to measure dependency trees).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { UserError } from "../src/core/errors.ts";
import { buildIndex, type CodeIndex } from "../src/index/index.ts";
import { SearchApis } from "../src/search/search-api.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    all: { type: "boolean" },
    rounds: { type: "string", default: "4" },
    searches: { type: "string", default: "200" },
    "no-python": { type: "boolean" },
  },
});
const dir = positionals[0];
if (!dir) {
  console.error("usage: npm run bench:index -- <dir> [--all] [--rounds N] [--searches N] [--no-python]");
  process.exit(2);
}

const PY_SCRIPT = [
  "import ast, sys, time",
  "paths = open(sys.argv[1]).read().split('\\n')",
  "t = time.perf_counter(); c = time.process_time(); n = 0",
  "for p in paths:",
  "    src = open(p, 'rb').read()",
  "    try: tree = ast.parse(src)",
  "    except (SyntaxError, ValueError): continue",
  "    for node in ast.walk(tree):",
  "        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)): n += 1",
  "print(len(paths), n, time.perf_counter() - t, time.process_time() - c)",
].join("\n");

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.floor(a.length / 2)] ?? 0;
};
const p90 = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.9)] ?? 0;
const best = (xs: number[]): number => Math.min(...xs);

const work = mkdtempSync(join(tmpdir(), "auto-fix-bench-"));
const extra = values.all ? { includeSkippedDirs: true } : {};
try {
  const rounds = Math.max(1, Number(values.rounds));
  const cold: { s: number; cpu: number; load: number }[] = [];
  const py: { s: number; cpu: number }[] = [];
  let index: CodeIndex | null = null;
  let cacheDir = "";
  let pyInfo = "";
  for (let r = 0; r < rounds; r++) {
    cacheDir = join(work, `cache-${r}`);
    const load = loadavg()[0] ?? 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    index = await buildIndex(dir, { cacheDir, ...extra });
    const used = process.cpuUsage(cpu0);
    cold.push({ s: (performance.now() - t0) / 1000, cpu: (used.user + used.system) / 1e6, load });
    const pyFiles = index.files
      .filter((f) => f.language === "python")
      .map((f) => join(index!.realRoot, f.path));
    if (pyFiles.length > 0 && !values["no-python"]) {
      const list = join(work, "py-files.txt");
      writeFileSync(list, pyFiles.join("\n"));
      const res = spawnSync("python3", ["-c", PY_SCRIPT, list], { encoding: "utf8" });
      if (res.status === 0) {
        const [files, defs, secs, cpuSecs] = res.stdout.trim().split(/\s+/);
        py.push({ s: Number(secs), cpu: Number(cpuSecs) });
        pyInfo = `${files} files, ${defs} class/def nodes`;
      } else {
        pyInfo = `not run: ${res.error?.message ?? res.stderr.trim().slice(0, 200)}`;
      }
    }
    if (r < rounds - 1) rmSync(cacheDir, { recursive: true, force: true });
  }
  const idx = index!;
  const wcpu0 = process.cpuUsage();
  const t1 = performance.now();
  const warm = await buildIndex(dir, { cacheDir, ...extra });
  const warmS = (performance.now() - t1) / 1000;
  const wcpu = process.cpuUsage(wcpu0);
  const warmCpu = (wcpu.user + wcpu.system) / 1e6;

  const s = idx.stats;
  const mb = s.bytes / 1024 / 1024;
  const coldBest = best(cold.map((c) => c.s));
  console.log(`dir            ${dir}${values.all ? " (including dependency/build dirs)" : ""}`);
  console.log(
    `machine        ${availableParallelism()} cores; 1-min load average at each round's start: ${cold.map((c) => c.load.toFixed(1)).join(", ")}`,
  );
  console.log(`files          ${s.files}  (${idx.files.filter((f) => f.isTest).length} tests)`);
  console.log(`MB             ${mb.toFixed(1)}`);
  console.log(
    `symbols        ${s.classes + s.functions + s.methods}  (${s.classes} classes, ${s.functions} functions, ${s.methods} methods)`,
  );
  const first = cold[0]!;
  const later = cold.slice(1);
  console.log(
    `cold, 1st      ${first.s.toFixed(2)} s (${(mb / first.s).toFixed(1)} MB/s); CPU ${first.cpu.toFixed(2)} s in all threads — ` +
      "the first build in this process: it also starts the parse workers and warms up the grammar code",
  );
  if (later.length > 0) {
    const laterBest = best(later.map((c) => c.s));
    console.log(
      `cold, later    best ${laterBest.toFixed(2)} s (${(mb / laterBest).toFixed(1)} MB/s), median ${median(later.map((c) => c.s)).toFixed(2)} s ` +
        `of ${later.length}; CPU ${median(later.map((c) => c.cpu)).toFixed(2)} s — empty cache, parse workers already running in this process`,
    );
  }
  console.log(
    `warm           ${warmS.toFixed(3)} s  (${(mb / warmS).toFixed(0)} MB/s, cache ${warm.stats.cache}; ${(coldBest / warmS).toFixed(1)}x faster than the best cold run; CPU ${warmCpu.toFixed(2)} s)`,
  );
  if (py.length > 0) {
    const pyBest = best(py.map((p) => p.s));
    console.log(
      `python ast     ${pyInfo}: best ${pyBest.toFixed(2)} s, median ${median(py.map((p) => p.s)).toFixed(2)} s; CPU ${median(py.map((p) => p.cpu)).toFixed(2)} s (one process)`,
    );
    // Each round's Python run follows that round's index build, so a ratio compares like with like.
    const ratio = (i: number): number => (py[i] && cold[i] ? py[i].s / cold[i].s : 0);
    const laterRatios = later.map((_, i) => ratio(i + 1)).filter((x) => x > 0);
    console.log(
      `cold vs python 1st build ${ratio(0).toFixed(2)}x` +
        (laterRatios.length > 0
          ? `; later builds ${laterRatios.map((x) => `${x.toFixed(2)}x`).join(", ")} (median ${median(laterRatios).toFixed(2)}x)`
          : ""),
    );
  } else if (pyInfo) {
    console.log(`python ast     ${pyInfo}`);
  }

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
  console.log(
    `search         ${times.length} calls: median ${median(times).toFixed(2)} ms, p90 ${p90(times).toFixed(2)} ms, max ${Math.max(...times, 0).toFixed(1)} ms (the first search_code reads every file)`,
  );
  for (const [name, xs] of perApi) {
    console.log(`  ${name.padEnd(22)} median ${median(xs).toFixed(2)} ms (${xs.length} calls)`);
  }
} catch (err) {
  if (!(err instanceof UserError)) throw err;
  console.error(`bench:index: ${err.message}`);
  process.exitCode = 2;
} finally {
  rmSync(work, { recursive: true, force: true });
}
