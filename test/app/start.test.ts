import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { startFakeGitHub } from "../support/fake-github.ts";
import { tempDir } from "../support/temp.ts";
import {
  type AppProcess,
  deliverIssues as deliver,
  labeledPayload,
  startApp as start,
} from "../ops/support/app-process.ts";

/** `npm start` in a folder of its own (its `.env` and data stay there), logging only warnings. */
const startApp = (env: NodeJS.ProcessEnv): Promise<AppProcess> =>
  start({ LOG_LEVEL: "warn", ...env }, { cwd: tempDir("auto-fix-start-cwd-") });

const stop = (app: AppProcess) => app.stop();

const deliverIssues = (url: string, secret: string, deliveryId: string, payload: string) =>
  deliver(`${url}/api/github/webhooks`, secret, deliveryId, payload);

test("npm start without credentials serves the setup page with the app's manifest", async () => {
  const app = await startApp({ NO_SMEE_SETUP: "true", AUTO_FIX_PUBLIC_URL: "https://autofix.example.com" });
  const { url } = app;
  try {
    const res = await fetch(`${url}/probot`);
    assert.equal(res.status, 200);
    const html = (await res.text()).replaceAll("&quot;", '"').replaceAll("&#34;", '"');
    assert.match(html, /"hook_attributes":\{"url":"https:\/\/autofix\.example\.com\/api\/github\/webhooks"/);
    assert.match(html, /"name":"auto-fix"/);
    assert.match(
      html,
      /"default_permissions":\{"issues":"write","pull_requests":"write","contents":"write","metadata":"read","checks":"read","actions":"read"\}/,
    );
    assert.match(
      html,
      /"default_events":\["issues","issue_comment","pull_request_review","pull_request_review_comment","check_run","check_suite"\]/,
    );
    assert.doesNotMatch(html, /workflows/);
  } finally {
    await stop(app);
  }
});

test("npm start with credentials serves signed webhooks and talks to GHE_HOST", async () => {
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  const work = tempDir("auto-fix-start-");
  const repo = github.addRepo("o", "r", { cloneUrl: "http://127.0.0.1:9/o/r.git" });
  const issue = github.addIssue("o", "r", { title: "t", body: "b" });
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const secret = "start-secret";
  const app = await startApp({
    AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
    APP_ID: "7",
    PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    WEBHOOK_SECRET: secret,
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    AUTO_FIX_WORK_DIR: work,
    AUTO_FIX_DATA_DIR: join(work, "data"),
  });
  try {
    const { url, output } = app;
    const payload = labeledPayload(issue.number, repo.cloneUrl, "auto-fix", "stranger");
    const deliver = (key: string) => deliverIssues(url, key, `d-${key}`, payload);
    assert.equal((await deliver("wrong")).status, 400);
    assert.deepEqual(
      github.calls.map((c) => `${c.method} ${c.path}`).filter((p) => p !== "GET /app/hook/config"),
      [],
      "a delivery with a wrong signature calls nothing",
    );
    assert.equal((await deliver(secret)).status, 200, output());
    // The stored job's worker checks the sender's permission and makes the polite reply.
    for (let i = 0; i < 400 && github.commentsOn("o", "r", issue.number).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const paths = github.calls.map((c) => `${c.method} ${c.path}`);
    assert.ok(paths.includes("GET /repos/o/r/collaborators/stranger/permission"), paths.join("\n"));
    assert.match(github.commentsOn("o", "r", issue.number)[0]?.body ?? "", /write access/);
  } finally {
    await stop(app);
    await github.close();
  }
});

test("a delivery answered by a process killed before finishing it is finished by the next process", async () => {
  const github = await startFakeGitHub();
  const work = tempDir("auto-fix-held-");
  const repo = github.addRepo("o", "r", { cloneUrl: "http://127.0.0.1:9/o/r.git" });
  repo.permissions.set("mona", "write");
  // The repository names its own label: only reading its config (after the answer) shows the label counts.
  repo.files.set(".github/auto-fix.yml", "label: needs-fix\n");
  const issue = github.addIssue("o", "r", { title: "t", body: "b" });
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const secret = "held-secret";
  const env = {
    APP_ID: "7",
    PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    WEBHOOK_SECRET: secret,
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    AUTO_FIX_WORK_DIR: work,
    AUTO_FIX_DATA_DIR: join(work, "data"),
    AUTO_FIX_RESUME_HELD_AFTER_MS: "0",
  };
  const payload = labeledPayload(issue.number, repo.cloneUrl, "needs-fix", "mona");
  const first = await startApp(env);
  const release = github.holdResponses();
  let second: Awaited<ReturnType<typeof startApp>> | null = null;
  try {
    const res = await deliverIssues(first.url, secret, "d-held", payload);
    assert.equal(res.status, 200, first.output());
    // Killed while its config check waits on GitHub: nothing was stored as a job yet.
    const killed = new Promise<void>((resolve) => first.child.once("exit", () => resolve()));
    first.child.kill("SIGKILL");
    await killed;
    release();
    const db = new DatabaseSync(join(work, "data", "jobs.sqlite"), { readOnly: true });
    const heldIds = () =>
      (db.prepare("SELECT delivery_id FROM held_deliveries").all() as { delivery_id: string }[]).map(
        (r) => r.delivery_id,
      );
    const jobFor = () => db.prepare("SELECT state FROM jobs WHERE delivery_id = 'd-held'").get();
    assert.deepEqual(heldIds(), ["d-held"], "the answered delivery was held before the answer");
    assert.equal(jobFor(), undefined);

    second = await startApp(env);
    for (let i = 0; i < 400 && (heldIds().length > 0 || !jobFor()); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    db.close();
    const again = new DatabaseSync(join(work, "data", "jobs.sqlite"), { readOnly: true });
    const job = again.prepare("SELECT state FROM jobs WHERE delivery_id = 'd-held'").get();
    const left = again.prepare("SELECT count(*) AS n FROM held_deliveries").get() as { n: number };
    again.close();
    assert.ok(job, `the next process read the config and stored the job:\n${second.output()}`);
    assert.equal(left.n, 0, "and released the delivery");
    const paths = github.calls.map((c) => `${c.method} ${c.path}`);
    assert.ok(
      paths.some((p) => p.startsWith("GET /repos/o/r/contents/")),
      paths.join("\n"),
    );
  } finally {
    release();
    if (second) await stop(second);
    await stop(first);
    await github.close();
  }
});
