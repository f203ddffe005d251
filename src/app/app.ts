import type { ApplicationFunction, Context, Probot } from "probot";
import { createOctokitGitHub } from "../github/octokit-github.ts";
import { createOctokitPulls } from "../github/octokit-pulls.ts";
import type { LimitStore } from "../jobs/limits.ts";
import type { JobQueue } from "../jobs/types.ts";
import {
  type GitHubStatus,
  healthChangeLog,
  healthReport,
  serveOps,
  type WebhookStatus,
} from "../ops/http.ts";
import { registerHealthMetrics } from "../ops/health-metrics.ts";
import type { MetricsRegistry } from "../ops/metrics.ts";
import type { Readiness } from "../ops/readiness.ts";
import { checkRegisteredHook } from "../ops/webhook-check.ts";
import type { WebhookSettings } from "../ops/webhook-url.ts";
import type { RunLedger } from "../issue-run/budgets.ts";
import { CommandFlood } from "./flood.ts";
import { type HandleOutcome, handleTrigger } from "./handler.ts";
import { heldEventName, resumeHeldDeliveries } from "./held.ts";
import { createWorker } from "../issue-run/job-worker.ts";
import { readRepoConfig } from "../issue-run/repo-config.ts";
import { type AppOctokit, workerDeps } from "./installation.ts";
import type { Pipeline } from "../contract/app-result.ts";
import type { AppSettings } from "../issue-run/settings.ts";
import { type DeliveryTarget, MAINTAINER_EVENTS } from "./maintainer-events.ts";
import { parseTrigger, type TriggerEvent } from "./trigger.ts";

export { createWorker } from "../issue-run/job-worker.ts";

/** How often a webhook URL that is not right is checked again. */
const WEBHOOK_RECHECK_MS = 5 * 60_000;
/** How often GitHub's API is asked again while it cannot be reached. */
const GITHUB_RECHECK_MS = 60_000;

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
  ops?: {
    registry: MetricsRegistry;
    isStopping?: () => boolean;
    /** Model and sandbox checks for /health (required when this process runs the jobs). */
    readiness?: Readiness;
    /** Ask GitHub where it sends the app's webhooks and report it when that cannot reach this server. */
    webhook?: WebhookSettings;
    /** A delivery answered but not finished after this long is reported as stuck (default 2 minutes). */
    stuckAfterMs?: number;
    /** GitHub's REST root, as named in log lines and /health (default https://api.github.com). */
    githubApi?: string;
  };
}

/**
 * The Probot app: the webhook handler checks, acknowledges and enqueues; the workers run the jobs.
 * Every delivery builds its own dependencies from its context.
 */
export function createAutoFixApp(options: AppOptions): ApplicationFunction {
  return (app: Probot, fnOptions) => {
    const ops = options.ops;
    /** Deliveries this process holds and is still working on: never resumed here a second time. */
    const working = new Map<string, { event: string; since: number }>();
    if (ops) {
      let webhook: WebhookStatus = { ok: null, url: null, detail: "not checked yet" };
      let github: GitHubStatus = { ok: null, detail: "not checked yet" };
      const settings = ops.webhook;
      if (settings) {
        const check = async () => {
          const octokit = await app.auth();
          const answer = await octokit.request("GET /app/hook/config", {
            request: { signal: AbortSignal.timeout(15_000) },
          });
          return answer.data as { url?: string | null };
        };
        // At start, and again every few minutes while it is not right (the operator may fix the URL on
        // GitHub without restarting this server).
        let again: NodeJS.Timeout | undefined;
        let checked = false;
        const run = () =>
          void checkRegisteredHook(check, settings, ops.githubApi).then(
            ({ status, github: api, problems }) => {
              const changed = !checked || status.ok !== webhook.ok || status.detail !== webhook.detail;
              const wasDown = github.ok === false;
              checked = true;
              webhook = status;
              github = api;
              if (changed) {
                for (const p of problems)
                  app.log[p.level === "error" ? "error" : "warn"](
                    `${api.ok ? "webhooks" : "github"}: ${p.message}`,
                  );
                if (status.ok) app.log.info(`webhooks: GitHub delivers to ${status.url}`);
              }
              if (wasDown && api.ok) app.log.info(`github: ${api.detail} again`);
              if (status.ok !== true && !options.signal?.aborted) {
                again = setTimeout(run, api.ok ? WEBHOOK_RECHECK_MS : GITHUB_RECHECK_MS);
                again.unref();
              }
            },
          );
        run();
        options.signal?.addEventListener("abort", () => clearTimeout(again));
      }
      const deps = {
        registry: ops.registry,
        queue: options.queue,
        role: "app",
        startedAt: Date.now(),
        runsJobs: options.startWorkers !== false,
        ...(ops.isStopping ? { isStopping: ops.isStopping } : {}),
        ...(ops.readiness ? { readiness: ops.readiness } : {}),
        ...(settings ? { webhook: () => webhook, github: () => github } : {}),
        working: () => [...working].map(([deliveryId, w]) => ({ deliveryId, ...w })),
        ...(ops.stuckAfterMs !== undefined ? { stuckAfterMs: ops.stuckAfterMs } : {}),
        onReport: healthChangeLog(app.log),
      };
      registerHealthMetrics(ops.registry, () => healthReport(deps));
      fnOptions?.addHandler((req, res) => serveOps(deps, req, res));
    }
    // Replies made after the webhook is answered run one at a time, in arrival order (so that two quick
    // deliveries from the same person see each other's reply).
    let replies: Promise<void> = Promise.resolve();
    /** Commands and reviews per person and per repository, counted before any GitHub call. */
    const flood = new CommandFlood(
      {
        perUser: options.settings.commandsPerUserPerHour,
        perRepo: options.settings.commandsPerRepoPerHour,
      },
      options.now,
    );
    const depsFor = (octokit: AppOctokit, event: DeliveryTarget) => {
      const github = createOctokitGitHub(octokit, event.owner, event.repo);
      return {
        github,
        pulls: createOctokitPulls(octokit, event.owner, event.repo),
        queue: options.queue,
        settings: options.settings,
        loadRepoConfig: () => readRepoConfig(github),
      };
    };
    const deferFor =
      (context: Context, event: string) =>
      async (work: () => Promise<HandleOutcome | undefined>): Promise<void> => {
        // Held before the answer: if this process dies before the work ends, another one resumes it.
        await options.queue.holdDelivery({
          deliveryId: context.id,
          event,
          payload: context.payload,
        });
        working.set(context.id, { event, since: Date.now() });
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
      };
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
          ...depsFor(context.octokit as AppOctokit, event),
          defer: deferFor(context, heldEventName(kind)),
          flood,
        });
      }
      context.log.info(
        {
          deliveryId: context.id,
          event: `${context.name}.${context.payload.action}`,
          ...(event ? { repository: `${event.owner}/${event.repo}`, issue: event.issue.number } : {}),
          outcome: outcome.action,
          ...("jobId" in outcome ? { jobId: outcome.jobId } : {}),
          ...("reason" in outcome ? { reason: outcome.reason } : {}),
        },
        `webhook ${context.name}: ${outcome.action}`,
      );
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
          depsFor: async (event) => depsFor(await app.auth(event.installationId), event),
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
    // Said once at start: deliveries a previous process answered and did not finish.
    void Promise.resolve(options.queue.listHeld?.())
      .then((held) => {
        if (!held || held.length === 0) return;
        const oldest = Math.round((Date.now() - Math.min(...held.map((h) => h.heldAt))) / 1000);
        app.log.warn(
          `webhooks: ${held.length} answered ${held.length === 1 ? "delivery was" : "deliveries were"} not finished before this start (oldest held ${oldest} s ago: ${held.map((h) => h.deliveryId).join(", ")}); each is resumed once held ${Math.round(options.settings.resumeHeldAfterMs / 1000)} s (AUTO_FIX_RESUME_HELD_AFTER_MS)`,
        );
      })
      .catch(() => undefined);
    const first = setTimeout(scan, 0);
    const timer = setInterval(scan, Math.max(1000, Math.min(options.settings.resumeHeldAfterMs, 30_000)));
    first.unref();
    timer.unref();
    options.signal?.addEventListener("abort", () => {
      clearTimeout(first);
      clearInterval(timer);
    });
    /** Reviews, line comments and CI results on the app's pull requests (`maintainer-events.ts`). */
    const handleMaintainer = async (context: Context, name: string) => {
      const kind = MAINTAINER_EVENTS[name]!;
      const event = kind.parse(context.id, context.payload);
      const outcome: HandleOutcome = event
        ? await kind.handle(event, {
            ...depsFor(context.octokit as AppOctokit, event),
            defer: deferFor(context, name),
            flood,
          })
        : { action: "ignored", reason: "payload lacks the fields a run needs" };
      context.log.info(
        {
          deliveryId: context.id,
          event: name,
          ...(event ? { repository: `${event.owner}/${event.repo}` } : {}),
          outcome: outcome.action,
          ...("jobId" in outcome ? { jobId: outcome.jobId } : {}),
          ...("reason" in outcome ? { reason: outcome.reason } : {}),
        },
        `webhook ${name}: ${outcome.action}`,
      );
      options.onOutcome?.(context.id, outcome);
    };
    app.on("pull_request_review.submitted", (c) => handleMaintainer(c, "pull_request_review.submitted"));
    app.on("pull_request_review_comment.created", (c) =>
      handleMaintainer(c, "pull_request_review_comment.created"),
    );
    app.on("check_suite.completed", (c) => handleMaintainer(c, "check_suite.completed"));
    app.on("check_run.completed", (c) => handleMaintainer(c, "check_run.completed"));
    app.on("issues.labeled", (context) => handle(context, "labeled"));
    app.on("issue_comment.created", (context) => handle(context, "comment"));
    if (options.startWorkers !== false) {
      options.queue.start(createWorker(workerDeps(app), options), {
        concurrency: options.settings.concurrency,
      });
    }
  };
}
