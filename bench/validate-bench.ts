/**
 * Targeted validation on a large real repository: the Python standard library (about 2,100 files) with
 * its own test suite (about 440 test modules, tens of thousands of tests), as Debian ships it for
 * /usr/bin/python3.11 in the package `libpython3.11-testsuite`.
 *
 * Bugs are planted in real functions of real modules (bench/support/stdlib-mutants.py picks modules that
 * have a test named after them, a random function and a random comparison, operator, constant, condition
 * or return value in it). Each planted bug is one candidate patch, validated as the pipeline does it: a
 * patched copy of the set-up tree, the tests related to the change in rank order within the budget for
 * related tests (default 45 s), against the job's unpatched results for the same tests (computed once per
 * job), the rest of the suite only within its budget (default 120 s). Printed: the time per candidate,
 * how many related test modules ran, were left out over the budget or after a regression was shown, and
 * whether the planted regression was caught by a test selected for its relation to the change.
 *
 * The whole suite is not run per candidate here (it takes far longer): its time is estimated from a
 * random sample of test modules run the same way (time per module × modules), and said to be an estimate.
 *
 *   npm run bench:validate [-- --bugs 12 --seed 1 --sample 24]
 *
 * Without the test suite installed the benchmark says how to get it and exits 0 (CI does not run it).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseRepoConfig } from "../src/config/index.ts";
import { createSandbox } from "../src/sandbox/index.ts";
import {
  changedFilesOfDiff,
  listTree,
  runTestSuite,
  suiteFor,
  targetedCommand,
  TreeStates,
  validateCandidate,
} from "../src/validate/index.ts";

const { values } = parseArgs({
  options: {
    bugs: { type: "string", default: "12" },
    seed: { type: "string", default: "1" },
    sample: { type: "string", default: "24" },
    python: { type: "string", default: "/usr/bin/python3.11" },
  },
});
const BUGS = Number(values.bugs);
const SEED = Number(values.seed);
const SAMPLE = Number(values.sample);
const PYTHON = values.python!;

function stdlibDir(): string | null {
  try {
    return execFileSync(PYTHON, ["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], {
      encoding: "utf8",
    }).trim();
  } catch {
    return null;
  }
}

const lib = stdlibDir();
if (!lib || !existsSync(join(lib, "test", "test_json")) || !existsSync(join(lib, "test", "support"))) {
  console.log(
    [
      `bench:validate skipped: the Python standard library's test suite is not installed for ${PYTHON}${lib ? ` (no ${join(lib, "test", "test_json")})` : " (no such interpreter)"}.`,
      "On Debian/Ubuntu: apt-get install python3.11 libpython3.11-testsuite (the suite of /usr/bin/python3.11,",
      "which the sandbox runs as python3). Another interpreter: --python /path/to/python3.X with its test package.",
    ].join("\n"),
  );
  process.exit(0);
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length === 0
    ? 0
    : v.length % 2
      ? v[(v.length - 1) / 2]!
      : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};

// The repository: the pure-Python library and its tests (no caches, no compiled extensions: those the
// sandbox's interpreter loads from its own lib-dynload).
const scratch = mkdtempSync(join(tmpdir(), "af-validate-bench-"));
const repo = join(scratch, "stdlib");
const skip = new Set(["__pycache__", "site-packages", "dist-packages", "lib-dynload"]);
cpSync(lib, repo, {
  recursive: true,
  filter: (src) => {
    const name = src.slice(src.lastIndexOf("/") + 1);
    return !skip.has(name) && !name.startsWith("config-3");
  },
});
const files = listTree(repo).files.length;

const config = parseRepoConfig(
  ["test: python3 -m unittest -v", "timeouts:", "  test: 3600", "sandbox:", "  max-processes: 1024", ""].join(
    "\n",
  ),
);
const sandbox = await createSandbox("bwrap");
let t = performance.now();
const states = await TreeStates.prepare({ sandbox, config, source: repo });
// Stopped early (Ctrl-C): the sandbox runs are stopped and the copies removed.
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    void states.dispose().finally(() => {
      rmSync(scratch, { recursive: true, force: true });
      process.exit(130);
    });
  });
}
const prepareMs = performance.now() - t;
const suite = suiteFor(listTree(states.pristineDir), "unittest");
const modules = [...suite.targets.keys()].filter((m) => m.startsWith("test."));
console.log(
  `Repository: the Python ${execFileSync(PYTHON, ["-V"], { encoding: "utf8" }).trim()} standard library, ${files} files; ${suite.targets.size} unittest test modules (${modules.length} under test/)`,
);
console.log(
  `Prepared tree (copy, no setup): ${s(prepareMs)}; runner: ${config.validation.runner}; budget for related tests: ${s(config.validation.relatedBudgetMs)}, for the rest of the suite: ${s(config.validation.budgetMs)}; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);

// Planted bugs from real code.
const mutants = execFileSync(
  PYTHON,
  [new URL("./support/stdlib-mutants.py", import.meta.url).pathname, repo, String(BUGS), String(SEED)],
  { encoding: "utf8" },
)
  .split("\n")
  .filter(Boolean)
  .map(
    (l) =>
      JSON.parse(l) as {
        module: string;
        file: string;
        function: string;
        line: number;
        kind: string;
        before: string;
        after: string;
        diff: string;
      },
  );

interface Row {
  bug: string;
  ms: number;
  selected: number;
  ranTests: number;
  /** Selected targets that ran, left out for the budget, left out after a regression. */
  ran: number;
  overBudget: number;
  /** Of those over the budget, the ones whose batch was stopped at it, and why (the first reason). */
  stopped: number;
  stopReason: string | null;
  afterRegression: number;
  /** Could not be judged: timed out before the patch, or their tests need the network. */
  timedOut: number;
  network: number;
  pristineRuns: number;
  status: string;
  caught: boolean;
  regressions: string;
  notRun: string | null;
}
const rows: Row[] = [];
for (const m of mutants) {
  t = performance.now();
  const copy = await states.patched(m.diff);
  let row: Row;
  try {
    const v = await validateCandidate({
      sandbox,
      config,
      pristine: { dir: states.pristineDir, tests: states.tests },
      workdir: copy.dir,
      changed: changedFilesOfDiff(m.diff),
    });
    const r = v.result;
    row = {
      bug: `${m.file}:${m.line} ${m.function}() ${m.kind}: ${m.before.slice(0, 30)} → ${m.after.slice(0, 30)}`,
      ms: performance.now() - t,
      selected: r.tests?.selected.length ?? 0,
      ranTests: v.run?.tests?.size ?? 0,
      ran: (r.tests?.selected ?? []).filter((x) => (x.run ?? "ran") === "ran").length,
      overBudget: (r.tests?.selected ?? []).filter((x) => x.run === "over-budget").length,
      stopped: (r.tests?.selected ?? []).filter((x) => x.stoppedAfterMs !== undefined).length,
      stopReason: (r.tests?.selected ?? []).find((x) => x.stoppedAfterMs !== undefined)?.reason ?? null,
      afterRegression: (r.tests?.selected ?? []).filter((x) => x.run === "after-regression").length,
      timedOut: (r.tests?.selected ?? []).filter((x) => x.run === "unpatched-too-slow").length,
      network: (r.tests?.selected ?? []).filter((x) => x.run === "needs-network").length,
      pristineRuns: r.tests?.pristineRuns ?? 0,
      status: r.status,
      // Caught by a test selected for its relation to the change (not only as one that failed before:
      // those can flake between runs on a loaded machine).
      caught:
        r.status === "regressions" &&
        r.regressions.some((id) => {
          // `id (no longer runs)`, `target (did not finish: …)` (a batch that hung) name their test too.
          const bare = id.replace(/ \((no longer runs|did not finish: .*)\)$/, "");
          const owner = suite.targets.has(bare) ? bare : suite.targetOfId(bare);
          const sel = (r.tests?.selected ?? []).find((x) => x.target === owner || x.target === id);
          return sel?.reasons.some((why) => why !== "failed before the patch") ?? false;
        }),
      regressions: r.regressions.slice(0, 3).join(", "),
      notRun: r.tests?.notRun ?? null,
    };
    if (!row.caught)
      row.notRun = `${row.notRun ?? ""} | selected: ${(r.tests?.selected ?? []).map((x) => x.target).join(" ")} | ${r.summary.slice(0, 200)}`;
  } finally {
    await copy.dispose();
  }
  rows.push(row);
  console.log(
    `${row.caught ? "caught" : "MISSED"}  ${s(row.ms).padStart(7)}  ${String(row.selected).padStart(3)} selected ${String(row.ran).padStart(3)} ran ${String(row.overBudget).padStart(3)} over budget (${row.stopped} stopped) ${String(row.afterRegression).padStart(3)} after regression ${row.timedOut} timed out before the patch ${row.network} need the network ${String(row.ranTests).padStart(5)} tests  unpatched runs ${row.pristineRuns}  ${row.bug}`,
  );
  console.log(`        ${row.caught ? `regressions: ${row.regressions}` : row.notRun}`);
  if (row.stopped > 0) console.log(`        ${row.stopped} stopped at the budget: ${row.stopReason}`);
}

// The same candidates again: the job's unpatched results exist, only the candidate's tests run.
const again: number[] = [];
/**
 * Unpatched runs the repeats still needed: none for tests that ran the first time, but a test the budget
 * left out then may fit now that the job has measured the others.
 */
let againPristineRuns = 0;
for (const m of mutants.slice(0, Math.min(4, mutants.length))) {
  t = performance.now();
  const copy = await states.patched(m.diff);
  try {
    const v = await validateCandidate({
      sandbox,
      config,
      pristine: { dir: states.pristineDir, tests: states.tests },
      workdir: copy.dir,
      changed: changedFilesOfDiff(m.diff),
    });
    againPristineRuns += v.result.tests?.pristineRuns ?? 0;
  } finally {
    await copy.dispose();
  }
  again.push(performance.now() - t);
}

// The whole suite's time, estimated from a random sample of test modules run the same way.
let seed = SEED * 7919 + 17;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pool = [...modules];
const sample: string[] = [];
while (sample.length < Math.min(SAMPLE, pool.length))
  sample.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]!);
const perModule: { module: string; ms: number; tests: number }[] = [];
for (const mod of sample) {
  const copy = await states.pristine();
  t = performance.now();
  const cmd = targetedCommand(config, [mod]);
  if ("reason" in cmd) throw new Error(cmd.reason);
  const run = await runTestSuite(sandbox, copy.dir, config, undefined, { targeted: cmd });
  perModule.push({ module: mod, ms: performance.now() - t, tests: run?.tests?.size ?? 0 });
  await copy.dispose();
}
const sampleMs = perModule.reduce((a, b) => a + b.ms, 0);
const sampleTests = perModule.reduce((a, b) => a + b.tests, 0);
const fullEstimate = (sampleMs / perModule.length) * modules.length;
const testsEstimate = Math.round((sampleTests / perModule.length) * modules.length);

await states.dispose();
rmSync(scratch, { recursive: true, force: true });

const caught = rows.filter((r) => r.caught).length;
const times = rows.map((r) => r.ms);
console.log("");
console.log(
  `Planted bugs: ${rows.length} (seed ${SEED}); caught by targeted validation: ${caught}/${rows.length}`,
);
console.log(
  `Validation time per candidate (targeted, first time its tests run, unpatched run included): median ${s(median(times))}, max ${s(Math.max(...times))}, mean ${s(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length))}; under 60 s: ${times.filter((x) => x < 60_000).length}/${times.length}`,
);
const sum = (f: (r: Row) => number) => rows.reduce((a, r) => a + f(r), 0);
console.log(
  `Related test modules: ${sum((r) => r.selected)} selected, ${sum((r) => r.ran)} ran, ${sum((r) => r.overBudget)} left out over the ${s(config.validation.relatedBudgetMs)} budget (in ${rows.filter((r) => r.overBudget > 0).length} candidates; ${sum((r) => r.stopped)} of them in batches stopped at the budget, in ${rows.filter((r) => r.stopped > 0).length} candidates), ${sum((r) => r.afterRegression)} left out after a regression was shown, ${sum((r) => r.timedOut)} could not be judged (timed out before the patch), ${sum((r) => r.network)} need the network`,
);
console.log(
  `Same candidates again (the job's unpatched results reused): median ${s(median(again))}, max ${s(Math.max(0, ...again))}; ` +
    `unpatched runs they needed: ${againPristineRuns} (related tests left out the first time, over the budget or after a regression, can come in another order once the job has measured the others)`,
);
console.log(
  `Whole suite, estimated from ${perModule.length} random test modules of ${modules.length} (${s(sampleMs)} for ${sampleTests} tests): ${s(fullEstimate)} (${(fullEstimate / 60_000).toFixed(1)} min, about ${testsEstimate} tests) per run; a candidate validated on the whole suite needs that after the patch, plus once per job before it`,
);
console.log(
  `Sampled modules: ${perModule.map((p) => `${p.module.replace(/^test\./, "")} ${s(p.ms)}`).join(", ")}`,
);
console.log(
  `Sandbox runs on the unpatched tree for the whole job: ${states.tests.runCount} (each selected test once)`,
);
console.log(
  `Load average at the end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
