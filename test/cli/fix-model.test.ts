import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { agentScript, NO_REPRODUCIBLE_EXAMPLE, roleOf, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES } from "../support/fix-harness.ts";
import { type ChatRequest, startScriptedModel } from "../support/scripted-model.ts";
import { runCli, tempDir, terminalControls } from "./support.ts";

const repo = join(FIX_FIXTURES, "py-stats");
const issueFile = join(repo, "issue.md");
const GARBAGE = "Lorem ipsum \x1b[2J dolor sit amet, I cannot help with that.";

/** Runs `auto-fix fix --json` against `baseURL` in a fresh folder; returns the run, its result and out dir. */
async function fix(
  t: Parameters<typeof tempDir>[0],
  baseURL: string,
  env: NodeJS.ProcessEnv = {},
  extra: string[] = [],
) {
  const cwd = tempDir(t);
  const out = join(cwd, "out");
  const run = await runCli(["fix", "--repo", repo, "--issue", issueFile, "--out", out, "--json", ...extra], {
    cwd,
    env: {
      OPENAI_BASE_URL: baseURL,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
      ...env,
    },
  });
  let result: { status: string; reason: string; usage: { cost_usd: number | null } } | null = null;
  try {
    result = JSON.parse(run.out);
  } catch {
    result = null;
  }
  return { run, result, out };
}

/** Counts the requests of each agent; the reproducer's question gets a sensible answer, all else `reply`. */
function counting(reply: (req: ChatRequest) => string) {
  const counts = { search: 0, proxy: 0, patch: 0, other: 0 };
  const handler = (req: ChatRequest) => {
    const role = roleOf(req);
    counts[role]++;
    return role === "other" ? NO_REPRODUCIBLE_EXAMPLE : reply(req);
  };
  return { handler, counts };
}

test("a model that answers garbage is stopped after 3 unusable answers in a row, quoting (inertly) what came back", async (t) => {
  const { handler, counts } = counting(() => GARBAGE);
  const server = await startScriptedModel(handler);
  t.after(() => server.close());
  const { run, result } = await fix(t, server.baseURL);
  assert.equal(run.code, 1, run.err);
  assert.ok(result, run.out);
  // One search answer (prose: judged by the proxy), then three proxy answers with no JSON: stop.
  assert.deepEqual(counts, { search: 1, proxy: 3, patch: 0, other: counts.other });
  assert.equal(result.status, "no-patch");
  assert.match(
    result.reason,
    /the model gave 3 unusable answers in a row \(the limit is 3, AUTO_FIX_MAX_UNUSABLE_ANSWERS\)/,
  );
  assert.match(
    result.reason,
    /the last one \(proxy: no JSON object of the required shape\) was: "Lorem ipsum \\u001b\[2J dolor/,
  );
  assert.deepEqual(terminalControls(run.errBytes), []);

  // The limit is a setting.
  const five = counting(() => GARBAGE);
  const server5 = await startScriptedModel(five.handler);
  t.after(() => server5.close());
  const r5 = await fix(t, server5.baseURL, { AUTO_FIX_MAX_UNUSABLE_ANSWERS: "5" });
  assert.equal(r5.run.code, 1, r5.run.err);
  assert.deepEqual({ ...five.counts, other: 0 }, { search: 1, proxy: 5, patch: 0, other: 0 });
  assert.match(r5.result?.reason ?? "", /5 unusable answers in a row/);
});

test("a usable answer resets the count; unusable patch answers count the same way", async (t) => {
  const script = agentScript({
    search: [
      searchSays("The mean is computed in stats/summary.py.", {
        bug_locations: [{ file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len." }],
      }),
    ],
    patch: Array.from({ length: 10 }, () => GARBAGE),
  });
  const server = await startScriptedModel(script);
  t.after(() => server.close());
  const { run, result } = await fix(t, server.baseURL, {}, ["--patch-attempts", "10"]);
  assert.equal(run.code, 1, run.err);
  assert.equal(script.counts.search, 1, "the location came at once");
  assert.equal(script.counts.proxy, 0, "read from the answer's own JSON block");
  assert.equal(script.counts.patch, 3, "three patch answers without an edit, then no more requests");
  assert.match(
    result?.reason ?? "",
    /3 unusable answers in a row .*\(patch: no edit in the required format\)/,
  );
});

test("a model without a price and a dollar budget is refused before any request, naming the settings", async (t) => {
  const server = await startScriptedModel(() => GARBAGE);
  t.after(() => server.close());
  const { run } = await fix(t, server.baseURL, {
    AUTO_FIX_MODEL: "local-llm",
    AUTO_FIX_MAX_COST_USD_PER_RUN: "0.0001",
  });
  assert.equal(run.code, 2);
  assert.match(
    run.err,
    /the model 'local-llm' has no known price, so the dollar budget \(\$0\.00 per run\) cannot be enforced/,
  );
  assert.match(run.err, /AUTO_FIX_PRICE_INPUT_PER_MTOK and AUTO_FIX_PRICE_OUTPUT_PER_MTOK/);
  assert.match(run.err, /AUTO_FIX_MAX_TOKENS_PER_RUN/);
  assert.equal(server.requests.length, 0);

  // A token budget lets it run; the cost is "unknown", never $0.
  const { handler } = counting(() => GARBAGE);
  const server2 = await startScriptedModel(handler);
  t.after(() => server2.close());
  const ok = await fix(t, server2.baseURL, {
    AUTO_FIX_MODEL: "local-llm",
    AUTO_FIX_MAX_TOKENS_PER_RUN: "200000",
  });
  assert.equal(ok.run.code, 1, ok.run.err);
  assert.equal(ok.result?.usage.cost_usd, null);
  assert.match(readFileSync(join(ok.out, "report.md"), "utf8"), /cost: unknown/);
  // The old name still works, with a deprecation warning.
  const old = await fix(t, server2.baseURL, {
    AUTO_FIX_MODEL: "local-llm",
    AUTO_FIX_BUDGET_TOKENS: "200000",
  });
  assert.equal(old.run.code, 1, old.run.err);
  assert.match(old.run.err, /warning: AUTO_FIX_BUDGET_TOKENS is deprecated; use AUTO_FIX_MAX_TOKENS_PER_RUN/);
});

/** An HTTP server on 127.0.0.1 answering every request with `answer`; counts requests. */
async function webServer(
  t: Parameters<typeof tempDir>[0],
  answer: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => answer(req, res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, seen };
}

const HTML = "<!doctype html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>";

test("endpoint checks: no scheme refused at once; a web page or a closed port reported before the run", async (t) => {
  const web = await webServer(t, (_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(HTML);
  });
  const noScheme = await fix(t, `127.0.0.1:${web.port}/v1`);
  assert.equal(noScheme.run.code, 2);
  assert.match(
    noScheme.run.err,
    new RegExp(
      `OPENAI_BASE_URL must be an http:// or https:// URL, got '127.0.0.1:${web.port}/v1' \\(did you mean http://127.0.0.1:${web.port}/v1\\?\\)`,
    ),
  );
  assert.deepEqual(web.seen, []);

  const html = await fix(t, `http://127.0.0.1:${web.port}`);
  assert.equal(html.run.code, 2, html.run.err);
  assert.match(
    html.run.err,
    /answered GET http:\/\/127\.0\.0\.1:\d+\/models with a web page \(HTML\), not JSON \(HTTP 200, text\/html\)/,
  );
  assert.match(html.run.err, /Welcome to nginx!/);
  assert.match(html.run.err, /has no \/v1 at the end.*try http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.deepEqual(web.seen, ["GET /models"], "one cheap request, nothing paid for");
  assert.equal(readFileSync(join(html.out, "endpoint-check.body.txt"), "utf8"), HTML);
  const check = JSON.parse(readFileSync(join(html.out, "endpoint-check.json"), "utf8"));
  assert.equal(check.ok, false);
  assert.equal(check.status, 200);

  const closed = web.port; // reuse a port, then close a fresh server to get one that refuses
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, "127.0.0.1", r));
  const port = (gone.address() as AddressInfo).port;
  await new Promise<void>((r) => gone.close(() => r()));
  assert.notEqual(port, closed);
  const refused = await fix(t, `http://127.0.0.1:${port}/v1`);
  assert.equal(refused.run.code, 1);
  assert.match(
    refused.run.err,
    new RegExp(`cannot reach the model endpoint http://127.0.0.1:${port}/v1/models: ECONNREFUSED`),
  );
});

test("a chat answer that is a web page stops the run as such, saved with the call's artifacts; retries are logged", async (t) => {
  let chats = 0;
  const web = await webServer(t, (req, res) => {
    if (req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [] }));
      return;
    }
    chats++;
    if (chats === 1) {
      res.writeHead(503, { "content-type": "application/json", "retry-after-ms": "5" });
      res.end(JSON.stringify({ error: { message: "overloaded, try again" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(HTML);
  });
  const { run, result, out } = await fix(t, `http://127.0.0.1:${web.port}/v1`);
  assert.equal(run.code, 1, run.err);
  assert.equal(result?.status, "error");
  assert.match(
    result?.reason ?? "",
    /^the model endpoint answered with a web page \(HTML\) instead of the API's JSON \(HTTP 200, text\/html/,
  );
  assert.doesNotMatch(result?.reason ?? "", /refused the request/);
  assert.equal(chats, 2, "a web page is not retried");
  assert.match(
    run.err,
    /auto-fix: model call 1 \(\w+\): attempt 1 failed \(503 overloaded, try again\); retry 1 of 5 in 0\.0 s/,
  );
  const calls = readdirSync(join(out, "model-calls"));
  const body = calls.find((f) => f.endsWith(".answer.txt"));
  assert.ok(body, calls.join(", "));
  assert.equal(readFileSync(join(out, "model-calls", body), "utf8"), HTML);
  const md = calls.find((f) => f.endsWith(".md"))!;
  assert.match(
    readFileSync(join(out, "model-calls", md), "utf8"),
    /- retried: model call 1 .* attempt 1 failed/,
  );
  assert.ok(existsSync(join(out, "report.md")));
});

test("fix on a terminal: one status line with stage, files indexed, model calls, tokens and cost", async (t) => {
  const { handler } = counting(() => GARBAGE);
  const server = await startScriptedModel(handler);
  t.after(() => server.close());
  const cwd = tempDir(t);
  const raw: string[] = [];
  let out = "";
  const code = await main(["fix", "--repo", repo, "--issue", issueFile, "--out", join(cwd, "o")], {
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => raw.push(s),
    stderrRaw: (s) => raw.push(s),
    env: {
      OPENAI_BASE_URL: server.baseURL,
      AUTO_FIX_MODEL: "gpt-4o-mini",
      AUTO_FIX_CACHE_DIR: join(cwd, "c"),
    },
    cwd,
    isTTY: true,
  });
  assert.equal(code, 1);
  const err = raw.join("");
  assert.match(err, /\r\x1b\[Kauto-fix: index · 4 of 4 files · 0 model calls · 0 tokens · \$0\.0000/);
  assert.match(err, /\r\x1b\[Kauto-fix: search · round 1\/15 · \d+ model calls · \d+ tokens · \$0\.0\d{3}/);
  assert.match(err, /auto-fix: done · 5 model calls · \d+ tokens · \$0\.\d{4}\n$/);
  assert.match(out, /usage: 5 model calls, \d+ tokens, \$0\.\d{4}/);
  // The model's answer is quoted in the reason, inert.
  assert.match(out, /reason: .*Lorem ipsum \\u001b\[2J dolor/);
  assert.deepEqual(terminalControls(Buffer.from(out)), []);
});
