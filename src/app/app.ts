import type { ApplicationFunction, Context, Probot } from "probot";
import { createOctokitGitHub } from "../github/octokit-github.ts";
import { JobFailure } from "../jobs/errors.ts";
import type { LimitStore } from "../jobs/limits.ts";
import type { Job, JobHandler, JobQueue } from "../jobs/types.ts";
import { serveOps } from "../ops/http.ts";
import type { MetricsRegistry } from "../ops/metrics.ts";
import { admitJob } from "./admission.ts";
import type { RunLedger } from "./budgets.ts";
import { type HandleOutcome, handleTrigger } from "./handler.ts";
import { heldEventName, resumeHeldDeliveries } from "./held.ts";
import { RunDataSchema } from "./job-data.ts";
import type { Pipeline } from "./pipeline.ts";
import { runJob } from "./run-job.ts";
import type { AppSettings } from "./settings.ts";
import { parseTrigger, type TriggerEvent } from "./trigger.ts";

/** What the app is built from; the queue is the single seam where the durable store plugs in. */
export interface AppOptions {
  queue: JobQueue;
  ledger: RunLedger;
  /** Counters every worker shares: the repository's daily model spend. */
  limits: LimitStore;
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
  /** Stops the app's timers (the server is shutting down). */
  signal?: AbortSignal;
  /** Serve `GET /health` and `GET /metrics` on the app's server. */
  ops?: { registry: MetricsRegistry; isStopping?: () => boolean };
}

type AppOctokit = Awaited<ReturnType<Probot["auth"]>>;

/** `.github/auto-fix.yml` (with Probot's fallback to the owner's `.github` repo); null when absent or bad. */
async function loadRepoConfig(
  octokit: AppOctokit,
  owner: string,
  repo: string,
  warn: (msg: string) => void,
): Promise<unknown> {
  try {
    const { config, files } = await octokit.config.get({ owner, repo, path: ".github/auto-fix.yml" });
    return files.some((f) => f.config !== null) ? config : null;
  } catch (error) {
    warn(`ignoring .github/auto-fix.yml: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/** The job worker: authenticates as the job's installation and runs it. */
export function createWorker(
  app: Probot,
  options: Pick<AppOptions, "pipeline" | "settings" | "model" | "now" | "ledger" | "limits" | "onOutcome">,
): JobHandler {
  return async (job, ctx) => {
    const octokit = await app.auth(job.spec.installationId);
    const github = createOctokitGitHub(octokit, job.spec.owner, job.spec.repo);
    const log = app.log.child({
      job: job.id,
      repo: `${job.spec.owner}/${job.spec.repo}`,
      issue: job.spec.issueNumber,
    });
    const now = options.now ?? Date.now;
    // The checks the webhook handler left out (they need GitHub) come first; a resumed job was admitted.
    // (A job stored by an earlier version carries its run data in the spec: it was checked then.)
    const saved = RunDataSchema.safeParse(job.checkpoint.runData ?? job.spec.data);
    let data = saved.success ? saved.data : null;
    if (!data) {
      const admission = await admitJob(job, {
        github,
        ledger: options.ledger,
        limits: options.limits,
        settings: options.settings,
        loadRepoConfig: () => loadRepoConfig(octokit, job.spec.owner, job.spec.repo, (m) => log.warn(m)),
        now,
      }).catch((error: unknown) => {
        // GitHub unreachable, failing or rate limiting: the job goes back to the queue with back-off.
        const status = (error as { status?: unknown }).status;
        const retryable = typeof status !== "number" || status >= 500 || status === 429 || status === 403;
        const message = error instanceof Error ? error.message : String(error);
        throw new JobFailure("admission-failed", `checking the trigger failed: ${message}`, { retryable });
      });
      if (!admission.ok) {
        log.info(`job not run: ${JSON.stringify(admission.outcome)}`);
        options.onOutcome?.(job.spec.deliveryId, admission.outcome);
        return;
      }
      data = admission.data;
      await ctx.checkpoint("admitted", { runData: data });
    }
    const admitted: Job = { ...job, spec: { ...job.spec, data: { ...data } } };
    const outcome = await runJob(admitted, ctx, {
      github,
      pipeline: options.pipeline,
      settings: options.settings,
      model: options.model,
      now,
      limits: options.limits,
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
    /** Deliveries this process holds and is still working on: never resumed here a second time. */
    const working = new Set<string>();
    const depsFor = (octokit: AppOctokit, event: TriggerEvent, warn: (m: string) => void) => ({
      github: createOctokitGitHub(octokit, event.owner, event.repo),
      queue: options.queue,
      settings: options.settings,
      loadRepoConfig: () => loadRepoConfig(octokit, event.owner, event.repo, warn),
    });
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
          ...depsFor(context.octokit as AppOctokit, event, (m) => context.log.warn(m)),
          defer: async (work) => {
            // Held before the answer: if this process dies before the work ends, another one resumes it.
            await options.queue.holdDelivery({
              deliveryId: context.id,
              event: heldEventName(kind),
              payload: context.payload,
            });
            working.add(context.id);
            replies = replies
              .then(work)
              .then(
                (later) => {
                  if (later) {
                    context.log.info(`auto-fix ${context.name}: ${JSON.stringify(later)}`);
                    options.onOutcome?.(context.id, later);
                  }
                },
                (error: unknown) => {
                  context.log.warn(
                    `auto-fix reply failed: ${error instanceof Error ? error.message : String(error)}`,
                  );
                },
              )
              .then(() => options.queue.releaseDelivery(context.id))
              .catch((error: unknown) => {
                context.log.warn(
                  `auto-fix could not release held delivery ${context.id}: ${error instanceof Error ? error.message : String(error)}`,
                );
              })
              .finally(() => working.delete(context.id));
            options.onDeferred?.(replies);
          },
        });
      }
      context.log.info(`auto-fix ${context.name}: ${JSON.stringify(outcome)}`);
      options.onOutcome?.(context.id, outcome);
    };
    // Deliveries answered by a process that died before finishing them: looked for at start and then
    // regularly (one process takes each).
    const resume = async (): Promise<void> => {
      const warn = (m: string) => app.log.warn(m);
      try {
        await resumeHeldDeliveries(options.settings.resumeHeldAfterMs, {
          queue: options.queue,
          busy: (id) => working.has(id),
          depsFor: async (event) => depsFor(await app.auth(event.installationId), event, warn),
          onOutcome: (id, outcome) => {
            app.log.info(`auto-fix resumed delivery ${id}: ${JSON.stringify(outcome)}`);
            options.onOutcome?.(id, outcome);
          },
          warn,
        });
      } catch (error) {
        warn(
          `auto-fix could not look for held deliveries: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    };
    let resuming: Promise<void> = Promise.resolve();
    const scan = () => {
      resuming = resuming.then(resume);
    };
    const first = setTimeout(scan, 0);
    const timer = setInterval(scan, Math.max(1000, Math.min(options.settings.resumeHeldAfterMs, 30_000)));
    first.unref();
    timer.unref();
    options.signal?.addEventListener("abort", () => {
      clearTimeout(first);
      clearInterval(timer);
    });
    app.on("issues.labeled", (context) => handle(context, "labeled"));
    app.on("issue_comment.created", (context) => handle(context, "comment"));
    if (options.startWorkers !== false) {
      options.queue.start(createWorker(app, options), { concurrency: options.settings.concurrency });
    }
  };
}
