/**
 * Sandbox figures: start-up overhead per command (median of N runs of `true` in the bubblewrap sandbox
 * against spawning `true` directly), and the wall time the reproduce-review stage adds to one run on the
 * Python fixture repository with an instant scripted model (so the figure is the sandbox and tree work,
 * not model latency).
 *
 *   npm run bench:sandbox [-- --runs 100]
 */
import { execFile } from "node:child_process";
import { parseArgs } from "node:util";
import { loadRepoConfig } from "../src/config/index.ts";
import { reproduceIssue } from "../src/reproduce/index.ts";
import { runReviewLoop } from "../src/review/index.ts";
import { createSandbox, makeWorkCopy } from "../src/sandbox/index.ts";
import { TreeStates } from "../src/validate/index.ts";
import { startScriptedModel } from "../test/support/scripted-model.ts";
import { chatModelFor, diffFor, fence, promptKind, verdict } from "../test/review/helpers.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "100" } } });
const runs = Number(values.runs);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

const direct = (): Promise<void> =>
  new Promise((resolve, reject) => execFile("true", (err) => (err ? reject(err) : resolve())));

const sandbox = await createSandbox("bwrap");
const caps = await sandbox.capabilities();
const fixture = new URL("../test/fixtures/review-repos/py-shop/", import.meta.url).pathname;
const work = await makeWorkCopy(fixture);
// The patch is computed by host-side git in a copy no sandboxed command ran in (git rightly refuses a
// repository owned by the sandbox's uid).
const diffCopy = await makeWorkCopy(fixture);
const diff = diffFor(diffCopy.dir, "shop/pricing.py", "price * percent\n", "price * percent / 100\n");
await diffCopy.dispose();

await direct();
await sandbox.run({ workdir: work.dir, command: ["true"] });
const directMs: number[] = [];
const boxedMs: number[] = [];
for (let i = 0; i < runs; i++) {
  let t = performance.now();
  await direct();
  directMs.push(performance.now() - t);
  t = performance.now();
  const r = await sandbox.run({ workdir: work.dir, command: ["true"] });
  boxedMs.push(performance.now() - t);
  if (r.exitCode !== 0) throw new Error(`sandboxed true failed: ${r.stderr}`);
}
console.log(
  `sandbox: ${caps.kind} (memory: ${caps.memory}, processes: ${caps.processes}, disk: ${caps.disk}, network: ${caps.networkAccess})`,
);
console.log(`runs of \`true\`: ${runs}`);
console.log(`direct spawn     median ${fmt(median(directMs))}  p90 ${fmt(pct(directMs, 0.9))}`);
console.log(`bwrap sandbox    median ${fmt(median(boxedMs))}  p90 ${fmt(pct(boxedMs, 0.9))}`);
console.log(`overhead/command median ${fmt(median(boxedMs) - median(directMs))}`);

// A run with network (setup steps): slirp4netns and the firewall set up per run.
if (caps.networkAccess === "slirp4netns") {
  const netMs: number[] = [];
  const netRuns = Math.min(runs, 20);
  for (let i = 0; i < netRuns; i++) {
    const t = performance.now();
    const r = await sandbox.run({ workdir: work.dir, command: ["true"], network: true });
    netMs.push(performance.now() - t);
    if (r.exitCode !== 0) throw new Error(`sandboxed true with network failed: ${r.stderr}`);
  }
  console.log(
    `with network     median ${fmt(median(netMs))}  p90 ${fmt(pct(netMs, 0.9))}  (${netRuns} runs)`,
  );
} else {
  console.log(`with network     refused here (${caps.notes.join("; ")})`);
}

// The reproduce-review stage on one run.
const model = await startScriptedModel((req) => {
  const kind = promptKind(req);
  if (kind === "has-example") return '{"has-reproducible-example": true}';
  if (kind === "repro-write")
    return fence(
      "python",
      "from shop.pricing import apply_discount\nr = apply_discount(100, 10)\nassert r == 90, f'expected 90, got {r}'\n",
    );
  return verdict("yes", "yes");
});
const chat = chatModelFor(model.baseURL);
const config = loadRepoConfig(work.dir);
const stageMs: Record<string, number[]> = { prepare: [], reproduce: [], review: [], total: [] };
const reps = 5;
for (let i = 0; i < reps; i++) {
  const t0 = performance.now();
  const states = await TreeStates.prepare({ sandbox, config, source: work.dir });
  const t1 = performance.now();
  const pristine = await states.pristine();
  const repro = await reproduceIssue({ model: chat, sandbox, config }, { issue: "x", workdir: pristine.dir });
  await pristine.dispose();
  const t2 = performance.now();
  const outcome = await runReviewLoop(
    { model: chat, sandbox, config, states, issue: "x", rewritePatch: async () => null },
    { id: "p", diff, applicable: true, status: "APPLICABLE_PATCH" },
    repro,
  );
  const t3 = performance.now();
  await states.dispose();
  if (!outcome.approved) throw new Error(`review did not accept: ${outcome.summary}`);
  stageMs.prepare!.push(t1 - t0);
  stageMs.reproduce!.push(t2 - t1);
  stageMs.review!.push(t3 - t2);
  stageMs.total!.push(t3 - t0);
}
console.log(`\nreproduce-review stage on py-shop (scripted model, ${reps} runs, medians):`);
console.log(`  private base copy      ${fmt(median(stageMs.prepare!))}`);
console.log(`  reproduce (1 script)   ${fmt(median(stageMs.reproduce!))}`);
console.log(`  review loop (1 round)  ${fmt(median(stageMs.review!))}`);
console.log(`  added per run          ${fmt(median(stageMs.total!))}`);
await model.close();
await work.dispose();
