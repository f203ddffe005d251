import { z } from "zod";
import { effectiveConfig } from "../issue-run/settings.ts";
import type { StoredTrigger } from "../issue-run/admission.ts";
import type { JobSpec } from "../jobs/types.ts";
import { FAILING_CONCLUSIONS, type PullGitHub } from "../github/pull-port.ts";
import { readPullMarker, readStatusMarker } from "../github/render/markers.ts";
import { renderCiSection, withCiSection } from "../github/render/ci-section.ts";
import type { DeliveryDeps, HandleOutcome } from "./handler.ts";

/**
 * CI results on the app's pull request: `check_suite.completed` and `check_run.completed` for a head on
 * an `auto-fix/issue-N` branch. Once every check of the head commit has completed and one failed, the
 * issue's status comment says which, and, when the repository sets `ci_retries: N`, a run starts with the
 * failing checks as evidence, at most N times until a person starts a run again. Only the payload is read
 * before the answer; everything else (the pull request, the checks) after it.
 */

const Repository = z.object({
  name: z.string(),
  owner: z.object({ login: z.string() }),
  clone_url: z.string().url(),
  default_branch: z.string().min(1),
});
const PullRefs = z.array(z.object({ number: z.number().int().positive() })).default([]);

const SuitePayload = z.object({
  action: z.literal("completed"),
  check_suite: z.object({
    head_branch: z.string().nullable().default(null),
    head_sha: z.string().min(1),
    conclusion: z.string().nullable().default(null),
    pull_requests: PullRefs,
  }),
  repository: Repository,
  installation: z.object({ id: z.number().int() }),
});

const RunPayload = z.object({
  action: z.literal("completed"),
  check_run: z.object({
    name: z.string(),
    head_sha: z.string().min(1),
    conclusion: z.string().nullable().default(null),
    pull_requests: PullRefs,
    check_suite: z.object({ head_branch: z.string().nullable().default(null) }),
  }),
  repository: Repository,
  installation: z.object({ id: z.number().int() }),
});

export interface CheckTriggerEvent {
  deliveryId: string;
  kind: "check-suite" | "check-run";
  installationId: number;
  owner: string;
  repo: string;
  cloneUrl: string;
  defaultBranch: string;
  branch: string | null;
  sha: string;
  conclusion: string | null;
  pulls: number[];
}

export function parseCheckTrigger(
  deliveryId: string,
  kind: CheckTriggerEvent["kind"],
  payload: unknown,
): CheckTriggerEvent | null {
  const common = (d: { repository: z.infer<typeof Repository>; installation: { id: number } }) => ({
    deliveryId,
    kind,
    installationId: d.installation.id,
    owner: d.repository.owner.login,
    repo: d.repository.name,
    cloneUrl: d.repository.clone_url,
    defaultBranch: d.repository.default_branch,
  });
  if (kind === "check-suite") {
    const p = SuitePayload.safeParse(payload);
    if (!p.success) return null;
    const s = p.data.check_suite;
    return {
      ...common(p.data),
      branch: s.head_branch,
      sha: s.head_sha,
      conclusion: s.conclusion,
      pulls: s.pull_requests.map((x) => x.number),
    };
  }
  const p = RunPayload.safeParse(payload);
  if (!p.success) return null;
  const r = p.data.check_run;
  return {
    ...common(p.data),
    branch: r.check_suite.head_branch,
    sha: r.head_sha,
    conclusion: r.conclusion,
    pulls: r.pull_requests.map((x) => x.number),
  };
}

/** The job key of an automatic run: one per failing head commit, whichever check reports last. */
export function ciJobKey(owner: string, repo: string, sha: string): string {
  return `ci:${owner}/${repo}@${sha}`.toLowerCase();
}

export type CheckDeliveryDeps = DeliveryDeps & { pulls: PullGitHub };

const APP_BRANCH = /^auto-fix\/issue-(\d+)$/;

export async function handleCheckTrigger(
  event: CheckTriggerEvent,
  deps: CheckDeliveryDeps,
): Promise<HandleOutcome> {
  const m = APP_BRANCH.exec(event.branch ?? "");
  if (!m) return { action: "ignored", reason: "not the app's branch" };
  if (!FAILING_CONCLUSIONS.has(event.conclusion ?? "")) {
    return { action: "ignored", reason: `check ${event.conclusion ?? "without a conclusion"}` };
  }
  const issueNumber = Number(m[1]);
  await deps.defer(() => afterAnswer(event, issueNumber, deps));
  return { action: "checking" };
}

async function afterAnswer(
  event: CheckTriggerEvent,
  issueNumber: number,
  deps: CheckDeliveryDeps,
): Promise<HandleOutcome> {
  const branch = event.branch!;
  const number = event.pulls[0] ?? (await deps.github.findOpenPull(branch))?.number;
  if (!number) return { action: "ignored", reason: "no open pull request for the branch" };
  const pull = await deps.pulls.getPull(number);
  if (readPullMarker(pull.body) !== issueNumber || pull.authorType !== "Bot" || pull.headRef !== branch) {
    return { action: "ignored", reason: "pull request is not the app's" };
  }
  if (pull.state !== "open") return { action: "ignored", reason: "pull request is closed" };
  if (pull.headSha !== event.sha) return { action: "ignored", reason: "a newer commit is the head" };
  const runs = await deps.pulls.listCheckRuns(event.sha);
  if (runs.some((r) => r.status !== "completed")) {
    return { action: "ignored", reason: "checks of the head are still running" };
  }
  const failing = runs.filter((r) => FAILING_CONCLUSIONS.has(r.conclusion ?? "")).map((r) => r.name);
  if (failing.length === 0) return { action: "ignored", reason: "no check failed" };

  const [comments, repoConfig] = await Promise.all([
    deps.github.listComments(issueNumber),
    deps.loadRepoConfig(),
  ]);
  // An invalid file allows no automatic run (its `ci_retries` cannot be trusted); the checks are still reported.
  const config = effectiveConfig(deps.settings, repoConfig.ok ? repoConfig.file : null);
  const status = comments.find((c) => c.authorType === "Bot" && readStatusMarker(c.body) !== null);
  const state = (status && readStatusMarker(status.body)) || { runs: 0 };
  const used = state.ciRetries ?? 0;
  const automatic = config.ciRetries > used ? { run: used + 1, of: config.ciRetries } : null;
  if (status) {
    const section = renderCiSection({
      sha: event.sha,
      pull: pull.number,
      failing: [...new Set(failing)],
      automatic,
      usedUp: !automatic && config.ciRetries > 0 ? { of: config.ciRetries } : null,
    });
    const body = withCiSection(status.body, section);
    if (body !== status.body) await deps.github.updateComment(status.id, body);
  }
  if (!automatic) return { action: "ignored", reason: "failing checks reported; no automatic run" };
  return storeAutomatic(event, issueNumber, pull.number, [...new Set(failing)], deps);
}

async function storeAutomatic(
  event: CheckTriggerEvent,
  issueNumber: number,
  pull: number,
  failing: string[],
  deps: Pick<DeliveryDeps, "queue">,
): Promise<HandleOutcome> {
  const trigger: StoredTrigger = {
    kind: "check",
    replyTo: issueNumber,
    fromPull: true,
    cloneUrl: event.cloneUrl,
    defaultBranch: event.defaultBranch,
    title: "",
    body: "",
    ci: { pull, sha: event.sha, failing: failing.slice(0, 100).map((n) => n.slice(0, 200)) },
  };
  const spec: JobSpec = {
    deliveryId: ciJobKey(event.owner, event.repo, event.sha),
    kind: "retry",
    installationId: event.installationId,
    owner: event.owner,
    repo: event.repo,
    issueNumber,
    sender: "ci",
    data: { trigger },
  };
  const outcome = await deps.queue.enqueue(spec);
  // A run already going for the issue (a person's) is not interrupted, nor told about this one.
  if (outcome.status === "duplicate") return { action: "duplicate", jobId: outcome.jobId };
  if (outcome.status === "active") return { action: "active", jobId: outcome.jobId };
  return { action: "queued", jobId: outcome.jobId };
}
