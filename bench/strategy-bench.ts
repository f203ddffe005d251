/**
 * Strategy benchmark: `npm run bench:strategy [-- --runs N] [--bugs a,b] [--stages no|yes|both]` (`--help`).
 * Runs the whole pipeline (index → search → patch strategy → selection) on the tree-search fixture bugs
 * with the linear writer and with the tree search, first without and then with the reproduce, review
 * and validation stages ("+ stages"), the scripted model playing every agent over HTTP and candidates
 * checked in the real sandbox (bubblewrap). Prints, per bug and strategy: whether the chosen
 * patch really passes the reproducer and tests, model calls (all stages and the patch stage alone),
 * tokens, and wall time (median of N runs, the strategies alternating run by run); then the tree search's
 * wall time over the linear writer's wherever both made the same number of model calls.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createReproduceReviewHooks } from "../src/pipeline/stage-hooks.ts";
import { createSandbox } from "../src/sandbox/index.ts";
import { configuredStrategy } from "../src/strategies/configured.ts";
import { bugs } from "../test/tree-search/support/bugs.ts";
import {
  patchFixes,
  runStrategy,
  type StrategyRun,
  stageAgents,
} from "../test/tree-search/support/run-strategy.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    bugs: { type: "string" },
    stages: { type: "string", default: "both" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(`npm run bench:strategy [-- --runs N] [--bugs slug,median,offset] [--stages no|yes|both]

Runs the whole pipeline on the tree-search fixture bugs with the linear writer and with the tree search
(scripted model, real bubblewrap), N runs per cell, the two strategies alternating run by run so that a
change in the machine's load falls on both. Prints per bug and strategy: status, whether the chosen patch
really passes, model calls, tokens, median wall time; then, for every bug where both strategies made the
same number of model calls, the tree search's wall time over the linear writer's (median of the run-by-run
ratios, and the ratio of the summed medians). Without the stages the linear writer runs nothing in the
sandbox while the tree search checks its candidates there, so that ratio is shown but is not like for like.`);
  process.exit(0);
}
const runs = Math.max(1, Number(values.runs) || 3);
const only = values.bugs ? values.bugs.split(",").map((b) => b.trim()) : ["slug", "median", "offset"];
const stageModes = values.stages === "no" ? [false] : values.stages === "yes" ? [true] : [false, true];
const sandbox = await createSandbox("bwrap");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const patchStage = (r: StrategyRun) =>
  Object.entries(r.byStage)
    .filter(([stage]) => stage === "patch" || stage.startsWith("tree-"))
    .reduce((n, [, u]) => n + u.calls, 0);

const rows: string[][] = [];
const ratios: string[][] = [];
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadBefore = load();
for (const stages of stageModes) {
  for (const name of only) {
    const times = { linear: [] as number[], tree: [] as number[] };
    const last: Partial<Record<"linear" | "tree", StrategyRun>> = {};
    const calls = { linear: new Set<number>(), tree: new Set<number>() };
    for (let i = 0; i < runs; i++) {
      for (const strategy of ["linear", "tree"] as const) {
        const bug = bugs().find((b) => b.name === name);
        if (!bug) throw new Error(`no fixture bug named ${name}`);
        const hooks = stages ? createReproduceReviewHooks() : null;
        const r = await runStrategy(bug, strategy, {
          sandbox,
          ...(hooks ? { hooks, others: stageAgents(bug), use: configuredStrategy({ name: strategy }) } : {}),
        });
        await hooks?.dispose();
        times[strategy].push(r.ms);
        calls[strategy].add(r.calls);
        const prev = last[strategy];
        if (prev) rmSync(prev.out, { recursive: true, force: true });
        last[strategy] = r;
      }
    }
    for (const strategy of ["linear", "tree"] as const) {
      const r = last[strategy]!;
      const bug = bugs().find((b) => b.name === name)!;
      const fixes = await patchFixes(bug, r.result.patch, sandbox);
      const t = r.treeFile;
      rows.push([
        name,
        stages ? `${strategy} + stages` : strategy,
        r.result.status,
        fixes ? "yes" : "no",
        String(r.calls),
        String(patchStage(r)),
        String(r.tokens),
        (median(times[strategy]) / 1000).toFixed(2),
        t
          ? `${t.stop}, ${t.stats.rollouts} rollouts, ${t.nodes.length - 1} nodes, ${t.stats.checks} checked`
          : "—",
      ]);
      rmSync(r.out, { recursive: true, force: true });
    }
    const same =
      calls.linear.size === 1 && calls.tree.size === 1 && [...calls.linear][0] === [...calls.tree][0];
    if (same) {
      const paired = times.tree.map((t, i) => t / times.linear[i]!);
      ratios.push([
        name,
        stages ? "yes" : "no (linear runs nothing in the sandbox)",
        String([...calls.tree][0]),
        String(runs),
        `${(median(times.linear) / 1000).toFixed(2)} s`,
        `${(median(times.tree) / 1000).toFixed(2)} s`,
        `${median(paired).toFixed(2)}× (${Math.min(...paired).toFixed(2)}–${Math.max(...paired).toFixed(2)})`,
      ]);
    }
  }
}

const header = [
  "bug",
  "strategy",
  "status",
  "reproducer + tests pass",
  "model calls",
  "patch-stage calls",
  "tokens",
  "wall s (median)",
  "tree",
];
console.log(`| ${header.join(" | ")} |`);
console.log(`|${header.map(() => "---").join("|")}|`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
console.log(
  `\n${runs} run(s) per cell; node ${process.version}; sandbox ${sandbox.kind}; load average ${loadBefore} before, ${load()} after`,
);
if (ratios.length > 0) {
  const h = [
    "bug",
    "stages",
    "model calls (both)",
    "runs",
    "linear (median)",
    "tree (median)",
    "tree / linear, run by run: median (min–max)",
  ];
  console.log(`\nSame number of model calls:\n\n| ${h.join(" | ")} |`);
  console.log(`|${h.map(() => "---").join("|")}|`);
  for (const r of ratios) console.log(`| ${r.join(" | ")} |`);
}
