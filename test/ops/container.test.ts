/**
 * The image's entry script and settings, outside a container (CI has no container engine; the image
 * itself is built and run by `scripts/container-smoke.sh`, see docs/deploying.md): the files the
 * Dockerfile copies are laid out as in the image, and `docker/entrypoint.sh` runs with the environment
 * compose.yaml gives each service (the Dockerfile's ENV, the service's `environment`, the `.env` a user
 * writes). What compose provides is emulated with real parts: the `redis` host is a real redis-server on
 * loopback, volumes and the secret are folders and a file of the test's, fixed ports are free ports.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse as parseYaml } from "yaml";
import { freePort } from "../../src/app/server.ts";
import { startRedis } from "../jobs/support/redis-server.ts";
import { startFakeGitHub } from "../support/fake-github.ts";
import { tempDir } from "../support/temp.ts";
import { deliverIssues, labeledPayload, ROOT, until } from "./support/app-process.ts";
import { modelServer } from "./support/model-endpoint.ts";

const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const compose = parseYaml(readFileSync(join(ROOT, "compose.yaml"), "utf8"), { merge: true }) as {
  services: Record<string, Record<string, unknown>>;
  volumes: Record<string, unknown>;
  secrets: Record<string, { file: string }>;
};

/** The Dockerfile's instructions, continuation lines joined. */
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const finalStage = instructions.slice(instructions.findLastIndex((l) => l.startsWith("FROM ")));

function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of finalStage.filter((l) => l.startsWith("ENV "))) {
    for (const m of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[m[1]!] = m[2]!;
  }
  return env;
}

/** /app as the image has it: what the final stage copies, and the dependencies (the deps stage's). */
function imageApp(): string {
  const root = tempDir("af-image-");
  const app = join(root, "app");
  mkdirSync(app);
  for (const line of finalStage.filter((l) => l.startsWith("COPY ") && !l.includes("--from"))) {
    const parts = line.split(/\s+/).slice(1);
    const dest = parts.pop()!;
    for (const src of parts) {
      const target = dest.endsWith("/") || dest === "./" ? join(app, src) : join(app, dest);
      cpSync(join(ROOT, src), target, { recursive: true });
    }
  }
  symlinkSync(join(ROOT, "node_modules"), join(app, "node_modules"));
  return app;
}

interface Service {
  env: NodeJS.ProcessEnv;
  command: string[];
}

/** A service's environment with compose's names for things replaced by the test's real ones. */
function service(name: string, local: Record<string, string>, dotenv: Record<string, string>): Service {
  const svc = compose.services[name]!;
  const env: Record<string, string> = { ...imageEnv(), ...dotenv };
  for (const [k, v] of Object.entries((svc.environment ?? {}) as Record<string, string>)) env[k] = String(v);
  for (const [k, v] of Object.entries(env)) {
    let value = v;
    for (const [from, to] of Object.entries(local)) value = value.split(from).join(to);
    env[k] = value;
  }
  return {
    env: { ...env, PATH: process.env.PATH, HOME: local["/home/autofix"] ?? "/tmp" },
    command: svc.command as string[],
  };
}

function entry(app: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess & { text: () => string } {
  const child = spawn("sh", [join(app, "docker", "entrypoint.sh"), ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  return Object.assign(child, { text: () => text });
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (c.exitCode !== null) resolve(c.exitCode);
    else c.once("exit", (code) => resolve(code));
  });

test("compose.yaml: Redis as an append-only store, the app, two workers with the sandbox options, health checks and volumes", () => {
  const { services } = compose;
  assert.deepEqual(Object.keys(services).sort(), ["app", "redis", "worker-1", "worker-2"]);
  const redis = (services.redis!.command as string[]).join(" ");
  assert.match(redis, /--appendonly yes/);
  assert.match(redis, /--maxmemory-policy noeviction/);
  for (const [name, svc] of Object.entries(services)) {
    assert.ok(svc.healthcheck, `${name} has a health check`);
    if (name === "redis") continue;
    assert.deepEqual(svc.depends_on, { redis: { condition: "service_healthy" } }, name);
    const env = svc.environment as Record<string, string>;
    assert.equal(env.REDIS_URL, "redis://redis:6379/0", name);
    assert.equal(env.PRIVATE_KEY_PATH, "/run/secrets/github-app-key", name);
    assert.deepEqual(svc.healthcheck, {
      ...(svc.healthcheck as object),
      test: ["CMD", "/app/docker/entrypoint.sh", "health"],
    });
    // SIGKILL only after the app's own grace has passed.
    const grace = Number(env.AUTO_FIX_SHUTDOWN_GRACE_SECONDS);
    assert.ok(Number.parseInt(String(svc.stop_grace_period), 10) > grace, name);
  }
  for (const name of ["worker-1", "worker-2"]) {
    const w = services[name]!;
    assert.deepEqual(w.command, ["worker"]);
    assert.deepEqual(
      [...(w.security_opt as string[])].sort(),
      ["apparmor=unconfined", "seccomp=unconfined", "systempaths=unconfined"],
      `${name}: what bubblewrap needs`,
    );
    assert.equal(w.privileged, undefined, "never privileged");
    assert.equal(w.cap_add, undefined, "no capability added");
    const mounts = (w.volumes as string[]).map((v) => v.split(":")[1]);
    assert.deepEqual(mounts.sort(), ["/cache", "/data"], `${name}: work folders and index cache on volumes`);
  }
  const vols = [
    ...(services["worker-1"]!.volumes as string[]),
    ...(services["worker-2"]!.volumes as string[]),
  ];
  assert.equal(new Set(vols.map((v) => v.split(":")[0])).size, 4, "each worker has its own volumes");
  assert.deepEqual(services.redis!.volumes, ["redis-data:/data"], "the job store on a volume");
});

test("the Dockerfile: Node 24, git, bubblewrap, python3 and tini; a user that is not root; the entry point", () => {
  assert.match(dockerfile, /^ARG NODE_IMAGE=node:24-/m);
  const install = finalStage.find((l) => l.includes("apt-get install")) ?? "";
  for (const pkg of ["bubblewrap", "git", "python3", "ca-certificates", "tini"])
    assert.match(install, new RegExp(`\\b${pkg}\\b`));
  const user = finalStage.filter((l) => l.startsWith("USER ")).at(-1);
  assert.equal(user, "USER autofix");
  assert.match(finalStage.join("\n"), /useradd --uid 10001/);
  assert.equal(
    finalStage.find((l) => l.startsWith("ENTRYPOINT")),
    'ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]',
  );
  assert.ok(
    finalStage.some(
      (l) => l.startsWith("HEALTHCHECK") && l.includes('"/app/docker/entrypoint.sh", "health"'),
    ),
  );
  assert.equal(imageEnv().NODE_ENV, "production");
});

test("the entry script with compose's environment: a worker and the app run, answer /health and stop on SIGTERM", async (t) => {
  const app = imageApp();
  const redis = await startRedis({ fsync: "everysec" });
  const github = await startFakeGitHub();
  github.hookConfig.url = "https://autofix.example.com/api/github/webhooks";
  // A model endpoint that answers: /health is 503 (and the container unhealthy) when no run can work.
  const model = await modelServer(["qwen2.5-coder:7b"]);
  const volumes = tempDir("af-volumes-");
  const keyFile = join(volumes, "github-app.pem");
  writeFileSync(
    keyFile,
    generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs1", format: "pem" })
      .toString(),
  );
  const [appPort, opsPort] = [await freePort(), await freePort()];
  // What the user's .env holds (compose.yaml's header), with GitHub at the fake.
  const dotenv = {
    AUTO_FIX_PUBLIC_URL: "https://autofix.example.com",
    APP_ID: "7",
    WEBHOOK_SECRET: "compose-secret",
    AUTO_FIX_MODEL: "qwen2.5-coder:7b",
    OPENAI_BASE_URL: model.url,
    AUTO_FIX_PRICE_INPUT_PER_MTOK: "0",
    AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0",
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
  };
  const local = (svc: string) => ({
    "redis://redis:6379": redis.url.replace(/\/\d*$/, ""),
    "/run/secrets/github-app-key": keyFile,
    "/data": join(volumes, svc, "data"),
    "/cache": join(volumes, svc, "cache"),
    "0.0.0.0": "127.0.0.1",
    ":9464": `:${opsPort}`,
    "9464": String(opsPort),
    "3000": String(appPort),
  });
  const children: ChildProcess[] = [];
  t.after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    await redis.stop();
    await github.close();
    await model.close();
  });

  const worker = service("worker-1", local("worker-1"), dotenv);
  worker.env.AUTO_FIX_OPS_HOST = "127.0.0.1";
  const w = entry(app, worker.command, worker.env);
  children.push(w);
  const health = () =>
    spawnSync("sh", [join(app, "docker", "entrypoint.sh"), "health"], { env: worker.env, encoding: "utf8" });
  await until("the worker's /health", () => health().status === 0);
  const report = JSON.parse(health().stdout) as {
    role: string;
    queue: { kind: string };
    sandbox: { backend: string };
  };
  assert.deepEqual(
    { role: report.role, queue: report.queue.kind, sandbox: report.sandbox.backend },
    { role: "worker", queue: "redis", sandbox: "bwrap" },
  );

  const server = service("app", local("app"), dotenv);
  const a = entry(app, server.command, server.env);
  children.push(a);
  const appHealth = () =>
    spawnSync("sh", [join(app, "docker", "entrypoint.sh"), "health"], { env: server.env, encoding: "utf8" });
  await until("the app's /health", () => appHealth().status === 0);
  await until("the webhook check", () => /"webhook":\{"ok":true/.test(appHealth().stdout));
  const payload = labeledPayload(1, "http://127.0.0.1:9/o/r.git", "auto-fix", "stranger");
  const res = await deliverIssues(
    `http://127.0.0.1:${appPort}/api/github/webhooks`,
    "compose-secret",
    "d-compose",
    payload,
  );
  assert.equal(res.status, 200, a.text());

  for (const [name, child] of [
    ["worker", w],
    ["app", a],
  ] as const) {
    child.kill("SIGTERM");
    assert.equal(await exited(child), 0, `${name} stopped cleanly:\n${child.text()}`);
  }
  assert.match(w.text(), /worker stopped after/);
  assert.equal(health().status, 1, "nothing answers once stopped");
});

test("the entry script refuses, exit 78, naming the setting or the container option that is missing", () => {
  const app = imageApp();
  const volumes = tempDir("af-volumes-");
  const base = { ...imageEnv(), PATH: process.env.PATH, HOME: volumes, REDIS_URL: "redis://127.0.0.1:1/0" };
  const dirs = { AUTO_FIX_WORK_DIR: join(volumes, "work"), AUTO_FIX_CACHE_DIR: join(volumes, "cache") };
  const check = (env: NodeJS.ProcessEnv, role = "worker", wrap: string[] = []) => {
    const args = [...wrap, "sh", join(app, "docker", "entrypoint.sh"), "check", role];
    return spawnSync(args[0]!, args.slice(1), { env, encoding: "utf8" });
  };
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ ...base, ...dirs }, /APP_ID is not set/],
    [{ ...base, ...dirs, APP_ID: "7" }, /neither PRIVATE_KEY_PATH nor PRIVATE_KEY is set/],
    [
      { ...base, ...dirs, APP_ID: "7", PRIVATE_KEY_PATH: join(volumes, "missing.pem") },
      /PRIVATE_KEY_PATH=.*missing\.pem is not readable/,
    ],
    [{ ...base, ...dirs, APP_ID: "7", PRIVATE_KEY: "k", REDIS_URL: "" }, /a worker needs REDIS_URL/],
    [
      { ...base, ...dirs, APP_ID: "7", PRIVATE_KEY: "k", REDIS_URL: "127.0.0.1:6379" },
      /REDIS_URL must start with redis:\/\//,
    ],
    [
      { ...base, ...dirs, APP_ID: "7", PRIVATE_KEY: "k", AUTO_FIX_WORK_DIR: "/dev/null/work" },
      /AUTO_FIX_WORK_DIR=\/dev\/null\/work is not writable by uid \d+/,
    ],
  ];
  for (const [env, message] of cases) {
    const r = check(env);
    assert.equal(r.status, 78, r.stderr);
    assert.match(r.stderr, message);
  }
  const ok = check({ ...base, ...dirs, APP_ID: "7", PRIVATE_KEY: "k" });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /worker: ready/);
  // A container where no user namespace can be made (what a default seccomp profile or a host with
  // user namespaces off does): bubblewrap's own error, and the options to set.
  const noUserns = check({ ...base, ...dirs, APP_ID: "7", PRIVATE_KEY: "k" }, "worker", [
    "bwrap",
    "--unshare-user",
    "--disable-userns",
    "--dev-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--",
  ]);
  assert.equal(noUserns.status, 78, noUserns.stderr);
  assert.match(
    noUserns.stderr,
    /bubblewrap cannot make a sandbox in this container:\n {4}auto-fix sandbox: /,
  );
  assert.match(noUserns.stderr, /seccomp=unconfined[\s\S]*apparmor=unconfined[\s\S]*systempaths=unconfined/);
  // The app in production without credentials, and with the embedded store and a closed volume.
  const server = check({ ...base, REDIS_URL: "" }, "server");
  assert.equal(server.status, 78);
  assert.match(server.stderr, /APP_ID is not set/);
  const closed = check(
    {
      ...base,
      REDIS_URL: "",
      APP_ID: "7",
      PRIVATE_KEY: "k",
      WEBHOOK_SECRET: "s",
      AUTO_FIX_DATA_DIR: "/dev/null/jobs",
    },
    "server",
  );
  assert.match(closed.stderr, /AUTO_FIX_DATA_DIR=\/dev\/null\/jobs is not writable/);
});
