/**
 * A world for shutdown runs: a model endpoint that never answers, a fake GitHub, a real git server with
 * one repository and an issue a maintainer labels. Shared by the shutdown tests and `npm run bench:shutdown`.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type FakeGitHub, startFakeGitHub } from "../../support/fake-github.ts";
import { type GitServer, startGitServer } from "../../support/git-server.ts";
import { tempDir } from "../../support/temp.ts";
import { labeledPayload } from "./app-process.ts";

/** An OpenAI-compatible endpoint that takes chat requests and never answers them. */
export async function startSilentModel() {
  const pending: IncomingMessage[] = [];
  let aborted = 0;
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
      return;
    }
    pending.push(req);
    req.resume();
    res.once("close", () => {
      if (!res.writableFinished) aborted++;
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => pending.length,
    aborted: () => aborted,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface Setup {
  github: FakeGitHub;
  git: GitServer;
  work: string;
  env: NodeJS.ProcessEnv;
  secret: string;
  payload: string;
}

export async function setUp(modelUrl: string, graceSeconds: number): Promise<Setup> {
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  const git = await startGitServer();
  git.tokens.add(github.installationToken);
  const cloneUrl = git.createRepo("o/r", {
    "calc/ops.py": "def add(a, b):\n    return a - b\n",
    "README.md": "# calc\n",
  });
  const repo = github.addRepo("o", "r", { cloneUrl });
  repo.permissions.set("maintainer", "write");
  const issue = github.addIssue("o", "r", { title: "add() subtracts", body: "add(1, 2) returns -1" });
  const work = tempDir("auto-fix-shutdown-");
  const secret = "shutdown-secret";
  const env = {
    APP_ID: "7",
    PRIVATE_KEY: generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs1", format: "pem" })
      .toString(),
    WEBHOOK_SECRET: secret,
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
    AUTO_FIX_WORK_DIR: join(work, "runs"),
    AUTO_FIX_DATA_DIR: join(work, "data"),
    AUTO_FIX_CACHE_DIR: join(work, "cache"),
    AUTO_FIX_SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: "test-key",
    AUTO_FIX_MODEL: "slow-model",
    AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
    AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
  };
  return {
    github,
    git,
    work,
    env,
    secret,
    payload: labeledPayload(issue.number, cloneUrl, "auto-fix", "maintainer"),
  };
}

export function jobRow(work: string): {
  state: string;
  attempts: number;
  lease_owner: string | null;
  stage: string | null;
} {
  const db = new DatabaseSync(join(work, "data", "jobs.sqlite"), { readOnly: true });
  try {
    return db.prepare("SELECT state, attempts, lease_owner, stage FROM jobs").get() as ReturnType<
      typeof jobRow
    >;
  } finally {
    db.close();
  }
}
