import { createHmac } from "node:crypto";
import { createRequire } from "node:module";
import type { WebhookDefinition } from "@octokit/webhooks-examples";
import type { FakeGitHub, FakeUser } from "../support/fake-github.ts";

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as WebhookDefinition[];

/** A real payload example (GitHub's shapes) to fill in. */
export function exampleOf(name: string, action: string): Record<string, unknown> {
  const def = examples.find((d) => d.name === name);
  const ex = def?.examples.find((e) => (e as { action?: string }).action === action);
  if (!ex) throw new Error(`no ${name}.${action} example`);
  return structuredClone(ex) as unknown as Record<string, unknown>;
}

/** Signs and POSTs one delivery; resolves with the HTTP status once the app answered. */
export async function postWebhook(
  url: string,
  secret: string,
  event: string,
  id: string,
  payload: unknown,
): Promise<number> {
  const body = JSON.stringify(payload);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": id,
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

let counter = 0;
export const newDeliveryId = () => `delivery-${process.pid}-${++counter}`;

export interface WebhookTarget {
  url: string;
  secret: string;
  owner: string;
  repo: string;
  cloneUrl: string;
  github: FakeGitHub;
  installationId?: number;
}

/**
 * Builds `issues.labeled` and `issue_comment.created` deliveries from the webhook examples, filled in
 * from the fake GitHub's current state (issue or pull request), and delivers them signed.
 */
export function createSigner(t: WebhookTarget) {
  const installation = {
    id: t.installationId ?? 4242,
    node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==",
  };
  const repository = (ex: Record<string, unknown>) => ({
    ...(ex.repository as object),
    name: t.repo,
    full_name: `${t.owner}/${t.repo}`,
    owner: { ...((ex.repository as { owner: object }).owner ?? {}), login: t.owner },
    clone_url: t.cloneUrl,
    default_branch: t.github.repo(t.owner, t.repo).defaultBranch,
  });
  const issueJson = (ex: Record<string, unknown>, n: number) => {
    const r = t.github.repo(t.owner, t.repo);
    const base = ex.issue as Record<string, unknown>;
    const pull = r.pulls.get(n);
    if (pull) {
      return {
        ...base,
        number: n,
        title: pull.title,
        body: pull.body,
        state: pull.state,
        locked: false,
        user: { ...(base.user as object), login: pull.user.login, type: pull.user.type },
        pull_request: { url: `${t.github.apiUrl}/repos/${t.owner}/${t.repo}/pulls/${n}` },
      };
    }
    const issue = r.issues.get(n);
    if (!issue) throw new Error(`no issue #${n}`);
    const { pull_request: _omit, ...rest } = base;
    return {
      ...rest,
      number: n,
      title: issue.title,
      body: issue.body,
      state: issue.state,
      locked: issue.locked,
      user: { ...(base.user as object), login: issue.user.login, type: issue.user.type },
      labels: issue.labels.map((name) => ({ name })),
    };
  };
  const pullJson = (ex: Record<string, unknown>, n: number) => {
    const r = t.github.repo(t.owner, t.repo);
    const p = r.pulls.get(n);
    if (!p) throw new Error(`no pull request #${n}`);
    const base = ex.pull_request as Record<string, unknown>;
    return {
      ...base,
      number: n,
      title: p.title,
      body: p.body,
      state: p.state,
      locked: false,
      user: { ...(base.user as object), login: p.user.login, type: p.user.type },
      head: {
        ...(base.head as object),
        ref: p.head,
        sha: r.resolveRef?.(p.head) ?? p.headSha ?? "0".repeat(40),
      },
    };
  };
  const sender = (ex: Record<string, unknown>, u: FakeUser) => ({
    ...(ex.sender as object),
    login: u.login,
    type: u.type,
  });
  const asUser = (u: FakeUser | string): FakeUser => (typeof u === "string" ? { login: u, type: "User" } : u);

  return {
    /** Delivers `issues.labeled`; returns the delivery id and the HTTP status. */
    async labeledWithStatus(
      issueNumber: number,
      who: FakeUser | string,
      opts: { label?: string; id?: string; secret?: string } = {},
    ): Promise<{ id: string; status: number }> {
      const ex = exampleOf("issues", "labeled");
      const id = opts.id ?? newDeliveryId();
      const payload = {
        ...ex,
        label: { ...(ex.label as object), name: opts.label ?? "auto-fix" },
        issue: issueJson(ex, issueNumber),
        repository: repository(ex),
        sender: sender(ex, asUser(who)),
        installation,
      };
      return { id, status: await postWebhook(t.url, opts.secret ?? t.secret, "issues", id, payload) };
    },
    /** Adds the comment to the fake, then delivers `issue_comment.created`. */
    async commentWithStatus(
      issueNumber: number,
      text: string,
      who: FakeUser | string,
      opts: { id?: string } = {},
    ): Promise<{ id: string; status: number }> {
      const ex = exampleOf("issue_comment", "created");
      const user = asUser(who);
      const c = t.github.addComment(t.owner, t.repo, issueNumber, text, user);
      const id = opts.id ?? newDeliveryId();
      const payload = {
        ...ex,
        comment: {
          ...(ex.comment as object),
          id: c.id,
          body: text,
          user: { login: user.login, type: user.type },
        },
        issue: issueJson(ex, issueNumber),
        repository: repository(ex),
        sender: sender(ex, user),
        installation,
      };
      return { id, status: await postWebhook(t.url, t.secret, "issue_comment", id, payload) };
    },
    /** Delivers `pull_request_review.submitted` for a review already added to the fake. */
    async review(
      pullNumber: number,
      reviewId: number,
      opts: { id?: string } = {},
    ): Promise<{ id: string; status: number }> {
      const ex = exampleOf("pull_request_review", "submitted");
      const r = t.github.repo(t.owner, t.repo);
      const review = r.pullsState.reviews.get(reviewId);
      if (!review) throw new Error(`no review ${reviewId}`);
      const id = opts.id ?? newDeliveryId();
      const payload = {
        ...ex,
        review: {
          ...(ex.review as object),
          id: review.id,
          state: review.state.toLowerCase(),
          body: review.body || null,
          commit_id: review.commitId,
          user: { login: review.user.login, type: review.user.type },
        },
        pull_request: pullJson(ex, pullNumber),
        repository: repository(ex),
        sender: sender(ex, review.user),
        installation,
      };
      return { id, status: await postWebhook(t.url, t.secret, "pull_request_review", id, payload) };
    },
    /** Delivers `pull_request_review_comment.created` for a review comment already in the fake. */
    async reviewComment(
      pullNumber: number,
      commentId: number,
      opts: { id?: string } = {},
    ): Promise<{ id: string; status: number }> {
      const ex = exampleOf("pull_request_review_comment", "created");
      const r = t.github.repo(t.owner, t.repo);
      const c = r.pullsState.reviewComments.get(commentId);
      if (!c) throw new Error(`no review comment ${commentId}`);
      const id = opts.id ?? newDeliveryId();
      const payload = {
        ...ex,
        comment: {
          ...(ex.comment as object),
          id: c.id,
          pull_request_review_id: c.reviewId,
          in_reply_to_id: c.inReplyTo ?? undefined,
          body: c.body,
          path: c.path,
          line: c.line,
          user: { login: c.user.login, type: c.user.type },
        },
        pull_request: pullJson(ex, pullNumber),
        repository: repository(ex),
        sender: sender(ex, c.user),
        installation,
      };
      return { id, status: await postWebhook(t.url, t.secret, "pull_request_review_comment", id, payload) };
    },
    /** Delivers `check_run.completed` (or `check_suite.completed`) for a check run in the fake. */
    async checkCompleted(
      checkRunId: number,
      opts: { event?: "check_run" | "check_suite"; id?: string; branch?: string; pulls?: number[] } = {},
    ): Promise<{ id: string; status: number }> {
      const event = opts.event ?? "check_run";
      const ex = exampleOf(event, "completed");
      const r = t.github.repo(t.owner, t.repo);
      const run = r.pullsState.checkRuns.get(checkRunId);
      if (!run) throw new Error(`no check run ${checkRunId}`);
      const pull = [...r.pulls.values()].find((p) => (r.resolveRef?.(p.head) ?? p.headSha) === run.headSha);
      const branch = opts.branch ?? pull?.head ?? "unknown";
      const pulls = (opts.pulls ?? (pull ? [pull.number] : [])).map((n) => ({
        number: n,
        head: { ref: branch, sha: run.headSha },
      }));
      const id = opts.id ?? newDeliveryId();
      const exRun = (ex.check_run ?? {}) as Record<string, unknown>;
      const exSuite = (ex.check_suite ?? {}) as Record<string, unknown>;
      const payload =
        event === "check_run"
          ? {
              ...ex,
              check_run: {
                ...exRun,
                id: run.id,
                name: run.name,
                head_sha: run.headSha,
                status: run.status,
                conclusion: run.conclusion,
                pull_requests: pulls,
                check_suite: { ...(exRun.check_suite as object), head_branch: branch, head_sha: run.headSha },
              },
              repository: repository(ex),
              installation,
            }
          : {
              ...ex,
              check_suite: {
                ...exSuite,
                head_branch: branch,
                head_sha: run.headSha,
                status: "completed",
                conclusion: run.conclusion,
                pull_requests: pulls,
              },
              repository: repository(ex),
              installation,
            };
      return { id, status: await postWebhook(t.url, t.secret, event, id, payload) };
    },
    async labeled(issueNumber: number, who: FakeUser | string): Promise<string> {
      return (await this.labeledWithStatus(issueNumber, who)).id;
    },
    async comment(issueNumber: number, text: string, who: FakeUser | string): Promise<string> {
      return (await this.commentWithStatus(issueNumber, text, who)).id;
    },
  };
}
