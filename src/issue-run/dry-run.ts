/**
 * The app's whole issue run with no GitHub at all: admission (with an assumed permission, the
 * repository's `.github/auto-fix.yml` and the budgets), clone of a local checkout, the pipeline child,
 * commit and push, the pull request body and the status comment, through the dry-run GitHub port
 * (`github/dry-run-github.ts`) and a local git remote (`github/local-remote.ts`). Everything lands in
 * one folder; a second run into it is a retry, as on GitHub.
 */
import { writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { createDryRunGitHub, type DryRunGitHub } from "../github/dry-run-github.ts";
import { prepareLocalRemote, readRemoteFile, remoteDiff, serveLocalRemote } from "../github/local-remote.ts";
import type { Permission } from "../github/port.ts";
import { readStatusMarker } from "../github/render/markers.ts";
import { SqliteLimitStore } from "../jobs/limits.ts";
import { SqliteRunLedger } from "../jobs/run-ledger.ts";
import type { Job, JobContext } from "../jobs/types.ts";
import type { Pipeline } from "../contract/app-result.ts";
import { admitJob, type StoredTrigger } from "./admission.ts";
import type { HandleOutcome } from "./outcome.ts";
import { readRepoConfig } from "./repo-config.ts";
import { type RunOutcome, runIssue } from "./run-issue.ts";
import { effectiveConfig, readSettings } from "./settings.ts";

export interface DryRunOptions {
  /** The local checkout (only read: its committed state is copied into a bare remote under `outDir`). */
  repoDir: string;
  /** Where everything goes: `github/` (what would be posted), `remote.git`, `work/`, `state/`. */
  outDir: string;
  /** The issue, as read from the user's file: untrusted text, handled as the app handles an issue's. */
  issue: { title: string; body: string };
  issueNumber: number;
  /** Who asks for the run, and the access assumed for them. */
  sender: string;
  permission: Permission;
  /** `/retry <guidance>`: runs as a retry with the maintainer's guidance. */
  guidance?: string | undefined;
  env: NodeJS.ProcessEnv;
  pipeline: Pipeline;
  signal?: AbortSignal | undefined;
  log: { info: (msg: string) => void; warn: (msg: string) => void };
}

export interface DryRunResult {
  /** What the run did, or why it did not start (the reply it would have posted is in `github/`). */
  outcome: RunOutcome | { status: "not-run"; action: HandleOutcome["action"]; reason: string };
  /** The folder holding what would have been posted. */
  githubDir: string;
  /** The bare repository the branch was pushed to. */
  remote: string;
  branch: string | null;
  /** The pull request body, its change, and the status comment, as files (null when not written). */
  pullBody: string | null;
  pullDiff: string | null;
  statusComment: string | null;
  /** The repository's `.github/auto-fix.yml` is not valid: what is wrong with it (the run did not start). */
  configProblems?: string[];
}

/** The status comment of the issue, as the app finds it (by its marker). */
async function statusCommentFile(github: DryRunGitHub, issueNumber: number): Promise<string | null> {
  const comments = await github.listComments(issueNumber);
  const status = comments.find((c) => c.authorType === "Bot" && readStatusMarker(c.body) !== null);
  return status ? github.commentPath(issueNumber, status.id) : null;
}

export async function runDryRun(options: DryRunOptions): Promise<DryRunResult> {
  const outDir = resolve(options.outDir);
  const settings = { ...readSettings(options.env), workDir: join(outDir, "work") };
  const remote = await prepareLocalRemote(options.repoDir, join(outDir, "remote.git"));
  const server = await serveLocalRemote(remote.bareDir);
  const limits = new SqliteLimitStore({ dataDir: join(outDir, "state") });
  const ledger = new SqliteRunLedger({ dataDir: join(outDir, "state") });
  try {
    const owner = "local";
    const repo = basename(resolve(options.repoDir)) || "repo";
    const github = createDryRunGitHub({
      dir: join(outDir, "github"),
      owner,
      repo,
      issue: { number: options.issueNumber, ...options.issue },
      permission: options.permission,
      gitToken: server.token,
      readFile: (path, maxBytes, ref) =>
        readRemoteFile(remote.bareDir, ref ?? remote.defaultBranch, path, maxBytes),
      diff: (base, head) => remoteDiff(remote.bareDir, base, head),
    });
    const retry =
      options.guidance !== undefined || (await statusCommentFile(github, options.issueNumber)) !== null;
    // A first run starts as a maintainer's label would start it (the repository's label), a later one
    // as `/retry` does.
    const repoConfig = await readRepoConfig(github);
    const label = effectiveConfig(settings, repoConfig.ok ? repoConfig.file : null).label;
    const trigger: StoredTrigger = {
      kind: retry ? "comment" : "labeled",
      ...(retry ? {} : { label }),
      replyTo: options.issueNumber,
      fromPull: false,
      cloneUrl: server.url,
      defaultBranch: remote.defaultBranch,
      title: options.issue.title,
      body: options.issue.body,
    };
    const at = Date.now();
    const job: Job = {
      id: `dry-run-${new Date(at).toISOString().replace(/[:.]/g, "-")}`,
      spec: {
        deliveryId: `dry-run-${at}`,
        kind: retry ? "retry" : "run",
        installationId: 0,
        owner,
        repo,
        issueNumber: options.issueNumber,
        sender: options.sender,
        ...(options.guidance ? { guidance: options.guidance } : {}),
        data: { trigger },
      },
      state: "running",
      attempts: 1,
      stage: null,
      checkpoint: {},
      error: null,
      createdAt: at,
      updatedAt: at,
    };
    const admission = await admitJob(job, {
      github,
      ledger,
      limits,
      settings,
      loadRepoConfig: (ref) => readRepoConfig(github, ref),
      now: Date.now,
    });
    const result = (outcome: DryRunResult["outcome"], branch: string | null, pullBody: string | null) =>
      statusCommentFile(github, options.issueNumber).then((statusComment) => ({
        outcome,
        githubDir: github.dir,
        remote: remote.bareDir,
        branch,
        pullBody,
        pullDiff: pullBody ? pullBody.replace(/\.md$/, ".diff") : null,
        statusComment,
        ...(repoConfig.ok ? {} : { configProblems: repoConfig.problems }),
      }));
    if (!admission.ok) {
      const o = admission.outcome;
      const reason =
        "reason" in o
          ? o.reason
          : o.action === "denied"
            ? `@${options.sender} has ${options.permission} access`
            : o.action;
      return await result({ status: "not-run", action: o.action, reason }, null, null);
    }
    const admitted: Job = { ...job, spec: { ...job.spec, data: { ...admission.data } } };
    const checkpoints: Record<string, unknown> = {};
    const ctx: JobContext = {
      signal: options.signal ?? new AbortController().signal,
      checkpoint: async (stage, data) => {
        Object.assign(checkpoints, data ?? {});
        options.log.info(`stage ${stage}: done`);
      },
    };
    const outcome = await runIssue(admitted, ctx, {
      github,
      pipeline: options.pipeline,
      settings,
      model: options.env.AUTO_FIX_MODEL ?? "",
      now: Date.now,
      limits,
      log: options.log,
    });
    const pull = "pull" in outcome ? outcome.pull : null;
    const branch = typeof checkpoints.branch === "string" ? checkpoints.branch : null;
    const summary = await result(outcome, branch, pull ? github.pullBodyPath(pull) : null);
    await writeFile(join(outDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    return summary;
  } finally {
    await server.close();
    await limits.close();
    await ledger.close();
  }
}
