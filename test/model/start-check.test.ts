import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../../src/app/server.ts";
import { checkModelAtStart } from "../../src/model/endpoint-check.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function htmlServer(t: { after: (fn: () => Promise<void>) => void }): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html><body>Sign in to continue</body></html>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as AddressInfo).port;
}

test("the start check: a working endpoint passes; no model, no price or a web page are problems", async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), "auto-fix-start-check-"));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const model = await startScriptedModel(() => "hi");
  t.after(() => model.close());
  const good = await checkModelAtStart(
    { OPENAI_BASE_URL: model.baseURL, AUTO_FIX_MODEL: "gpt-4o-mini" },
    cwd,
    2,
  );
  assert.deepEqual(good, { ok: true, problems: [], notes: [] });
  assert.equal(model.requests.length, 0, "no chat request (nothing paid for)");

  const none = await checkModelAtStart({}, cwd, 2);
  assert.equal(none.ok, false);
  assert.match(none.problems.join(), /no model configured: set AUTO_FIX_MODEL/);

  const unpriced = await checkModelAtStart(
    { OPENAI_BASE_URL: model.baseURL, AUTO_FIX_MODEL: "llama3", AUTO_FIX_BUDGET_USD: "1" },
    cwd,
    2,
  );
  assert.equal(unpriced.ok, false);
  assert.match(unpriced.problems.join(), /'llama3' has no known price/);
  assert.match(unpriced.notes.join(), /AUTO_FIX_BUDGET_USD is deprecated/);

  const port = await htmlServer(t);
  const page = await checkModelAtStart(
    { OPENAI_BASE_URL: `http://127.0.0.1:${port}/api`, AUTO_FIX_MODEL: "gpt-4o-mini" },
    cwd,
    2,
  );
  assert.equal(page.ok, false);
  assert.match(page.problems.join(), /with a web page \(HTML\), not JSON .*"<html><body>Sign in to continue/);
  assert.match(page.problems.join(), /has no \/v1 at the end/);
});

test("a model URL that redirects is named a redirect, with where it leads (query left out)", async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), "auto-fix-start-check-"));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(301, { location: "https://models.example.com/v1/models?token=secret" }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const r = await checkModelAtStart(
    { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, AUTO_FIX_MODEL: "gpt-4o-mini" },
    cwd,
    2,
  );
  assert.equal(r.ok, false);
  assert.match(
    r.problems.join(),
    /answered GET http:\/\/127\.0\.0\.1:\d+\/v1\/models with a redirect \(HTTP 301\) to https:\/\/models\.example\.com\/v1\/models: set OPENAI_BASE_URL/,
  );
  assert.doesNotMatch(r.problems.join(), /token=secret/);
});

test("npm start says at once when the model endpoint cannot work", async (t) => {
  const data = mkdtempSync(join(tmpdir(), "auto-fix-start-"));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const port = await htmlServer(t);
  const child = spawn(process.execPath, ["src/app/start.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: data,
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      LOG_LEVEL: "warn",
      NO_SMEE_SETUP: "true",
      AUTO_FIX_DATA_DIR: data,
      OPENAI_BASE_URL: `http://127.0.0.1:${port}`,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_BUDGET_USD: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.after(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  let output = "";
  const seen = new Promise<void>((resolve, reject) => {
    const look = (c: Buffer) => {
      output += c.toString();
      if (/runs will fail: .*web page/.test(output)) resolve();
    };
    child.stdout.on("data", look);
    child.stderr.on("data", look);
    child.on("exit", () => reject(new Error(`the server exited: ${output}`)));
  });
  await seen;
  assert.match(
    output,
    /auto-fix: warning: AUTO_FIX_BUDGET_USD is deprecated; use AUTO_FIX_MAX_COST_USD_PER_RUN/,
  );
  assert.match(
    output,
    /auto-fix: runs will fail: the model endpoint answered GET http:\/\/127\.0\.0\.1:\d+\/models with a web page/,
  );
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
});
