/**
 * Acknowledgement latency under load: signed `issues.labeled` deliveries at --rate per second for
 * --seconds, each for a different issue, with the embedded store and with Redis (a real redis-server with
 * an append-only file). Prints median, p99 and max per store, and how many jobs were stored.
 *
 *   npm run bench:load -- [--rate 200] [--seconds 10] [--backend embedded|redis|all] [--target app|minimal]
 *                         [--busy none|host|sandbox|all]
 *
 * --busy: while the deliveries arrive, another job's tests spin every core (two busy loops per CPU):
 * `host` runs them as plain host processes (what an unlimited job would do), `sandbox` in the real
 * bubblewrap sandbox with the operator's ceilings (a CPU quota, a low CPU share, nice 10); `all` measures
 * none, host and sandbox in turn.
 *
 * --target app (default): the GitHub App's Probot server (the real webhook handler: signature, payload
 * checks, enqueue; the GitHub reads happen in the worker, through a fake GitHub REST API on loopback),
 * with no jobs running. --target minimal: a bare HTTP server that verifies the signature and enqueues.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createJobQueue } from "../src/jobs/create-queue.ts";
import { startRedis } from "../test/jobs/support/redis-server.ts";
import { type Delivery, percentile, runLoad, signedDelivery } from "./support/load.ts";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    backend: { type: "string", default: "all" },
    target: { type: "string", default: "app" },
    busy: { type: "string", default: "none" },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const target = values.target === "minimal" ? "minimal" : "app";
const SECRET = "bench-secret";
const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as Array<{
  name: string;
  examples: Array<Record<string, unknown>>;
}>;
const labeled = examples.find((e) => e.name === "issues")!.examples.find((e) => e.action === "labeled")!;

function deliveries(count: number, firstIssue: number): Delivery[] {
  return Array.from({ length: count }, (_, i) => {
    const p = structuredClone(labeled) as Record<string, Record<string, unknown>>;
    p.issue = {
      ...p.issue,
      number: firstIssue + i,
      state: "open",
      locked: false,
      labels: [{ name: "auto-fix" }],
    };
    p.label = { ...p.label, name: "auto-fix" };
    p.repository = {
      ...p.repository,
      name: "calc",
      full_name: "octo-org/calc",
      owner: { ...(p.repository?.owner as object), login: "octo-org" },
      clone_url: "http://127.0.0.1:9/octo-org/calc.git",
      default_branch: "main",
    };
    p.sender = { ...p.sender, login: "mona", type: "User" };
    p.installation = { id: 4242 };
    return signedDelivery("issues", p, SECRET);
  });
}

function until(proc: ChildProcess, re: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = out.match(re);
      if (m) {
        proc.stdout?.off("data", onData);
        proc.stdout?.resume();
        resolve(m);
      }
    };
    proc.stdout?.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`exited with ${code} before printing ${re}: ${out}`)));
  });
}

async function startServer(
  env: Record<string, string>,
  githubHost: string | null,
): Promise<{ url: string; proc: ChildProcess }> {
  if (target === "minimal") {
    const proc = spawn(process.execPath, [here("./support/ack-server.ts")], {
      env: { ...process.env, ...env, WEBHOOK_SECRET: SECRET },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [, port] = await until(proc, /listening (\d+)/);
    return { url: `http://127.0.0.1:${port}/`, proc };
  }
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const proc = spawn(
    process.execPath,
    [here("../test/jobs/support/app-child.ts"), JSON.stringify({ role: "server", noWorkers: true })],
    {
      env: {
        PATH: process.env.PATH ?? "",
        APP_ID: "1",
        PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
        WEBHOOK_SECRET: SECRET,
        GHE_HOST: githubHost ?? "",
        GHE_PROTOCOL: "http",
        AUTO_FIX_WORK_DIR: join(env.AUTO_FIX_DATA_DIR ?? tmpdir(), "work"),
        AUTO_FIX_MAX_RUNS_PER_REPO_PER_DAY: "1000000",
        LOG_LEVEL: "warn",
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [, url] = await until(proc, /listening (http:\/\/\S+)/);
  return { url: `${url}/api/github/webhooks`, proc };
}

let nextIssue = 1000;

/** Another job spinning every core while the deliveries arrive; stopped by the returned function. */
async function startBusy(kind: string): Promise<() => void> {
  if (kind === "host") {
    const procs = Array.from({ length: availableParallelism() * 2 }, () =>
      spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }),
    );
    await new Promise((r) => setTimeout(r, 500));
    return () => {
      for (const p of procs) p.kill("SIGKILL");
    };
  }
  const proc = spawn(process.execPath, [here("./support/busy-sandbox.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await until(proc, /spinning/);
  await new Promise((r) => setTimeout(r, 500));
  return () => proc.kill("SIGTERM");
}

async function measure(label: string, env: Record<string, string>, githubHost: string | null): Promise<void> {
  for (const busy of values.busy === "all" ? ["none", "host", "sandbox"] : [values.busy ?? "none"]) {
    const stopBusy = busy === "none" ? () => {} : await startBusy(busy);
    try {
      // Each measurement stores its jobs in a store of its own, so the count is this one's.
      const own = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [k, /DATA_DIR$/.test(k) ? join(v, busy) : v]),
      );
      await measureOnce(busy === "none" ? label : `${label}, busy ${busy}`, own, githubHost);
    } finally {
      stopBusy();
    }
  }
}

async function measureOnce(
  label: string,
  env: Record<string, string>,
  githubHost: string | null,
): Promise<void> {
  const server = await startServer(env, githubHost);
  try {
    const url = new URL(server.url);
    await runLoad(url, deliveries(50, nextIssue), 100); // warm-up
    nextIssue += 50;
    const r = await runLoad(url, deliveries(rate * seconds, nextIssue), rate);
    nextIssue += rate * seconds;
    const sorted = [...r.latenciesMs].sort((a, b) => a - b);
    const f = (n: number): string => n.toFixed(2);
    process.stdout.write(
      `${label.padEnd(40)} sent ${r.sent} in ${r.wallSeconds.toFixed(1)} s, statuses ${JSON.stringify(r.statuses)}, ` +
        `errors ${r.errors}${r.errors ? ` ${JSON.stringify(r.errorCodes)}` : ""}; ack latency ms: median ${f(percentile(sorted, 50))}, p99 ${f(percentile(sorted, 99))}, ` +
        `max ${f(sorted[sorted.length - 1] ?? Number.NaN)}\n`,
    );
    const store = createJobQueue({
      dataDir: env.AUTO_FIX_DATA_DIR ?? env.ACK_BACKEND_DATA_DIR ?? "",
      redisUrl: env.REDIS_URL,
    });
    // Each delivery's job is stored once its sender's access was checked, right after the answer: wait
    // until the count stops growing.
    let counts = await store.counts?.();
    for (let last = -1; counts && counts.queued !== last; ) {
      last = counts.queued;
      await new Promise((r) => setTimeout(r, 1000));
      counts = await store.counts?.();
    }
    await store.close?.();
    process.stdout.write(
      `${"".padEnd(40)} jobs stored: ${counts?.queued ?? "?"} queued (${r.sent} sent + 50 warm-up)\n`,
    );
  } finally {
    server.proc.kill("SIGTERM");
  }
}

const work = await mkdtemp(join(tmpdir(), "af-bench-"));
let github: ChildProcess | null = null;
try {
  let githubHost: string | null = null;
  if (target === "app") {
    github = spawn(
      process.execPath,
      [here("./support/fake-github-child.ts"), String(rate * seconds * 3 + 200)],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    githubHost = (await until(github, /github (\S+)/))[1]!;
  }
  process.stdout.write(
    `ack-load (${target === "app" ? "the app's Probot server" : "verify-and-enqueue server"}): ${rate} deliveries/s ` +
      `for ${seconds} s on loopback, node ${process.version}\n`,
  );
  const dirEnv = (dir: string): Record<string, string> =>
    target === "app" ? { AUTO_FIX_DATA_DIR: dir } : { ACK_BACKEND_DATA_DIR: dir };
  if (values.backend === "all" || values.backend === "embedded") {
    await measure("embedded (sqlite, FULL sync)", dirEnv(join(work, "embedded")), githubHost);
  }
  if (values.backend === "all" || values.backend === "redis") {
    for (const fsync of ["everysec", "always"]) {
      const dir = await mkdtemp(join(work, `redis-${fsync}-`));
      const redis = await startRedis({ fsync: fsync as "always" | "everysec" });
      try {
        await measure(`redis (aof ${fsync})`, { REDIS_URL: redis.url, ...dirEnv(dir) }, githubHost);
      } finally {
        await redis.stop();
      }
    }
  }
} finally {
  github?.kill("SIGTERM");
  await rm(work, { recursive: true, force: true });
}
