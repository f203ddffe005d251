import { createHmac, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import type { WebhookDefinition } from "@octokit/webhooks-examples";
import { MemoryRunLedger } from "../../src/app/budgets.ts";
import type { HandleOutcome } from "../../src/app/handler.ts";
import type { Pipeline } from "../../src/app/pipeline.ts";
import { type AppServer, startAppServer } from "../../src/app/server.ts";
import { type AppSettings, readSettings } from "../../src/app/settings.ts";
import { MemoryJobQueue } from "../../src/jobs/memory-queue.ts";
import { type FakeGitHub, type FakeRepo, type FakeUser, startFakeGitHub } from "../support/fake-github.ts";
import { type GitServer, startGitServer } from "../support/git-server.ts";

export const OWNER = "octo-org";
export const REPO = "calc";
export const SECRET = "webhook-secret-for-tests";
export const INSTALLATION_ID = 4242;

export const FIXTURE_FILES: Record<string, string> = {
  "calc.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
  "README.md": "# calc\n",
  ".github/auto-fix.yml": "label: auto-fix\n",
};

export const FIX_PATCH = [
  "diff --git a/calc.py b/calc.py",
  "--- a/calc.py",
  "+++ b/calc.py",
  "@@ -1,5 +1,5 @@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  " ",
  " ",
  " def sub(a, b):",
  "",
].join("\n");

export interface Harness {
  github: FakeGitHub;
  git: GitServer;
  repo: FakeRepo;
  app: AppServer;
  queue: MemoryJobQueue;
  outcomes: Map<string, HandleOutcome>;
  settings: AppSettings;
  workDir: string;
  /** Delivers a signed webhook over HTTP; resolves with the HTTP status once the app answered. */
  deliver(event: string, payload: unknown, options?: { id?: string; secret?: string }): Promise<number>;
  labeled(
    issueNumber: number,
    options?: { sender?: FakeUser; label?: string; id?: string; secret?: string },
  ): Promise<number>;
  comment(issueNumber: number, body: string, options?: { sender?: FakeUser; id?: string }): Promise<number>;
  close(): Promise<void>;
}

export const MAINTAINER: FakeUser = { login: "mona", type: "User" };
export const STRANGER: FakeUser = { login: "drive-by", type: "User" };

const exampleOf = (name: string, action: string): Record<string, unknown> => {
  const def = examples.find((d) => d.name === name);
  const ex = def?.examples.find((e) => (e as { action?: string }).action === action);
  if (!ex) throw new Error(`no ${name}.${action} example`);
  return structuredClone(ex) as unknown as Record<string, unknown>;
};

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as WebhookDefinition[];

let deliveries = 0;

export async function startHarness(options: {
  pipeline: Pipeline;
  env?: NodeJS.ProcessEnv;
}): Promise<Harness> {
  const github = await startFakeGitHub();
  const git = await startGitServer();
  git.tokens.add(github.installationToken);
  const cloneUrl = git.createRepo(`${OWNER}/${REPO}`, FIXTURE_FILES);
  const repo = github.addRepo(OWNER, REPO, { cloneUrl });
  repo.permissions.set(MAINTAINER.login, "write");
  repo.permissions.set(STRANGER.login, "read");
  repo.files.set(".github/auto-fix.yml", FIXTURE_FILES[".github/auto-fix.yml"]!);
  const workDir = mkdtempSync(join(tmpdir(), "auto-fix-app-"));
  const settings = readSettings({ AUTO_FIX_WORK_DIR: workDir, ...(options.env ?? {}) });
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const queue = new MemoryJobQueue();
  const outcomes = new Map<string, HandleOutcome>();
  const app = await startAppServer({
    appId: 1,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    secret: SECRET,
    env: { GHE_HOST: github.host, GHE_PROTOCOL: "http" },
    app: {
      queue,
      ledger: new MemoryRunLedger(),
      settings,
      pipeline: options.pipeline,
      model: "scripted-model",
      onOutcome: (id, outcome) => outcomes.set(id, outcome),
    },
  });

  const repository = (ex: Record<string, unknown>) => ({
    ...(ex.repository as object),
    name: REPO,
    full_name: `${OWNER}/${REPO}`,
    owner: { ...((ex.repository as { owner: object }).owner ?? {}), login: OWNER },
    clone_url: cloneUrl,
    default_branch: repo.defaultBranch,
  });
  const issueJson = (ex: Record<string, unknown>, n: number) => {
    const pull = repo.pulls.get(n);
    const issue = repo.issues.get(n);
    const base = ex.issue as Record<string, unknown>;
    if (pull) {
      return {
        ...base,
        number: n,
        title: pull.title,
        body: pull.body,
        state: pull.state,
        locked: false,
        user: { ...(base.user as object), login: pull.user.login, type: pull.user.type },
        pull_request: { url: `${github.apiUrl}/repos/${OWNER}/${REPO}/pulls/${n}` },
      };
    }
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

  const h: Harness = {
    github,
    git,
    repo,
    app,
    queue,
    outcomes,
    settings,
    workDir,
    async deliver(event, payload, opts = {}) {
      const body = JSON.stringify(payload);
      const signature = `sha256=${createHmac("sha256", opts.secret ?? SECRET)
        .update(body)
        .digest("hex")}`;
      const res = await fetch(app.webhookUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": opts.id ?? `delivery-${process.pid}-${++deliveries}`,
          "x-hub-signature-256": signature,
        },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    },
    labeled(issueNumber, opts = {}) {
      const ex = exampleOf("issues", "labeled");
      const sender = opts.sender ?? MAINTAINER;
      return h.deliver(
        "issues",
        {
          ...ex,
          label: { ...(ex.label as object), name: opts.label ?? "auto-fix" },
          issue: issueJson(ex, issueNumber),
          repository: repository(ex),
          sender: { ...(ex.sender as object), login: sender.login, type: sender.type },
          installation: { id: INSTALLATION_ID, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==" },
        },
        { ...(opts.id ? { id: opts.id } : {}), ...(opts.secret ? { secret: opts.secret } : {}) },
      );
    },
    comment(issueNumber, text, opts = {}) {
      const ex = exampleOf("issue_comment", "created");
      const sender = opts.sender ?? MAINTAINER;
      const c = github.addComment(OWNER, REPO, issueNumber, text, sender);
      return h.deliver(
        "issue_comment",
        {
          ...ex,
          comment: {
            ...(ex.comment as object),
            id: c.id,
            body: text,
            user: { login: sender.login, type: sender.type },
          },
          issue: issueJson(ex, issueNumber),
          repository: repository(ex),
          sender: { ...(ex.sender as object), login: sender.login, type: sender.type },
          installation: { id: INSTALLATION_ID, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==" },
        },
        opts.id ? { id: opts.id } : {},
      );
    },
    async close() {
      await app.stop();
      await github.close();
      await git.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
  return h;
}
