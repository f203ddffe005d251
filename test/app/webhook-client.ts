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
    async labeled(issueNumber: number, who: FakeUser | string): Promise<string> {
      return (await this.labeledWithStatus(issueNumber, who)).id;
    },
    async comment(issueNumber: number, text: string, who: FakeUser | string): Promise<string> {
      return (await this.commentWithStatus(issueNumber, text, who)).id;
    },
  };
}
