/**
 * Time from webhook delivery to acknowledgement: signed `issues.labeled` deliveries over HTTP on
 * loopback to the running Probot app (fake GitHub on 127.0.0.1 for the REST calls the handler makes).
 * Workers are off, so the figure is the webhook path alone: verify, check, store the job, answer.
 *
 *   npm run bench:ack [-- --deliveries 100]
 */
import { parseArgs } from "node:util";
import { FixResultSchema } from "../src/app/pipeline.ts";
import { OWNER, REPO, startHarness } from "../test/app/harness.ts";

const { values } = parseArgs({ options: { deliveries: { type: "string", default: "100" } } });
const n = Math.max(1, Number(values.deliveries) || 100);

const h = await startHarness({
  pipeline: async () => FixResultSchema.parse({ status: "no-patch" }),
  startWorkers: false,
  // Budgets high enough that every delivery is accepted (a refusal would post a reply instead).
  env: { AUTO_FIX_MAX_RUNS_PER_REPO_PER_DAY: "100000" },
});
const issues = Array.from({ length: n + 1 }, (_, i) =>
  h.github.addIssue(OWNER, REPO, { title: `bug ${i}`, body: "b" }),
);
// One warm-up delivery (JIT, installation token) is left out of the figures.
await h.labeled(issues[n]!.number);
const callsBefore = h.github.calls.length;
const times: number[] = [];
for (let i = 0; i < n; i++) {
  const t0 = process.hrtime.bigint();
  const status = await h.labeled(issues[i]!.number);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (status !== 200) throw new Error(`delivery ${i} answered ${status}`);
}
const queued = [...h.outcomes.values()].filter((o) => o.action === "queued").length;
const calls = h.github.calls.slice(callsBefore);
await h.close();

times.sort((a, b) => a - b);
const q = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!;
const perDelivery = new Map<string, number>();
for (const c of calls) {
  const key = `${c.method} ${c.path.replace(/\/issues\/\d+/, "/issues/{n}")}`;
  perDelivery.set(key, (perDelivery.get(key) ?? 0) + 1);
}
console.log(`deliveries: ${n} (jobs stored: ${queued - 1})`);
console.log(
  `webhook → acknowledgement (ms): median ${q(0.5).toFixed(2)}, p90 ${q(0.9).toFixed(2)}, p99 ${q(0.99).toFixed(2)}, max ${times.at(-1)!.toFixed(2)}`,
);
console.log("GitHub API calls per delivery:");
for (const [k, v] of perDelivery) console.log(`  ${(v / n).toFixed(2)} × ${k}`);
