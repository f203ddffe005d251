import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryRunLedger } from "../../src/issue-run/budgets.ts";
import type { HandleOutcome } from "../../src/app/handler.ts";
import type { Pipeline } from "../../src/contract/app-result.ts";
import { type AppServer, startAppServer } from "../../src/app/server.ts";
import { type AppSettings, readSettings } from "../../src/issue-run/settings.ts";
import { SqliteLimitStore } from "../../src/jobs/limits.ts";
import { MemoryJobQueue } from "../../src/jobs/memory-queue.ts";
import { type FakeGitHub, type FakeRepo, type FakeUser, startFakeGitHub } from "../support/fake-github.ts";
import { type GitServer, startGitServer } from "../support/git-server.ts";
import { createSigner, newDeliveryId, postWebhook } from "./webhook-client.ts";

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
  /** Waits for the replies made after webhooks were answered. */
  settle(): Promise<void>;
  /** Waits for replies and for every queued or running job. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export const MAINTAINER: FakeUser = { login: "mona", type: "User" };
export const STRANGER: FakeUser = { login: "drive-by", type: "User" };

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
  const deferred: Promise<void>[] = [];
  const app = await startAppServer({
    appId: 1,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    secret: SECRET,
    env: { GHE_HOST: github.host, GHE_PROTOCOL: "http" },
    app: {
      queue,
      ledger: new MemoryRunLedger(),
      limits: new SqliteLimitStore({ dataDir: join(workDir, "data") }),
      settings,
      pipeline: options.pipeline,
      model: "scripted-model",
      onOutcome: (id, outcome) => outcomes.set(id, outcome),
      onDeferred: (work) => deferred.push(work),
    },
  });

  const signer = createSigner({
    url: app.webhookUrl,
    secret: SECRET,
    owner: OWNER,
    repo: REPO,
    cloneUrl,
    github,
  });

  const h: Harness = {
    github,
    git,
    repo,
    app,
    queue,
    outcomes,
    settings,
    workDir,
    deliver(event, payload, opts = {}) {
      return postWebhook(app.webhookUrl, opts.secret ?? SECRET, event, opts.id ?? newDeliveryId(), payload);
    },
    async labeled(issueNumber, opts = {}) {
      const r = await signer.labeledWithStatus(issueNumber, opts.sender ?? MAINTAINER, {
        ...(opts.label ? { label: opts.label } : {}),
        ...(opts.id ? { id: opts.id } : {}),
        ...(opts.secret ? { secret: opts.secret } : {}),
      });
      return r.status;
    },
    async comment(issueNumber, text, opts = {}) {
      const r = await signer.commentWithStatus(issueNumber, text, opts.sender ?? MAINTAINER, {
        ...(opts.id ? { id: opts.id } : {}),
      });
      return r.status;
    },
    async settle() {
      while (deferred.length > 0) await deferred.shift();
    },
    async idle() {
      await h.settle();
      await queue.idle();
      await h.settle();
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
