/**
 * How long the host takes to digest crafted inputs at their size caps: test output of every runner
 * parser (8 MB), a maximal JUnit report, model answers through the patch parser and the JSON extractors
 * (1 MB), 2,000 edit blocks, API calls and a 100 kB search_code fragment.
 *
 * Each target is first probed at a small size with every mutation of a realistic sample (prefixes of
 * its lines repeated, runs of the character at each cut) and with hand-written attacks; the slowest
 * per byte are then timed at the full cap. Repository source is one of the targets: Python parsed as the
 * index and the patch engine parse it (a parse past its CPU time limit counts as what it cost). Target:
 * every row under 1 s. Each target runs in a worker
 * thread with a time limit, so a parser that hangs is reported as such instead of stopping the bench.
 * Figures are the CPU time the bench process spent (its main thread only waits), and wall time: the
 * machine may be shared, so wall time can be several times the CPU time.
 *
 *   npm run bench:hostile [-- --probe 65536 --top 6 --limit 300 --only <part of a target's name>]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { parseApiCall } from "../src/agents/api-call.ts";
import { proxyAnswerSchema } from "../src/agents/proxy-agent.ts";
import { buildIndex } from "../src/index/index.ts";
import { extractJson, MAX_JSON_ANSWER_CHARS } from "../src/model/json.ts";
import { computePatch, createMemoryRepo } from "../src/patch/index.ts";
import { parseAnswer } from "../src/patch/parse.ts";
import { reviewVerdictSchema } from "../src/review/reviewer.ts";
import { API_SPECS, SearchApis } from "../src/search/search-api.ts";
import { MAX_CODE_CHARS } from "../src/search/code-search.ts";
import { extractReflection } from "../src/strategies/tree/answer.ts";
import { type LanguageId, ParseTimeLimitError, parseSource } from "../src/languages/index.ts";
import { MAX_JUNIT_CHARS, parseJUnitXml } from "../src/runners/shared/results-junit-xml.ts";
import { MAX_TEST_OUTPUT_CHARS } from "../src/runners/shared/results-text-scan.ts";
import { parseTestOutput } from "../src/validate/output.ts";
import {
  CALL_ATTACKS,
  type Case,
  fill,
  JSON_ATTACKS,
  JUNIT_ATTACKS,
  mutations,
  PATCH_ATTACKS,
  PYTHON_ATTACKS,
  PYTHON_SAMPLE,
  SAMPLES,
  SOURCE_SAMPLES,
  BRACE_ATTACKS,
  TEST_OUTPUT_ATTACKS,
} from "./support/hostile-inputs.ts";

const { values } = parseArgs({
  options: {
    probe: { type: "string", default: "65536" },
    top: { type: "string", default: "6" },
    limit: { type: "string", default: "300" },
    only: { type: "string" },
  },
});
const PROBE = Number(values.probe);
const TOP = Number(values.top);
const LIMIT_S = Number(values.limit);

interface Target {
  name: string;
  cap: number;
  /** Probe size for this target when smaller than `--probe` (a grammar's square shows early). */
  probe?: number;
  cases: Case[];
  run: (input: string) => unknown;
}

/** CPU and wall milliseconds of one call (CPU of this thread: the machine may be busy with others). */
const measure = async (fn: () => unknown): Promise<{ cpu: number; wall: number }> => {
  const c = process.cpuUsage();
  const t = performance.now();
  await fn();
  const d = process.cpuUsage(c);
  return { cpu: (d.user + d.system) / 1000, wall: performance.now() - t };
};
const time = async (fn: () => unknown): Promise<number> => (await measure(fn)).cpu;

const runner = (framework: Parameters<typeof parseTestOutput>[0]) => (s: string) =>
  parseTestOutput(framework, s, "");

const MB = 1024 * 1024;
const testTargets: Target[] = [
  { name: "pytest output", sample: SAMPLES.pytest, fw: "pytest" as const },
  { name: "unittest output", sample: SAMPLES.unittest, fw: "unittest" as const },
  { name: "node spec output", sample: SAMPLES.spec, fw: "node-test" as const },
  { name: "jest/vitest/mocha output", sample: SAMPLES.jest, fw: "jest" as const },
  { name: "vitest output", sample: SAMPLES.vitest, fw: "vitest" as const },
  { name: "mocha output", sample: SAMPLES.mocha, fw: "mocha" as const },
  { name: "go test output", sample: SAMPLES.go, fw: "go" as const },
].map((t) => ({
  name: t.name,
  cap: MAX_TEST_OUTPUT_CHARS,
  cases: [...mutations(t.sample), ...TEST_OUTPUT_ATTACKS],
  run: runner(t.fw),
}));
testTargets.push({
  name: "TAP output",
  cap: MAX_TEST_OUTPUT_CHARS,
  cases: [...mutations(SAMPLES.tap), ...TEST_OUTPUT_ATTACKS],
  run: runner("node-test"),
});
// The fallback chain (no framework known) runs every parser on the same output.
testTargets.push({
  name: "unknown runner (all parsers)",
  cap: MAX_TEST_OUTPUT_CHARS,
  cases: [
    ...mutations(
      [
        SAMPLES.pytest,
        SAMPLES.unittest,
        SAMPLES.spec,
        SAMPLES.jest,
        SAMPLES.tap,
        SAMPLES.go,
        SAMPLES.mocha,
      ].join("\n"),
      24,
    ),
    ...TEST_OUTPUT_ATTACKS,
  ],
  run: runner("unknown" as never),
});

// search_code runs over a real index of crafted files (each at the indexer's 1 MB file cap).
let apisMemo: SearchApis | null = null;
let repo = "";
const apis = async (): Promise<SearchApis> => {
  if (apisMemo) return apisMemo;
  repo = mkdtempSync(join(tmpdir(), "hostile-bench-"));
  writeFileSync(join(repo, "run.py"), `x = "${"a".repeat(MB - 20)}"\n`);
  writeFileSync(join(repo, "lines.py"), fill("a\n", MB - 10));
  writeFileSync(join(repo, "mixed.py"), fill("    a = b(c)\n    a\n", MB - 10));
  writeFileSync(join(repo, "real.py"), fill("def f(x):\n    return x + 1\n\n", MB - 10));
  const index = await buildIndex(repo, { cacheDir: null, workers: 0 });
  apisMemo = new SearchApis(index, { includeTests: true });
  return apisMemo;
};
const searchCases: Case[] = [
  { name: "`a` run ending in `b` (one line)", gen: (n) => `${"a".repeat(n - 1)}b` },
  { name: "`a` lines ending in `b` (loose match)", gen: (n) => `${fill("a\n", n - 2)}b` },
  { name: "indented lines, last one missing", gen: (n) => `${fill("  a\n", n - 4)}zz` },
  { name: "spaces then `x` (trim)", gen: (n) => `${" ".repeat(n - 1)}x` },
  { name: "real code repeated", gen: (n) => fill("def f(x):\n    return x + 1\n\n", n) },
  { name: "`a = b(c)` lines + miss", gen: (n) => `${fill("a = b(c)\na\n", n - 2)}q` },
  ...mutations(SAMPLES.patch, 24).filter((_c, i) => i % 7 === 0),
];

/** Repository source as the index and the patch engine read it; a parse past its time limit counts as what it cost. */
const parseAs =
  (lang: LanguageId) =>
  async (s: string): Promise<void> => {
    try {
      (await parseSource(lang, s)).delete();
    } catch (err) {
      if (!(err instanceof ParseTimeLimitError)) throw err;
    }
  };

const targets: Target[] = [
  ...testTargets,
  // The index's file cap is 1 MiB.
  {
    name: "Python source (tree-sitter parse)",
    cap: MB,
    probe: 16 * 1024,
    cases: [...mutations(PYTHON_SAMPLE, 24), ...PYTHON_ATTACKS],
    run: parseAs("python"),
  },
  ...(["javascript", "typescript", "java", "go"] as const).map((lang) => ({
    name: `${lang === "javascript" ? "JavaScript" : lang === "typescript" ? "TypeScript" : lang === "java" ? "Java" : "Go"} source (tree-sitter parse)`,
    cap: MB,
    probe: 16 * 1024,
    cases: [...mutations(SOURCE_SAMPLES[lang], 16), ...BRACE_ATTACKS],
    run: parseAs(lang),
  })),
  {
    name: "JUnit report",
    cap: MAX_JUNIT_CHARS,
    cases: [...mutations(SAMPLES.junit), ...JUNIT_ATTACKS],
    run: (s) => parseJUnitXml(s),
  },
  {
    // As auto-fix reads the report it has node --test write: ids from the file and the suites.
    name: "JUnit report (suites named in ids)",
    cap: MAX_JUNIT_CHARS,
    cases: [...mutations(SAMPLES.junit), ...JUNIT_ATTACKS],
    run: (s) => parseJUnitXml(s, new Map(), new Map(), (_c, n, f, suites) => [f, ...suites, n].join(" > ")),
  },
  {
    name: "patch answer (parser)",
    cap: MB,
    cases: [...mutations(SAMPLES.patch), ...PATCH_ATTACKS],
    run: (s) => parseAnswer(s),
  },
  {
    name: "reflection (tree search)",
    cap: MB,
    cases: [...mutations(SAMPLES.patch), ...PATCH_ATTACKS, ...JSON_ATTACKS],
    run: (s) => extractReflection(s),
  },
  {
    name: "JSON answer (proxy schema)",
    cap: MAX_JSON_ANSWER_CHARS,
    cases: [...mutations(SAMPLES.json), ...JSON_ATTACKS],
    run: (s) => extractJson(s, proxyAnswerSchema),
  },
  {
    name: "JSON answer (reviewer schema)",
    cap: MAX_JSON_ANSWER_CHARS,
    cases: [...mutations(SAMPLES.json), ...JSON_ATTACKS],
    run: (s) => extractJson(s, reviewVerdictSchema),
  },
  {
    name: "API call text",
    cap: MAX_CODE_CHARS + 1024,
    cases: [...mutations(SAMPLES.call), ...CALL_ATTACKS],
    run: (s) => parseApiCall(s, API_SPECS),
  },
  {
    name: "search_code fragment (index of 4 MB)",
    cap: MAX_CODE_CHARS,
    cases: searchCases,
    run: async (s) => (await apis()).call("search_code", [s]),
  },
  {
    name: "search_method name",
    cap: MAX_CODE_CHARS,
    cases: [
      { name: "`(` run", gen: (n) => `f${"(".repeat(n - 2)})` },
      { name: "`<` run", gen: (n) => `f${fill("< ", n - 2)}>` },
      { name: "spaces then `(`", gen: (n) => `f${" ".repeat(n - 3)}(x` },
    ],
    run: async (s) => (await apis()).call("search_method", [s]),
  },
];

const EDIT_PARSE = "2,000 edit blocks (patch parser)";
const EDIT_APPLY = "2,000 edit blocks (parse + apply)";

interface Row {
  target: string;
  cap: number;
  tried: number;
  worst: string;
  ms: number;
  wall: number;
}

/** Probes one target and times its slowest cases at the cap (runs in a worker). */
async function benchTarget(t: Target): Promise<Row> {
  if (t.name.startsWith("search")) await apis();
  const probed: { c: Case; ms: number }[] = [];
  for (const c of t.cases) {
    parentPort?.postMessage({ at: `probing ${c.name}` });
    const input = c.gen(Math.min(PROBE, t.probe ?? PROBE, t.cap));
    probed.push({ c, ms: await time(() => t.run(input)) });
  }
  probed.sort((a, b) => b.ms - a.ms);
  let worst = { name: "", ms: 0, wall: 0 };
  for (const { c } of probed.slice(0, TOP)) {
    parentPort?.postMessage({ at: `${c.name} at the cap` });
    const input = c.gen(t.cap).slice(0, t.cap);
    const m = await measure(() => t.run(input));
    if (m.cpu > worst.ms) worst = { name: c.name, ms: m.cpu, wall: m.wall };
  }
  return {
    target: t.name,
    cap: t.cap,
    tried: t.cases.length,
    worst: worst.name,
    ms: worst.ms,
    wall: worst.wall,
  };
}

/** 2,000 edit blocks: parsed, or parsed and applied to a file of 2,000 functions (matching, syntax checks). */
async function editBlocks(apply: boolean): Promise<Row[]> {
  const fns = Array.from({ length: 2000 }, (_v, i) => `def f${i}(x):\n    return x + ${i}\n`);
  const answer = fns
    .map(
      (f, i) =>
        `<file>a.py</file>\n<original>\n${f}</original>\n<patched>\n${f.replace(`+ ${i}\n`, `- ${i}\n`)}</patched>\n`,
    )
    .join("\n");
  const m = apply
    ? await measure(() => computePatch(createMemoryRepo({ "a.py": fns.join("\n") }), answer))
    : await measure(() => parseAnswer(answer));
  return [
    {
      target: apply ? EDIT_APPLY : EDIT_PARSE,
      cap: answer.length,
      tried: 1,
      worst: apply ? "valid blocks, one file" : "valid blocks",
      ms: m.cpu,
      wall: m.wall,
    },
  ];
}

if (!isMainThread) {
  const { name } = workerData as { name: string };
  try {
    const rows =
      name === EDIT_PARSE || name === EDIT_APPLY
        ? await editBlocks(name === EDIT_APPLY)
        : [await benchTarget(targets.find((t) => t.name === name)!)];
    parentPort!.postMessage(rows);
  } finally {
    if (repo) rmSync(repo, { recursive: true, force: true });
  }
} else {
  const rows: Row[] = [];
  const names = [...targets.map((t) => t.name), EDIT_PARSE, EDIT_APPLY];
  for (const name of names.filter(
    (n) => !values.only || n.toLowerCase().includes(values.only.toLowerCase()),
  )) {
    console.error(`${name}…`);
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { name },
      argv: process.argv.slice(2),
    });
    let at = "";
    const got = await new Promise<Row[]>((resolve) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        const cap = targets.find((t) => t.name === name)?.cap ?? 0;
        resolve([
          {
            target: name,
            cap,
            tried: 0,
            worst: `did not finish in ${LIMIT_S} s: ${at}`,
            ms: Number.POSITIVE_INFINITY,
            wall: Number.POSITIVE_INFINITY,
          },
        ]);
      }, LIMIT_S * 1000);
      worker.on("message", (m: Row[] | { at: string }) => {
        if (!Array.isArray(m)) {
          at = m.at;
          return;
        }
        clearTimeout(timer);
        resolve(m);
      });
      worker.once("error", (err: Error) => {
        clearTimeout(timer);
        resolve([
          {
            target: name,
            cap: 0,
            tried: 0,
            worst: `failed: ${err.message}`,
            ms: Number.NaN,
            wall: Number.NaN,
          },
        ]);
      });
    });
    for (const r of got)
      console.error(`  ${r.ms.toFixed(0)} ms CPU (${r.wall.toFixed(0)} ms wall): ${r.worst}`);
    rows.push(...got);
  }
  printTable(rows);
}

function printTable(rows: Row[]): void {
  const size = (n: number): string => (n >= MB ? `${(n / MB).toFixed(1)} MB` : `${Math.round(n / 1024)} kB`);
  const w = [36, 7, 5, 50, 7, 8];
  const line = (cells: string[]) =>
    cells.map((c, i) => (i >= 4 ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join(" | ");
  const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "—");
  console.log(line(["input (at its cap)", "size", "cases", "slowest case", "CPU ms", "wall ms"]));
  console.log(w.map((n) => "-".repeat(n)).join("-|-"));
  for (const r of rows) {
    const worst = r.worst.length > w[3]! ? `${r.worst.slice(0, w[3]! - 1)}…` : r.worst;
    console.log(line([r.target, size(r.cap), String(r.tried), worst, ms(r.ms), ms(r.wall)]));
  }
  const over = rows.filter((r) => !(r.ms < 1000));
  console.log(
    over.length === 0
      ? `\nall ${rows.length} inputs digested in under 1 s of CPU (target met); load average ${loadavg()[0]!.toFixed(1)}`
      : `\nover 1 s: ${over.map((r) => r.target).join(", ")}; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  process.exitCode = over.length === 0 ? 0 : 1;
}
