import type { ApplicationFunction, Context, Probot } from "probot";
import { createOctokitGitHub } from "../github/octokit-github.ts";
import { JobFailure } from "../jobs/errors.ts";
import type { JobHandler, JobQueue } from "../jobs/types.ts";
import { serveOps } from "../ops/http.ts";
import type { MetricsRegistry } from "../ops/metrics.ts";
import type { RunLedger } from "./budgets.ts";
import { type HandleOutcome, handleTrigger } from "./handler.ts";
import type { Pipeline } from "./pipeline.ts";
import { runJob } from "./run-job.ts";
import type { AppSettings } from "./settings.ts";
import { parseTrigger, type TriggerEvent } from "./trigger.ts";

/** What the app is built from; the queue is the single seam where the durable store plugs in. */
export interface AppOptions {
  queue: JobQueue;
  ledger: RunLedger;
  settings: AppSettings;
  pipeline: Pipeline;
  /** Model name shown in pull requests. */
  model: string;
  now?: () => number;
  /** Called with every handled delivery's outcome (logging, tests, the ack benchmark). */
  onOutcome?: (deliveryId: string, outcome: HandleOutcome) => void;
  /** Called with the promise of every reply made after a webhook was answered (tests wait on them). */
  onDeferred?: (work: Promise<void>) => void;
  /** Start the job workers in this process (default true). */
  startWorkers?: boolean;
  /** Serve `GET /health` and `GET /metrics` on the app's server. */
  ops?: { registry: MetricsRegistry; isStopping?: () => boolean };
}

async function loadRepoConfig(context: Context): Promise<unknown> {
  try {
    return await context.config("auto-fix.yml");
  } catch (error) {
    context.log.warn(
      `ignoring .github/auto-fix.yml: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}

/** The job worker: authenticates as the job's installation and runs it. */
export function createWorker(
  app: Probot,
  options: Pick<AppOptions, "pipeline" | "settings" | "model" | "now">,
): JobHandler {
  return async (job, ctx) => {
    const octokit = await app.auth(job.spec.installationId);
    const github = createOctokitGitHub(octokit, job.spec.owner, job.spec.repo);
    const log = app.log.child({
      job: job.id,
      repo: `${job.spec.owner}/${job.spec.repo}`,
      issue: job.spec.issueNumber,
    });
    const outcome = await runJob(job, ctx, {
      github,
      pipeline: options.pipeline,
      settings: options.settings,
      model: options.model,
      now: options.now ?? Date.now,
      log: { info: (m) => log.info(m), warn: (m) => log.warn(m) },
    });
    log.info(`run finished: ${JSON.stringify(outcome)}`);
    // The issue already says what went wrong; the queue records the job as failed, with a reason.
    if (outcome.status === "failed") throw new JobFailure("run-failed", outcome.reason);
  };
}

/**
 * The Probot app: the webhook handler checks, acknowledges and enqueues; the workers run the jobs.
 * Every delivery builds its own dependencies from its context.
 */
export function createAutoFixApp(options: AppOptions): ApplicationFunction {
  return (app: Probot, fnOptions) => {
    const ops = options.ops;
    if (ops) {
      const deps = { ...ops, queue: options.queue, role: "app", startedAt: Date.now() };
      fnOptions?.addHandler((req, res) => serveOps(deps, req, res));
    }
    // Replies made after the webhook is answered run one at a time, in arrival order (so that two quick
    // deliveries from the same person see each other's reply).
    let replies: Promise<void> = Promise.resolve();
    const handle = async (
      context: Context<"issues.labeled" | "issue_comment.created">,
      kind: TriggerEvent["kind"],
    ) => {
      const event = parseTrigger(context.id, kind, context.payload);
      let outcome: HandleOutcome;
      if (!event) {
        outcome = { action: "ignored", reason: "payload lacks the fields a run needs" };
      } else {
        outcome = await handleTrigger(event, {
          github: createOctokitGitHub(context.octokit, event.owner, event.repo),
          queue: options.queue,
          ledger: options.ledger,
          settings: options.settings,
          loadRepoConfig: () => loadRepoConfig(context),
          now: options.now ?? Date.now,
          defer: (work) => {
            replies = replies.then(work).then(
              () => {},
              (error: unknown) => {
                context.log.warn(
                  `auto-fix reply failed: ${error instanceof Error ? error.message : String(error)}`,
                );
              },
            );
            options.onDeferred?.(replies);
          },
        });
      }
      context.log.info(`auto-fix ${context.name}: ${JSON.stringify(outcome)}`);
      options.onOutcome?.(context.id, outcome);
    };
    app.on("issues.labeled", (context) => handle(context, "labeled"));
    app.on("issue_comment.created", (context) => handle(context, "comment"));
    if (options.startWorkers !== false) {
      options.queue.start(createWorker(app, options), { concurrency: options.settings.concurrency });
    }
  };
}
