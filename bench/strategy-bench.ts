/**
 * Strategy benchmark: `npm run bench:strategy [-- --runs N]`.
 * Runs the whole pipeline (index → search → patch strategy → selection) on the tree-search fixture bugs
 * with the linear writer and with the tree search, first without and then with the reproduce, review
 * and validation stages ("+ stages"), the scripted model playing every agent over HTTP and candidates
 * checked in the real sandbox (bubblewrap). Prints, per bug and strategy: whether the chosen
 * patch really passes the reproducer and tests, model calls (all stages and the patch stage alone),
 * tokens, and wall time (median of N runs).
 */
import { rmSync } from "node:fs";
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

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const runs = Math.max(1, Number(values.runs) || 3);
const sandbox = await createSandbox("bwrap");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const patchStage = (r: StrategyRun) =>
  Object.entries(r.byStage)
    .filter(([stage]) => stage === "patch" || stage.startsWith("tree-"))
    .reduce((n, [, u]) => n + u.calls, 0);

const rows: string[][] = [];
for (const stages of [false, true]) {
  for (const strategy of ["linear", "tree"] as const) {
    for (const name of ["slug", "median", "offset"]) {
      const times: number[] = [];
      let last: StrategyRun | null = null;
      for (let i = 0; i < runs; i++) {
        const bug = bugs().find((b) => b.name === name)!;
        const hooks = stages ? createReproduceReviewHooks() : null;
        const r = await runStrategy(bug, strategy, {
          sandbox,
          ...(hooks ? { hooks, others: stageAgents(bug), use: configuredStrategy({ name: strategy }) } : {}),
        });
        await hooks?.dispose();
        times.push(r.ms);
        if (last) rmSync(last.out, { recursive: true, force: true });
        last = r;
      }
      const r = last!;
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
        (median(times) / 1000).toFixed(2),
        t
          ? `${t.stop}, ${t.stats.rollouts} rollouts, ${t.nodes.length - 1} nodes, ${t.stats.checks} checked`
          : "—",
      ]);
      rmSync(r.out, { recursive: true, force: true });
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
console.log(`\n${runs} run(s) per cell; node ${process.version}; sandbox ${sandbox.kind}`);
