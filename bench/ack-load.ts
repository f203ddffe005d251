/**
 * Acknowledgement latency under load: signed `issues.labeled` deliveries at --rate per second for
 * --seconds against a server that verifies, stores the job and acknowledges; with the embedded store and
 * with Redis (a real redis-server with an append-only file). Prints median, p99 and max per backend.
 *
 *   npm run bench:load -- [--rate 200] [--seconds 10] [--backend embedded|redis|all]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createJobQueue } from "../src/jobs/create-queue.ts";
import { type Delivery, percentile, runLoad, signedDelivery } from "./support/load.ts";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    backend: { type: "string", default: "all" },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const SECRET = "bench-secret";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as Array<{
  name: string;
  examples: Array<Record<string, unknown>>;
}>;
const labeled = examples
  .find((e) => e.name === "issues")!
  .examples.find((e) => e.action === "labeled") as Record<string, { number?: number; name?: string }>;

function deliveries(count: number, firstIssue = 1000): Delivery[] {
  return Array.from({ length: count }, (_, i) => {
    const payload = structuredClone(labeled);
    payload.issue = { ...payload.issue, number: firstIssue + i };
    payload.label = { ...payload.label, name: "auto-fix" };
    return signedDelivery("issues", payload, SECRET);
  });
}

async function until(proc: ChildProcess, re: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = out.match(re);
      if (m) resolve(m);
    });
    proc.once("exit", (code) => reject(new Error(`exited with ${code} before printing ${re}: ${out}`)));
  });
}

async function startRedis(dir: string, fsync: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = spawn(
    "/usr/bin/redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "yes",
      "--appendfsync",
      fsync,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await until(proc, /Ready to accept connections/);
  return { url: `redis://127.0.0.1:${port}`, proc };
}

async function measure(label: string, env: Record<string, string>): Promise<void> {
  const server = spawn(
    process.execPath,
    [fileURLToPath(new URL("./support/ack-server.ts", import.meta.url))],
    {
      env: { ...process.env, ...env, WEBHOOK_SECRET: SECRET },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const [, port] = await until(server, /listening (\d+)/);
    const url = new URL(`http://127.0.0.1:${port}/`);
    await runLoad(url, deliveries(50, 900_000), 100); // warm-up, on other issues
    const r = await runLoad(url, deliveries(rate * seconds), rate);
    const sorted = [...r.latenciesMs].sort((a, b) => a - b);
    const f = (n: number): string => n.toFixed(2);
    process.stdout.write(
      `${label.padEnd(28)} sent ${r.sent} in ${r.wallSeconds.toFixed(1)} s, statuses ${JSON.stringify(r.statuses)}, ` +
        `errors ${r.errors}; ack latency ms: median ${f(percentile(sorted, 50))}, p99 ${f(percentile(sorted, 99))}, ` +
        `max ${f(sorted[sorted.length - 1] ?? Number.NaN)}\n`,
    );
    const store = createJobQueue({ dataDir: env.ACK_BACKEND_DATA_DIR ?? "", redisUrl: env.REDIS_URL });
    const counts = await store.counts?.();
    await store.close?.();
    process.stdout.write(
      `${"".padEnd(28)} jobs stored: ${counts?.queued ?? "?"} queued (${r.sent} sent + 50 warm-up)\n`,
    );
  } finally {
    server.kill("SIGTERM");
  }
}

const work = await mkdtemp(join(tmpdir(), "af-bench-"));
try {
  process.stdout.write(
    `ack-load: ${rate} deliveries/s for ${seconds} s on loopback, node ${process.version}\n`,
  );
  if (values.backend === "all" || values.backend === "embedded") {
    await measure("embedded (sqlite, FULL sync)", { ACK_BACKEND_DATA_DIR: join(work, "embedded") });
  }
  if (values.backend === "all" || values.backend === "redis") {
    for (const fsync of ["everysec", "always"]) {
      const dir = await mkdtemp(join(work, `redis-${fsync}-`));
      const redis = await startRedis(dir, fsync);
      try {
        await measure(`redis (aof ${fsync})`, { REDIS_URL: redis.url, ACK_BACKEND_DATA_DIR: dir });
      } finally {
        redis.proc.kill("SIGTERM");
      }
    }
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
