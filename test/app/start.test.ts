import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../../src/app/server.ts";
import { startFakeGitHub } from "../support/fake-github.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function startApp(
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["src/app/start.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: tmpdir(),
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`app exited: ${output}`);
    const ok = await fetch(`${url}/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, child, output: () => output };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`app did not start: ${output}`);
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

/** An `issues.labeled` body for issue `number` of o/r, as GitHub sends it (the fields the app reads). */
function labeledPayload(number: number, cloneUrl: string, label: string, sender: string): string {
  return JSON.stringify({
    action: "labeled",
    label: { name: label },
    issue: { number, title: "t", body: "b", state: "open", locked: false, user: { login: "x" } },
    repository: { name: "r", owner: { login: "o" }, clone_url: cloneUrl, default_branch: "main" },
    sender: { login: sender, type: "User" },
    installation: { id: 1 },
  });
}

/** POSTs an `issues` webhook signed with `secret`. */
function deliverIssues(url: string, secret: string, deliveryId: string, payload: string): Promise<Response> {
  return fetch(`${url}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(payload).digest("hex")}`,
    },
    body: payload,
  });
}

test("npm start without credentials serves Probot's setup page with the app's manifest", async () => {
  const data = mkdtempSync(join(tmpdir(), "auto-fix-setup-"));
  const { url, child } = await startApp({ NO_SMEE_SETUP: "true", AUTO_FIX_DATA_DIR: data });
  try {
    const res = await fetch(`${url}/probot`);
    assert.equal(res.status, 200);
    const html = (await res.text()).replaceAll("&quot;", '"').replaceAll("&#34;", '"');
    assert.match(html, /"name":"auto-fix"/);
    assert.match(
      html,
      /"default_permissions":\{"issues":"write","pull_requests":"write","contents":"write","metadata":"read"\}/,
    );
    assert.match(html, /"default_events":\["issues","issue_comment"\]/);
    assert.doesNotMatch(html, /workflows/);
  } finally {
    await stop(child);
    rmSync(data, { recursive: true, force: true });
  }
});

test("npm start with credentials serves signed webhooks and talks to GHE_HOST", async () => {
  const github = await startFakeGitHub();
  const work = mkdtempSync(join(tmpdir(), "auto-fix-start-"));
  const repo = github.addRepo("o", "r", { cloneUrl: "http://127.0.0.1:9/o/r.git" });
  const issue = github.addIssue("o", "r", { title: "t", body: "b" });
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const secret = "start-secret";
  const { url, child, output } = await startApp({
    APP_ID: "7",
    PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    WEBHOOK_SECRET: secret,
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    AUTO_FIX_WORK_DIR: work,
    AUTO_FIX_DATA_DIR: join(work, "data"),
  });
  try {
    const payload = labeledPayload(issue.number, repo.cloneUrl, "auto-fix", "stranger");
    const deliver = (key: string) => deliverIssues(url, key, `d-${key}`, payload);
    assert.equal((await deliver("wrong")).status, 400);
    assert.equal(github.calls.length, 0);
    assert.equal((await deliver(secret)).status, 200, output());
    // The stored job's worker checks the sender's permission and makes the polite reply.
    for (let i = 0; i < 400 && github.commentsOn("o", "r", issue.number).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const paths = github.calls.map((c) => `${c.method} ${c.path}`);
    assert.ok(paths.includes("GET /repos/o/r/collaborators/stranger/permission"), paths.join("\n"));
    assert.match(github.commentsOn("o", "r", issue.number)[0]?.body ?? "", /write access/);
  } finally {
    await stop(child);
    await github.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test("a delivery answered by a process killed before finishing it is finished by the next process", async () => {
  const github = await startFakeGitHub();
  const work = mkdtempSync(join(tmpdir(), "auto-fix-held-"));
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
    if (second) await stop(second.child);
    if (first.child.exitCode === null && first.child.signalCode === null) await stop(first.child);
    await github.close();
    rmSync(work, { recursive: true, force: true });
  }
});
