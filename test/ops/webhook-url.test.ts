import assert from "node:assert/strict";
import { test } from "node:test";
import { checkRegisteredHook, describeGitHubError } from "../../src/ops/webhook-check.ts";
import {
  hookUrlFor,
  readWebhookSettings,
  registeredHookProblems,
  settingsProblems,
  setupProblem,
  WebhookSettingsError,
} from "../../src/ops/webhook-url.ts";

const errorsOf = (ps: { level: string; message: string }[]) =>
  ps.filter((p) => p.level === "error").map((p) => p.message);

test("the hook URL is the proxy channel, else the public URL plus the webhook path", () => {
  const pub = readWebhookSettings({ AUTO_FIX_PUBLIC_URL: "https://fix.example.com/" });
  assert.equal(hookUrlFor(pub), "https://fix.example.com/api/github/webhooks");
  const prefixed = readWebhookSettings({
    AUTO_FIX_PUBLIC_URL: "https://example.com/auto-fix/",
    WEBHOOK_PATH: "/hooks",
  });
  assert.equal(hookUrlFor(prefixed), "https://example.com/auto-fix/hooks");
  const proxy = readWebhookSettings({
    WEBHOOK_PROXY_URL: "https://smee.io/abc",
    AUTO_FIX_PUBLIC_URL: "https://x.example.com",
  });
  assert.equal(hookUrlFor(proxy), "https://smee.io/abc");
  assert.ok(
    settingsProblems(proxy).some((p) => /both WEBHOOK_PROXY_URL and AUTO_FIX_PUBLIC_URL/.test(p.message)),
  );
  const none = readWebhookSettings({});
  assert.equal(hookUrlFor(none), null);
  assert.equal(hookUrlFor(none, "http://localhost:3000"), null, "never the local address");
  assert.equal(
    hookUrlFor(none, "http://192.168.1.5:3000"),
    null,
    "github.com cannot reach a private address",
  );
  assert.equal(hookUrlFor(none, "https://fix.example.com"), "https://fix.example.com/api/github/webhooks");
  assert.match(
    setupProblem(none, "http://localhost:3000") ?? "",
    /GitHub cannot deliver webhooks to http:\/\/localhost:3000/,
  );
});

test("settings that cannot be a URL are refused with the setting's name", () => {
  const bad: [NodeJS.ProcessEnv, RegExp][] = [
    [{ AUTO_FIX_PUBLIC_URL: "fix.example.com" }, /AUTO_FIX_PUBLIC_URL is not a URL/],
    [{ AUTO_FIX_PUBLIC_URL: "ftp://fix.example.com" }, /AUTO_FIX_PUBLIC_URL must be an http\(s\) URL/],
    [{ AUTO_FIX_PUBLIC_URL: "https://u:p@fix.example.com" }, /must not carry a user or password/],
    [{ AUTO_FIX_PUBLIC_URL: "https://fix.example.com/?a=1" }, /must not have a query/],
    [
      { AUTO_FIX_PUBLIC_URL: "https://fix.example.com/api/github/webhooks" },
      /without the webhook path \(it is added\): use 'https:\/\/fix\.example\.com'/,
    ],
    [{ WEBHOOK_PATH: "api/github/webhooks" }, /WEBHOOK_PATH must start with '\/'/],
    [{ WEBHOOK_PROXY_URL: "smee.io/abc" }, /WEBHOOK_PROXY_URL is not a URL/],
  ];
  for (const [env, message] of bad) {
    assert.throws(
      () => readWebhookSettings(env),
      (e: unknown) => e instanceof WebhookSettingsError && message.test(e.message),
    );
  }
});

test("a public URL GitHub cannot reach, or plain http in production, is an error", () => {
  const cases: [NodeJS.ProcessEnv, RegExp | null][] = [
    [{ AUTO_FIX_PUBLIC_URL: "http://localhost:3000" }, /loopback address, which GitHub cannot reach/],
    [{ AUTO_FIX_PUBLIC_URL: "http://127.0.0.2" }, /loopback/],
    [{ AUTO_FIX_PUBLIC_URL: "http://[::1]:3000" }, /loopback/],
    [{ AUTO_FIX_PUBLIC_URL: "http://10.1.2.3" }, /private address, which github\.com cannot reach/],
    [{ AUTO_FIX_PUBLIC_URL: "http://172.20.0.4" }, /private address/],
    [{ AUTO_FIX_PUBLIC_URL: "http://autofix" }, /private address/],
    [{ AUTO_FIX_PUBLIC_URL: "http://172.32.0.4" }, null],
    // A GitHub Enterprise server in the same network reaches private addresses, not this loopback.
    [{ AUTO_FIX_PUBLIC_URL: "http://10.1.2.3", GHE_HOST: "ghe.corp" }, null],
    [{ AUTO_FIX_PUBLIC_URL: "http://127.0.0.1:3000", GHE_HOST: "ghe.corp" }, /which ghe\.corp cannot reach/],
    [
      { AUTO_FIX_PUBLIC_URL: "http://fix.example.com", NODE_ENV: "production" },
      /must be https in production/,
    ],
    [{ AUTO_FIX_PUBLIC_URL: "https://fix.example.com", NODE_ENV: "production" }, null],
  ];
  for (const [env, message] of cases) {
    const errors = errorsOf(settingsProblems(readWebhookSettings(env)));
    if (message === null) assert.deepEqual(errors, [], JSON.stringify(env));
    else
      assert.ok(
        errors.some((e) => message.test(e)),
        `${JSON.stringify(env)}: ${errors.join("; ")}`,
      );
  }
  const prodProxy = settingsProblems(
    readWebhookSettings({ WEBHOOK_PROXY_URL: "https://smee.io/x", NODE_ENV: "production" }),
  );
  assert.deepEqual(errorsOf(prodProxy), []);
  assert.ok(prodProxy.some((p) => p.level === "warning" && /use AUTO_FIX_PUBLIC_URL/.test(p.message)));
});

test("the URL GitHub has is compared with what the settings say", () => {
  const none = readWebhookSettings({});
  const pub = readWebhookSettings({ AUTO_FIX_PUBLIC_URL: "https://fix.example.com" });
  const proxy = readWebhookSettings({ WEBHOOK_PROXY_URL: "https://smee.io/abc" });
  const prod = readWebhookSettings({ NODE_ENV: "production" });
  const cases: [string | null, ReturnType<typeof readWebhookSettings>, RegExp | null][] = [
    [null, none, /has no webhook URL/],
    ["http://localhost:3000/", none, /loopback address, which GitHub cannot reach/],
    ["http://localhost:3000/", none, /whose path \/ is not the one this server answers/],
    ["https://fix.example.com/api/github/webhooks", none, null],
    [
      "https://fix.example.com/",
      none,
      /set the app's webhook URL to https:\/\/fix\.example\.com\/api\/github\/webhooks/,
    ],
    ["https://fix.example.com/api/github/webhooks/", pub, null],
    [
      "https://other.example.com/api/github/webhooks",
      pub,
      /but AUTO_FIX_PUBLIC_URL \+ WEBHOOK_PATH says https:\/\/fix\.example\.com/,
    ],
    ["https://smee.io/abc", proxy, null],
    ["https://smee.io/zzz", proxy, /but WEBHOOK_PROXY_URL says https:\/\/smee\.io\/abc/],
    ["https://smee.io/abc", none, /WEBHOOK_PROXY_URL is not set, so nothing forwards them here/],
    ["http://fix.example.com/api/github/webhooks", prod, /over plain http/],
    ["not a url", none, /is not a URL/],
  ];
  for (const [registered, settings, message] of cases) {
    const errors = errorsOf(registeredHookProblems(registered, settings));
    if (message === null) assert.deepEqual(errors, [], String(registered));
    else
      assert.ok(
        errors.some((e) => message.test(e)),
        `${registered}: ${errors.join("; ")}`,
      );
  }
});

test("a GitHub that cannot be asked leaves the webhook state unknown, not broken", async () => {
  const settings = readWebhookSettings({});
  const down = await checkRegisteredHook(async () => {
    throw new Error("connect ECONNREFUSED");
  }, settings);
  assert.equal(down.status.ok, null);
  assert.match(
    down.status.detail,
    /could not read the app's webhook URL from GitHub: cannot reach GitHub's API at https:\/\/api\.github\.com: ECONNREFUSED/,
  );
  assert.equal(down.github.ok, false, "GitHub itself is reported as unreachable");
  const good = await checkRegisteredHook(
    async () => ({ url: "https://fix.example.com/api/github/webhooks" }),
    settings,
  );
  assert.deepEqual(good.status, {
    ok: true,
    url: "https://fix.example.com/api/github/webhooks",
    detail: "GitHub delivers to https://fix.example.com/api/github/webhooks",
  });
});

test("a call to GitHub that failed on the network reads as 'cannot reach', a real HTTP error as the status", () => {
  const api = "https://ghe.example.com/api/v3";
  // Octokit's shape: status 500 carrying the network error's words.
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { status: 500 });
  assert.match(describeGitHubError(refused, api), /^cannot reach GitHub's API at .*: ECONNREFUSED;/);
  const slow = Object.assign(new Error("The operation was aborted due to timeout"), { status: 500 });
  assert.match(describeGitHubError(slow, api), /^cannot reach GitHub's API at .*: no answer in time;/);
  const broken = Object.assign(new Error("Internal Server Error"), { status: 500 });
  assert.match(describeGitHubError(broken, api), /answered HTTP 500: Internal Server Error$/);
  const denied = Object.assign(new Error("Bad credentials"), { status: 401 });
  assert.match(describeGitHubError(denied, api), /refused the app's credentials \(HTTP 401\)/);
});
