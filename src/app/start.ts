import { run } from "probot";
import { checkModelAtStart } from "../model/endpoint-check.ts";
import { createAutoFixApp } from "./app.ts";
import { createCliPipeline } from "./cli-pipeline.ts";
import { createJobQueue } from "./queue-factory.ts";
import { readSettings } from "./settings.ts";

/**
 * `npm start`: without APP_ID/PRIVATE_KEY Probot serves its setup page, which registers the app from
 * `app.yml`; with them it serves webhooks (GHE_HOST/GHE_PROTOCOL select a GitHub Enterprise server).
 */
const settings = readSettings(process.env);
for (const w of settings.warnings) console.warn(`auto-fix: warning: ${w}`);
// The model is checked once at start (settings, price, one GET /models): what would make every run fail
// is said now, not at the first run.
void checkModelAtStart(process.env, process.cwd(), settings.maxCostUsdPerRun).then((r) => {
  for (const n of r.notes) console.warn(`auto-fix: warning: ${n}`);
  for (const p of r.problems) console.error(`auto-fix: runs will fail: ${p}`);
});
const { queue, ledger, limits, runsJobsInProcess, registry, close } = createJobQueue(process.env);
let stopping = false;
const timers = new AbortController();
const server = await run(
  createAutoFixApp({
    queue,
    ledger,
    limits,
    settings,
    pipeline: createCliPipeline({ env: process.env }),
    model: process.env.AUTO_FIX_MODEL ?? "default",
    // With REDIS_URL the server only enqueues; `auto-fix worker` processes run the jobs.
    startWorkers: runsJobsInProcess,
    ops: { registry, isStopping: () => stopping },
    signal: timers.signal,
  }),
);
const graceMs = 1000 * (Number(process.env.AUTO_FIX_SHUTDOWN_GRACE_SECONDS) || 30);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    // No new webhooks; running jobs finish their stage or go back to the queue at their checkpoint.
    stopping = true;
    timers.abort();
    await server.stop();
    await queue.stop(graceMs);
    await close();
    process.exit(0);
  });
}
