/**
 * Runs a job queue's workers until SIGTERM/SIGINT: then it stops taking jobs, lets running stages finish
 * (or checkpoint) within the grace period, requeues what is left and exits, all within the grace.
 * Shared by `auto-fix worker`.
 */
import type { Server } from "node:http";
import { registerQueueGauge } from "./metrics.ts";
import { stageWaitMs } from "./runner.ts";
import { serverPort, startOpsServer } from "../ops/http.ts";
import { MetricsRegistry } from "../ops/metrics.ts";
import type { Readiness } from "../ops/readiness.ts";
import type { JobHandler, JobQueue, JobStartOptions } from "./types.ts";

export interface WorkerProcessOptions {
  queue: JobQueue;
  handler: JobHandler;
  cleanup?: JobStartOptions["cleanup"];
  concurrency: number;
  graceMs: number;
  /** Serve /health and /metrics on this port (loopback unless `host` says otherwise). */
  port?: number;
  host?: string;
  registry?: MetricsRegistry;
  log: (line: string) => void;
  /** Called with the port /health and /metrics listen on. */
  onListening?: (port: number) => void;
  /** Resolves when the process should shut down (default: the first SIGTERM or SIGINT). */
  shutdown?: Promise<string>;
  /** Model and sandbox checks for /health: a worker without either cannot run a job. */
  readiness?: Readiness;
}

export function signalled(): Promise<string> {
  return new Promise((resolve) => {
    const on = (sig: string): void => {
      process.off("SIGTERM", on);
      process.off("SIGINT", on);
      resolve(sig);
    };
    process.on("SIGTERM", on);
    process.on("SIGINT", on);
  });
}

/** Starts the workers and resolves once they have shut down cleanly. */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<void> {
  const { queue, log } = options;
  const registry = options.registry ?? new MetricsRegistry();
  registerQueueGauge(registry, queue);
  let stopping = false;
  let server: Server | null = null;
  const shutdown = options.shutdown ?? signalled();
  if (options.port !== undefined) {
    server = await startOpsServer(
      {
        registry,
        queue,
        role: "worker",
        startedAt: Date.now(),
        isStopping: () => stopping,
        runsJobs: true,
        ...(options.readiness ? { readiness: options.readiness } : {}),
      },
      options.port,
      options.host,
    );
    options.onListening?.(serverPort(server));
  }
  queue.start(options.handler, {
    concurrency: options.concurrency,
    ...(options.cleanup && { cleanup: options.cleanup }),
  });
  log(`worker started (${queue.kind ?? "queue"}, concurrency ${options.concurrency})`);
  const sig = await shutdown;
  const began = Date.now();
  stopping = true;
  let clean = false;
  if (!options.shutdown) {
    // A real signal: whatever still holds the process (a call that ignored its abort) cannot keep it
    // past the grace period.
    setTimeout(() => {
      log(
        clean
          ? "exiting: the grace period is over"
          : "the grace period is over before the workers stopped; exiting",
      );
      process.exit(clean ? 0 : 1);
    }, options.graceMs).unref();
  }
  const wait = stageWaitMs(options.graceMs);
  log(
    `${sig}: no new jobs; running ones have ${Math.round(wait / 1000)} s to finish their stage, then go back to the queue`,
  );
  await queue.stop(wait);
  await queue.close?.();
  if (server) {
    const closing = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closing;
  }
  clean = true;
  log(`worker stopped after ${((Date.now() - began) / 1000).toFixed(1)} s`);
  // Connections the worker does not own (Probot's Redis-backed rate limiter) would keep the process up
  // until the grace ends: once everything of ours is closed, it goes.
  if (!options.shutdown) setTimeout(() => process.exit(0), 250).unref();
}
