/**
 * `npm run bench:repo [-- --candidates 3 --js-runs 3 --skip-e2e]`: speed on a generated repository.
 *
 * Python: a project of 800+ files (modules importing each other) with about twenty pytest files of mixed
 * cost: quick ones, two slow ones, one that needs the network, one that hangs until it is stopped. A bug
 * is planted in `shopkit/pricing/discounts.py`. Printed: the validation time of each candidate patch
 * (a patched copy of the prepared tree, its related tests against the unpatched results), whether a
 * selected test file that needs no network was left without a verdict because of another file, and the
 * wall time of one `auto-fix fix` run on it (the real CLI, the bubblewrap sandbox, a scripted model on
 * 127.0.0.1 that answers correctly at once) with its stages.
 *
 * JavaScript: a library with a `node_modules` of about 1,000 files whose tests load it through
 * `require('../')`. Printed: the time to make the job's private copy of it (dependencies shared, and as
 * before, copied), and whether the tests related to a change in the library file are found.
 *
 * Needs root (sized tmpfs and overlay copies) and bubblewrap, as the sandboxed stages do.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { main } from "../src/cli/main.ts";
import { loadRepoConfig } from "../src/config/index.ts";
import {
  createSandbox,
  forgetShared,
  freezeTree,
  makeWorkCopy,
  type SandboxPort,
  shareTrees,
} from "../src/sandbox/index.ts";
import { createWorkspace } from "../src/workspace/workspace.ts";
import {
  changedFilesOfDiff,
  listTree,
  suiteFor,
  TreeStates,
  validateCandidate,
} from "../src/validate/index.ts";
import { agentScript, patchAnswer, searchSays } from "../test/support/agent-script.ts";
import { startScriptedModel } from "../test/support/scripted-model.ts";
import { generateJsRepo, generatePythonRepo } from "./support/gen-repo.ts";
import { gitDiffOf, median, s } from "./support/repo-bench-util.ts";

const { values } = parseArgs({
  options: {
    candidates: { type: "string", default: "3" },
    "js-runs": { type: "string", default: "3" },
    "skip-e2e": { type: "boolean", default: false },
    "skip-validate": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
    // Leave out the test file that hangs: what validation costs once a hanging file costs nothing.
    "without-hang": { type: "boolean", default: false },
  },
});
const CANDIDATES = Number(values.candidates);
const JS_RUNS = Number(values["js-runs"]);

const scratch = mkdtempSync(join(tmpdir(), "af-repo-bench-"));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
console.log(`load average at the start: ${load()}`);

// ---------------------------------------------------------------------------------------------------
// Python: validation per candidate

const repo = join(scratch, "shopkit");
const py = generatePythonRepo(repo, 1, { withoutHang: values["without-hang"] });
const NETWORK = "tests/test_rates_online.py";
const HANGS = "tests/test_discount_stress.py";
console.log(
  `\n== Python: ${py.files} files, ${py.tests} pytest files (two slow, ${NETWORK} needs the network, ${values["without-hang"] ? "none that hangs" : `${HANGS} hangs until stopped`})`,
);
const fixes = [
  py.bug.patched,
  "    return round(amount * (1 - percent / 100), 2)",
  "    return round(amount - (amount * percent) / 100.0, 2)",
].slice(0, Math.max(1, CANDIDATES));
const diffs = fixes.map((line) => gitDiffOf(repo, py.bug.file, py.bug.original, line));

const config = loadRepoConfig(repo);
console.log(
  `test command: ${config.test.command}; runner ${config.validation.runner}; related budget ${s(config.validation.relatedBudgetMs)}`,
);
const realSandbox = await createSandbox("bwrap");
/** Every sandboxed run: its command and wall time. */
const runs: { command: string; ms: number }[] = [];
const sandbox: SandboxPort = {
  kind: realSandbox.kind,
  capabilities: () => realSandbox.capabilities(),
  adoptTree: async (dir: string) => realSandbox.adoptTree?.(dir),
  run: async (req: Parameters<SandboxPort["run"]>[0]) => {
    const t0 = performance.now();
    try {
      return await realSandbox.run(req);
    } finally {
      runs.push({ command: String(req.command).slice(0, 160), ms: performance.now() - t0 });
    }
  },
};
let t = performance.now();
const times: number[] = [];
const orphans: string[] = [];
if (!values["skip-validate"]) {
  const states = await TreeStates.prepare({ sandbox, config, source: repo });
  console.log(`prepared tree (copy, freeze, give to the sandbox uid): ${s(performance.now() - t)}`);
  try {
    for (const [i, diff] of diffs.entries()) {
      t = performance.now();
      const before = runs.length;
      const copy = await states.patched(diff);
      try {
        const v = await validateCandidate({
          sandbox,
          config,
          pristine: { dir: states.pristineDir, tests: states.tests },
          workdir: copy.dir,
          changed: changedFilesOfDiff(diff),
        });
        const ms = performance.now() - t;
        times.push(ms);
        const sel = v.result.tests?.selected ?? [];
        // A file that needs no network and does not hang, selected but given no verdict.
        const left = sel.filter((x) => ![NETWORK, HANGS].includes(x.target) && (x.run ?? "ran") !== "ran");
        for (const x of left) orphans.push(`${x.target} (${x.run}${x.reason ? `: ${x.reason}` : ""})`);
        console.log(
          `candidate ${i + 1}: ${s(ms)}, status ${v.result.status}; ${sel.length} selected: ${sel
            .map(
              (x) =>
                `${x.target.replace(/^tests\//, "")}=${x.run ?? "ran"}${x.unpatchedMs ? `(${s(x.unpatchedMs)})` : ""}`,
            )
            .join(" ")}`,
        );
        if (v.result.tests?.notRun) console.log(`  not run: ${v.result.tests.notRun.slice(0, 300)}`);
        const mine = runs.slice(before);
        console.log(
          `  ${mine.length} sandboxed runs, ${s(mine.reduce((a, r) => a + r.ms, 0))} in all: ${mine.map((r) => s(r.ms)).join(", ")}`,
        );
        if (values.verbose) for (const r of mine) console.log(`    ${s(r.ms).padStart(7)} ${r.command}`);
      } finally {
        await copy.dispose();
      }
    }
  } finally {
    await states.dispose();
  }
  console.log(
    `validation per candidate: median ${s(median(times))} (target < 15 s), all ${times.map(s).join(", ")} (the first includes the job's unpatched runs)`,
  );
  console.log(
    `offline files left without a verdict because of another file: ${orphans.length === 0 ? "none" : orphans.join("; ")}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// Python: one `auto-fix fix` run end to end

if (!values["skip-e2e"]) {
  const issueFile = join(scratch, "issue.md");
  writeFileSync(
    issueFile,
    "# apply_discount takes ten times the discount\n\napply_discount(200.0, 10) returns 0.0 instead of 180.0: the percent is divided by 10, not 100.\n",
  );
  const script = agentScript({
    search: [
      searchSays("Found it.", {
        bug_locations: [
          { file: py.bug.file, method: py.bug.method, intended_behavior: "Divide the percent by 100." },
        ],
      }),
    ],
    patch: [patchAnswer(py.bug.file, py.bug.original, py.bug.patched)],
  });
  const server = await startScriptedModel(script);
  const out = join(scratch, "run");
  const err: string[] = [];
  const outText: string[] = [];
  /** When each progress line came, from the run's start: what precedes the first stage, what follows the last. */
  const progress: [number, string][] = [];
  const cliIo = {
    stdout: (x: string) => outText.push(x),
    stderr: (x: string) => {
      err.push(x);
      for (const line of x.split("\n")) if (line.trim()) progress.push([performance.now() - t, line.trim()]);
    },
    env: {
      ...process.env,
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: "bench",
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_CACHE_DIR: join(scratch, "cache"),
    },
    cwd: scratch,
    isTTY: false,
  };
  t = performance.now();
  const code = await main(["fix", "--repo", repo, "--issue", issueFile, "--out", out, "--json"], cliIo);
  const wall = performance.now() - t;
  await server.close();
  let status = `exit ${code}`;
  try {
    const result = JSON.parse(outText.join(""));
    status += `, status ${result.status}, validation passed ${result.validation?.passed}, shows fix ${result.validation?.shows_fix}`;
  } catch {
    status += `: ${err.join("").slice(-400)}`;
  }
  console.log(`\n== auto-fix fix end to end: ${s(wall)} wall (target < 25 s); ${status}`);
  try {
    const timings = JSON.parse(readFileSync(join(out, "timings.json"), "utf8"));
    for (const x of timings.timings) console.log(`  ${String(x.stage).padEnd(12)} ${s(x.ms)}`);
    const staged = timings.timings.reduce((a: number, x: { ms: number }) => a + x.ms, 0);
    console.log(
      `  ${"outside".padEnd(12)} ${s(wall - staged)} (start, configuration, sandbox check, report)`,
    );
    const first = progress[0];
    const last = progress.at(-1);
    if (first) console.log(`  first progress line at ${s(first[0])}: ${first[1].slice(0, 80)}`);
    if (last)
      console.log(`  last progress line at ${s(last[0])} (run ends at ${s(wall)}): ${last[1].slice(0, 80)}`);
    if (values.verbose)
      for (const [ms, line] of progress) console.log(`    ${s(ms).padStart(7)} ${line.slice(0, 100)}`);
  } catch {
    console.log("  (no timings.json)");
  }
}

// ---------------------------------------------------------------------------------------------------
// JavaScript: the private copy with a real node_modules, and the related tests of the library file

const js = join(scratch, "sumlib");
const jsRepo = generateJsRepo(js);
console.log(`\n== JavaScript: ${jsRepo.files} files of its own, ${jsRepo.dependencyFiles} in node_modules`);
// As a fix run makes them: the pipeline's work tree of the user's checkout, the job's prepared tree (a
// copy of it, frozen and given to the sandbox's uid), and one candidate's copy of that.
for (const share of [true, false]) {
  const rows: { ws: number; base: number; candidate: number; total: number }[] = [];
  for (let i = 0; i < JS_RUNS; i++) {
    const t0 = performance.now();
    const ws = await createWorkspace(js, [], { withDependencies: share ? "shared" : true });
    if (share) shareTrees(ws.root, ws.dependencies);
    const t1 = performance.now();
    const base = await makeWorkCopy(ws.root, scratch, { shareDependencies: share });
    if (await freezeTree(base.dir)) await sandbox.adoptTree?.(base.dir);
    const t2 = performance.now();
    const candidate = await makeWorkCopy(base.dir, scratch);
    const t3 = performance.now();
    rows.push({ ws: t1 - t0, base: t2 - t1, candidate: t3 - t2, total: t3 - t0 });
    await candidate.dispose();
    await base.dispose();
    forgetShared(ws.root);
    await ws.dispose();
  }
  const m = (k: keyof (typeof rows)[number]) => `${median(rows.map((r) => r[k])).toFixed(0)} ms`;
  console.log(
    `private copies, node_modules ${share ? "shared read-only" : "copied (as before)"}, median of ${JS_RUNS}: work tree ${m("ws")}, prepared tree ${m("base")}, candidate ${m("candidate")}; in all ${m("total")} (target < 1 s)`,
  );
}
const jsConfig = loadRepoConfig(js);
const jsSuite = suiteFor(listTree(js), jsConfig.validation.runner ?? "node-test");
console.log(`test command: ${jsConfig.test.command}`);
const related = [...jsSuite.related([jsRepo.library]).keys()];
console.log(
  `tests related to a change in ${jsRepo.library} (runner ${jsConfig.validation.runner}): ${related.length > 0 ? related.join(", ") : "NONE FOUND"}`,
);
const jsStates = await TreeStates.prepare({ sandbox, config: jsConfig, source: js });
try {
  const copy = await jsStates.pristine();
  const r = await sandbox.run({
    workdir: copy.dir,
    command: jsConfig.test.command ?? "node --test",
    timeoutMs: 120_000,
  });
  const count = (w: string) => r.stdout.match(new RegExp(`ℹ ${w} (\\d+)`))?.[1] ?? "?";
  console.log(
    `node --test in a copy (modules loaded from the shared node_modules): exit ${r.exitCode}, ${count("pass")} passed, ${count("fail")} failed (total.test.js fails by design: the library's planted bug)`,
  );
} finally {
  await jsStates.dispose();
}

console.log(`\nload average at the end: ${load()}`);
if (values.keep) console.log(`kept: ${scratch}`);
else rmSync(scratch, { recursive: true, force: true });
