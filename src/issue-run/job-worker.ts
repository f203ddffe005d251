/**
 * The job worker: authenticates as the job's installation, admits the job (the checks that need
 * GitHub) and runs it, logging one structured line per stage.
 */
import type { PullGitHub } from "../github/pull-port.ts";
import type { RepoGitHub } from "../github/port.ts";
import { JobShutdownError, LeaseLostError } from "../jobs/errors.ts";
import type { LimitStore } from "../jobs/limits.ts";
import type { Job, JobContext, JobHandler } from "../jobs/types.ts";
import { admitJob } from "./admission.ts";
import type { RunLedger } from "./budgets.ts";
import { admissionFailure, failureLogFields, runEndedFailed, startFailure } from "./failures.ts";
import type { HandleOutcome } from "./outcome.ts";
import { RunDataSchema } from "./job-data.ts";
import { readRepoConfig } from "./repo-config.ts";
import type { Pipeline } from "../contract/app-result.ts";
import { type RunOutcome, runIssue } from "./run-issue.ts";
import type { AppSettings } from "./settings.ts";

/**
 * The GitHub port of one job's repository, authenticated as the job's installation; every GitHub call it
 * makes is aborted when `signal` fires. Throws a `GitHubApiError` when GitHub refuses or cannot be
 * reached. (The repository's `.github/auto-fix.yml` is read through the port: `repo-config.ts`.)
 */
export type ConnectInstallation = (
  installationId: number,
  owner: string,
  repo: string,
  signal: AbortSignal,
) => Promise<InstallationPorts>;

/** The ports one job uses: the repository, and (where the app has them) its pull requests' reviews and checks. */
export interface InstallationPorts {
  github: RepoGitHub;
  pulls?: PullGitHub;
}

/** The structured logger a worker writes to (pino's shape: fields first, then the message). */
export interface WorkerLog {
  child(bindings: Record<string, unknown>): WorkerLog;
  info(fieldsOrMessage: unknown, message?: string): void;
  warn(fieldsOrMessage: unknown, message?: string): void;
}
type Log = WorkerLog;

export interface WorkerOptions {
  pipeline: Pipeline;
  settings: AppSettings;
  /** Model name shown in pull requests. */
  model: string;
  now?: (() => number) | undefined;
  ledger: RunLedger;
  limits: LimitStore;
  onOutcome?: ((deliveryId: string, outcome: HandleOutcome) => void) | undefined;
}

function abortName(reason: unknown): string {
  if (reason instanceof JobShutdownError) return "shutdown";
  if (reason instanceof LeaseLostError) return "lease-lost";
  return "cancelled";
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

type Ending = { status: string; reason?: string; pull?: number };

/**
 * One log line per stage, carrying the logger's bindings (delivery id, job id, repository, issue,
 * attempt) and `stage`, `durationMs`, `outcome`: the admission, the checkpoints the run records
 * (acknowledged, cloned, pipeline, pushed, pull-written/-commented/-replied, pr-opened), the pipeline's own stages (index, reproduce,
 * search, patch, review, validate) and the run as a whole (`stage: "run"`).
 */
export function stageLog(log: Pick<Log, "info">) {
  const started = Date.now();
  let mark = started;
  let inPipeline: { name: string; at: number } | null = null;
  const line = (stage: string, since: number, outcome: string, extra: Record<string, unknown> = {}) => {
    const now = Date.now();
    log.info({ stage, durationMs: now - since, outcome, ...extra }, `stage ${stage}: ${outcome}`);
    return now;
  };
  return {
    /** The job's context, logging each checkpoint as a stage done. */
    context(ctx: JobContext): JobContext {
      return {
        ...ctx,
        checkpoint: async (stage, data) => {
          await ctx.checkpoint(stage, data);
          mark = line(stage, mark, "done");
        },
      };
    },
    admission(outcome: string, since: number): void {
      line("admission", since, outcome);
      mark = Date.now();
    },
    /** A pipeline stage began: the one before it is done. */
    pipelineStage(stage: string): void {
      const now = Date.now();
      if (inPipeline) line(inPipeline.name, inPipeline.at, "done");
      inPipeline = { name: stage, at: now };
    },
    pipelineEnd(outcome: string): void {
      if (inPipeline) line(inPipeline.name, inPipeline.at, outcome);
      inPipeline = null;
    },
    end(ending: Ending, error?: unknown): void {
      const extra: Record<string, unknown> = {};
      if (ending.reason) extra.reason = ending.reason.slice(0, 300);
      if (ending.pull) extra.pull = ending.pull;
      if (error !== undefined) {
        extra.error = message(error).slice(0, 300);
        Object.assign(extra, failureLogFields(error));
      }
      line("run", started, ending.status, extra);
    },
  };
}

/**
 * The job worker: authenticates as the job's installation (`connect`) and runs it. It knows no Probot:
 * the app hands in how to reach GitHub and where to log.
 */
export function createWorker(
  deps: { connect: ConnectInstallation; log: WorkerLog },
  options: WorkerOptions,
): JobHandler {
  return async (job, jobCtx) => {
    const log = deps.log.child({
      deliveryId: job.spec.deliveryId,
      jobId: job.id,
      repository: `${job.spec.owner}/${job.spec.repo}`,
      issue: job.spec.issueNumber,
      attempt: job.attempts,
    });
    const stages = stageLog(log);
    // GitHub calls in flight are aborted when the process shuts down (the job resumes from its
    // checkpoint, here or in another worker); a `/cancel` leaves them be, so that the run can still
    // say on the issue that it was cancelled.
    const calls = new AbortController();
    const onAbort = () => {
      const reason = jobCtx.signal.reason;
      // An AbortError: Octokit's retry plugin gives up on it at once (any other reason is retried as a
      // server error, with seconds of back-off).
      if (reason instanceof JobShutdownError || reason instanceof LeaseLostError) {
        calls.abort(new DOMException(`aborted: ${reason.message}`, "AbortError"));
      }
    };
    jobCtx.signal.addEventListener("abort", onAbort, { once: true });
    let ending: Ending;
    try {
      const ports = await deps
        .connect(job.spec.installationId, job.spec.owner, job.spec.repo, calls.signal)
        .catch((error: unknown) => {
          throw startFailure(error);
        });
      ending = await runAdmitted(ports, options, job, stages.context(jobCtx), log, stages);
    } catch (error) {
      stages.end({ status: jobCtx.signal.aborted ? abortName(jobCtx.signal.reason) : "error" }, error);
      throw error;
    } finally {
      jobCtx.signal.removeEventListener("abort", onAbort);
    }
    stages.end(ending);
    // The issue already says what went wrong; the queue records the job as failed, with a reason.
    if (ending.status === "failed") throw runEndedFailed(ending.reason);
  };
}

async function runAdmitted(
  { github, pulls }: InstallationPorts,
  options: WorkerOptions,
  job: Job,
  ctx: JobContext,
  log: Log,
  stages: ReturnType<typeof stageLog>,
): Promise<Ending> {
  const now = options.now ?? Date.now;
  // The checks the webhook handler left out (they need GitHub) come first; a resumed job was admitted.
  // (A job stored by an earlier version carries its run data in the spec: it was checked then.)
  const saved = RunDataSchema.safeParse(job.checkpoint.runData ?? job.spec.data);
  let data = saved.success ? saved.data : null;
  if (!data) {
    const since = Date.now();
    const admission = await admitJob(job, {
      github,
      ledger: options.ledger,
      limits: options.limits,
      settings: options.settings,
      loadRepoConfig: (ref) => readRepoConfig(github, ref),
      now,
    }).catch((error: unknown) => {
      // GitHub unreachable, failing or rate limiting: the job goes back to the queue with back-off.
      throw admissionFailure(error);
    });
    stages.admission(admission.ok ? "admitted" : admission.outcome.action, since);
    if (!admission.ok) {
      options.onOutcome?.(job.spec.deliveryId, admission.outcome);
      const reason = "reason" in admission.outcome ? admission.outcome.reason : undefined;
      return { status: `not run: ${admission.outcome.action}`, ...(reason ? { reason } : {}) };
    }
    data = admission.data;
    await ctx.checkpoint("admitted", { runData: data });
  }
  const admitted: Job = { ...job, spec: { ...job.spec, data: { ...data } } };
  const pipeline: Pipeline = async (req) => {
    try {
      const result = await options.pipeline({
        ...req,
        onStage: (stage, note) => {
          stages.pipelineStage(stage);
          req.onStage(stage, note);
        },
      });
      stages.pipelineEnd(result.status);
      return result;
    } catch (error) {
      stages.pipelineEnd(req.signal.aborted ? abortName(req.signal.reason) : "error");
      throw error;
    }
  };
  const outcome: RunOutcome = await runIssue(admitted, ctx, {
    github,
    pipeline,
    settings: options.settings,
    model: options.model,
    now,
    limits: options.limits,
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m) },
    ...(pulls ? { pulls } : {}),
  });
  return outcome;
}
