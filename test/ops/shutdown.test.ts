/**
 * SIGTERM during a run, with real processes: `npm start` running a job (clone over `git http-backend`,
 * the real pipeline in its child process), a model that never answers or a GitHub write that hangs.
 * The process must be gone within the grace period by its clean path (exit 0: its own backstop exits 1
 * at the end of the grace), the call in flight aborted, and the job back in the queue for another worker.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.ts";
import { type GitServer, startGitServer } from "../support/git-server.ts";
import { tempDir } from "../support/temp.ts";
import { type AppProcess, deliverIssues, labeledPayload, startApp, until } from "./support/app-process.ts";

const GRACE_SECONDS = 6;

/** An OpenAI-compatible endpoint that takes chat requests and never answers them. */
async function startSilentModel() {
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

interface Setup {
  github: FakeGitHub;
  git: GitServer;
  work: string;
  env: NodeJS.ProcessEnv;
  secret: string;
  payload: string;
}

async function setUp(modelUrl: string): Promise<Setup> {
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
    AUTO_FIX_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    OPENAI_BASE_URL: modelUrl,
    OPENAI_API_KEY: "test-key",
    AUTO_FIX_MODEL: "slow-model",
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

function jobRow(work: string): {
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

/** SIGTERM now; resolves with how the process ended and the log lines about the shutdown. */
async function terminate(app: AppProcess) {
  const ended = await app.stop();
  const said = app.output();
  return { ...ended, said };
}

test("SIGTERM while the model is answering: the pipeline is stopped, the job released, the process gone within the grace", async () => {
  const model = await startSilentModel();
  const s = await setUp(model.baseURL);
  const app = await startApp(s.env, { cwd: tempDir("auto-fix-shutdown-cwd-") });
  try {
    const res = await deliverIssues(`${app.url}/api/github/webhooks`, s.secret, "d-slow", s.payload);
    assert.equal(res.status, 200, app.output());
    await until("the run to call the model", () => model.requests() > 0);
    const running = jobRow(s.work);
    assert.equal(running.state, "running");

    const { code, said } = await terminate(app);
    assert.equal(code, 0, `exited by its clean path, before the grace ran out:\n${said}`);
    assert.match(said, /shutdown done in \d+\.\d s/);
    assert.doesNotMatch(said, /did not stop after the shutdown abort/, "the run stopped when aborted");
    await until("the model call to be dropped", () => model.aborted() > 0);
    const released = jobRow(s.work);
    assert.equal(released.state, "queued", "back in the queue for another worker");
    assert.equal(released.lease_owner, null);
    assert.equal(released.attempts, 0, "a shutdown does not count as an attempt");
    // One JSON line per stage, and the run's end, with the delivery, repository, issue and outcome.
    const run = app.logs().find((l) => l.stage === "run");
    assert.ok(run, said);
    assert.deepEqual(
      { deliveryId: run.deliveryId, repository: run.repository, issue: run.issue, outcome: run.outcome },
      { deliveryId: "d-slow", repository: "o/r", issue: 1, outcome: "shutdown" },
    );
    assert.equal(typeof run.durationMs, "number");
    const stages = app.logs().filter((l) => l.deliveryId === "d-slow" && typeof l.stage === "string");
    for (const stage of ["admission", "acknowledged", "cloned"]) {
      const line = stages.find((l) => l.stage === stage);
      assert.ok(
        line && typeof line.durationMs === "number" && typeof line.outcome === "string",
        `${stage}: ${said}`,
      );
    }
  } finally {
    await app.stop();
    await model.close();
    await s.github.close();
    await s.git.close();
  }
});

test("SIGTERM while a GitHub write hangs: the request is aborted and the job released within the grace", async () => {
  const model = await startSilentModel();
  const s = await setUp(model.baseURL);
  // The status comment's creation never gets an answer.
  const release = s.github.holdMatching(
    (c) => c.method === "POST" && /\/issues\/\d+\/comments$/.test(c.path),
  );
  const app = await startApp(s.env, { cwd: tempDir("auto-fix-shutdown-cwd-") });
  try {
    const res = await deliverIssues(`${app.url}/api/github/webhooks`, s.secret, "d-gh", s.payload);
    assert.equal(res.status, 200, app.output());
    const held = () => s.github.calls.find((c) => c.method === "POST" && c.path.endsWith("/comments"));
    await until("the status comment's request", () => held() !== undefined);

    const { code, said } = await terminate(app);
    assert.equal(code, 0, `exited by its clean path, before the grace ran out:\n${said}`);
    assert.doesNotMatch(said, /did not stop after the shutdown abort/, "the GitHub call was aborted");
    assert.equal(held()?.abandoned, true, "the app closed the request it was waiting on");
    const released = jobRow(s.work);
    assert.equal(released.state, "queued");
    assert.equal(released.stage, "admitted", "it resumes after the admission it passed");
  } finally {
    release();
    await app.stop();
    await model.close();
    await s.github.close();
    await s.git.close();
  }
});
