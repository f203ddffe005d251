/**
 * A worker process for the GitHub App: authenticates as the app (APP_ID, PRIVATE_KEY, GHE_HOST, as Probot
 * reads them), takes jobs from the queue `createAppQueue` picks (REDIS_URL or the embedded store) and runs
 * each with the app's job handler until SIGTERM.
 */
import { createProbot } from "probot";
import { createWorker } from "./app.ts";
import { workerDeps } from "./installation.ts";
import { AutoFixOctokit } from "./octokit.ts";
import type { Pipeline } from "../contract/app-result.ts";
import { createAppQueue } from "./queue.ts";
import { readSettings } from "../issue-run/settings.ts";
import { UserError } from "../core/errors.ts";
import { createReadiness } from "../ops/readiness.ts";
import { runWorkerProcess } from "../jobs/worker-process.ts";

export interface AppWorkerOptions {
  env: NodeJS.ProcessEnv;
  pipeline: Pipeline;
  concurrency?: number;
  graceMs: number;
  port?: number;
  host?: string;
  log: (line: string) => void;
  onListening?: (port: number) => void;
  shutdown?: Promise<string>;
}

export async function runAppWorker(options: AppWorkerOptions): Promise<void> {
  const { env } = options;
  if (!env.APP_ID || !(env.PRIVATE_KEY || env.PRIVATE_KEY_PATH)) {
    throw new UserError("a worker needs the GitHub App's APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH)");
  }
  const settings = readSettings(env);
  let probot: ReturnType<typeof createProbot>;
  try {
    probot = createProbot({ env, defaults: { Octokit: AutoFixOctokit } });
  } catch (err) {
    throw new UserError(`cannot authenticate as the GitHub App: ${(err as Error).message}`);
  }
  const { queue, ledger, limits, registry, close } = createAppQueue(env, (m, f) =>
    options.log(`${m}${f ? ` ${JSON.stringify(f)}` : ""}`),
  );
  try {
    if (queue.health) {
      const h = await queue.health();
      if (!h.ok) throw new UserError(`the job store is not reachable: ${h.detail}`);
    }
    const handler = createWorker(workerDeps(probot), {
      settings,
      ledger,
      limits,
      pipeline: options.pipeline,
      model: env.AUTO_FIX_MODEL ?? "default",
    });
    await runWorkerProcess({
      queue,
      handler,
      registry,
      concurrency: options.concurrency ?? settings.concurrency,
      graceMs: options.graceMs,
      log: options.log,
      ...(options.port !== undefined && { port: options.port }),
      ...(options.host !== undefined && { host: options.host }),
      ...(options.onListening && { onListening: options.onListening }),
      ...(options.shutdown && { shutdown: options.shutdown }),
      readiness: createReadiness(env, { maxCostUsdPerRun: settings.maxCostUsdPerRun }),
    });
  } finally {
    await close();
  }
}
