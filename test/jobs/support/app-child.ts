/**
 * The GitHub App in a process of its own, for crash tests: role "server" runs the Probot server with the
 * queue from the app's queue factory (embedded store, or Redis when REDIS_URL is set); role "worker" runs
 * `auto-fix worker`'s code. The repair pipeline is scripted: it returns a fixed patch, and can be told to
 * hold until a file exists (so the test can kill the process in the middle of a run).
 * Usage: node app-child.ts '<json options>' (settings in the environment, as in production).
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import type { Pipeline } from "../../../src/contract/app-result.ts";
import { createAppQueue } from "../../../src/app/queue.ts";
import { startAppServer } from "../../../src/app/server.ts";
import { readSettings } from "../../../src/issue-run/settings.ts";
import { runAppWorker } from "../../../src/app/worker.ts";
import { signalled } from "../../../src/jobs/worker-process.ts";
import { FIX_PATCH } from "../../app/harness.ts";
import { fakeResult } from "../../support/fix-result.ts";

interface Options {
  role: "server" | "worker";
  logFile: string;
  /** The pipeline holds until this file exists. */
  holdFile?: string;
  /** The pipeline of each run waits until runs with the same tag have started in this many processes. */
  barrier?: number;
  tag?: string;
  port?: number;
  /** Run no jobs in the server even on the embedded store (the acknowledgement benchmark). */
  noWorkers?: boolean;
}

const opts = JSON.parse(process.argv[2] ?? "{}") as Options;
opts.logFile ||= "/dev/null";
const record = (e: Record<string, unknown>): void =>
  appendFileSync(opts.logFile, `${JSON.stringify({ ...e, pid: process.pid, t: Date.now() })}\n`);

async function until(check: () => boolean, signal: AbortSignal): Promise<void> {
  while (!check()) {
    if (signal.aborted) throw signal.reason;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pipeline: Pipeline = async (req) => {
  const issue = readFileSync(req.issueFile, "utf8").split("\n")[0];
  record({ event: "pipeline", issue, tag: opts.tag ?? null });
  if (opts.barrier) {
    const pids = (): number =>
      new Set(
        readFileSync(opts.logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { event: string; tag?: string; pid: number })
          .filter((e) => e.event === "pipeline" && e.tag === (opts.tag ?? null))
          .map((e) => e.pid),
      ).size;
    await until(() => pids() >= (opts.barrier ?? 0), req.signal);
  }
  const hold = opts.holdFile;
  if (hold && !existsSync(hold)) {
    record({ event: "holding", issue });
    await until(() => existsSync(hold), req.signal);
  }
  req.onStage("patched");
  // A run a review started answers each of its comments.
  const review = req.maintainer?.review;
  return fakeResult({
    status: "patched",
    patch: FIX_PATCH,
    summary: `Summary of the run (${issue ?? ""}).`,
    usage: { prompt_tokens: 1000, completion_tokens: 200, cost_usd: 0.01 },
    ...(review
      ? {
          maintainer: {
            review: { id: review.id, points: review.points.length },
            points: review.points.map((p) => ({
              id: p.id,
              status: "addressed" as const,
              reply: `Answer to ${p.id}.`,
            })),
          },
        }
      : {}),
  });
};

if (opts.role === "worker") {
  await runAppWorker({
    env: process.env,
    pipeline,
    graceMs: 2000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
} else {
  const { queue, ledger, limits, registry, close } = createAppQueue(process.env);
  const app = await startAppServer({
    appId: Number(process.env.APP_ID),
    privateKey: process.env.PRIVATE_KEY ?? "",
    secret: process.env.WEBHOOK_SECRET ?? "",
    env: process.env,
    ...(opts.port !== undefined && { port: opts.port }),
    app: {
      queue,
      ledger,
      limits,
      settings: readSettings(process.env),
      pipeline,
      model: "scripted",
      startWorkers: queue.kind !== "redis" && !opts.noWorkers,
      ops: { registry },
    },
  });
  process.stdout.write(`listening ${app.url}\n`);
  await signalled();
  await app.stop();
  await close();
}
record({ event: "exit" });
process.exit(0);
