/**
 * `npm start` as a real process: `node src/app/start.ts` in a working directory of the test's own (where
 * `.env` is read and written), on a free port of 127.0.0.1, with only the environment the test gives.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort } from "../../../src/app/server.ts";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const START = fileURLToPath(new URL("../../../src/app/start.ts", import.meta.url));

export interface AppProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** The JSON log lines so far (with LOG_FORMAT=json). */
  logs(): Record<string, unknown>[];
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startApp(
  env: NodeJS.ProcessEnv,
  options: { cwd: string; port?: number },
): Promise<AppProcess> {
  // A free port is free when it is picked, not always when the app binds it: another test file running
  // beside this one may take it in between. Only a port of our own choosing is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, options.cwd, options.port ?? (await freePort()));
    } catch (err) {
      const taken = err instanceof PortTakenError;
      if (!taken || options.port !== undefined || attempt >= 5) throw taken ? err.cause : err;
    }
  }
}

class PortTakenError extends Error {}

/** Whether process `pid` holds the socket listening on TCP `port` (Linux: /proc's socket table and fds). */
function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith("socket:[")) inodes.add(link.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return false;
  }
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address, state 0A (LISTEN), inode
      if (f[1]?.endsWith(hex) && f[3] === "0A" && inodes.has(f[9] ?? "")) return true;
    }
  }
  return false;
}

async function startOnce(env: NodeJS.ProcessEnv, cwd: string, port: number): Promise<AppProcess> {
  const options = { cwd };
  const child = spawn(process.execPath, [START], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: options.cwd,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
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
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const url = `http://127.0.0.1:${port}`;
  const logs = () =>
    output
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  const app: AppProcess = {
    url,
    port,
    child,
    output: () => output,
    logs,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return await exited;
    },
  };
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) {
      const err = new Error(`app exited (${child.exitCode}): ${output}`);
      if (/EADDRINUSE|already in use/.test(output)) throw new PortTakenError("port taken", { cause: err });
      throw err;
    }
    // Only once this very process listens on the port: a server of another test file that took the
    // port in between would answer the ping too.
    if (!listensOn(child.pid, port)) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    // Bounded: whatever else may hold the port must not hold the test.
    const ok = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return app;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`app did not start: ${output}`);
}

/** Waits until `probe` is true, polling (bounded: fails with `what` after about a minute). */
export async function until(
  what: string,
  probe: () => boolean | Promise<boolean>,
  tries = 2400,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** An `issues.labeled` body for issue `number` of o/r, as GitHub sends it (the fields the app reads). */
export function labeledPayload(
  number: number,
  cloneUrl: string,
  label: string,
  sender: string,
  repo = { owner: "o", name: "r" },
): string {
  return JSON.stringify({
    action: "labeled",
    label: { name: label },
    issue: { number, title: "t", body: "b", state: "open", locked: false, user: { login: "x" } },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      clone_url: cloneUrl,
      default_branch: "main",
    },
    sender: { login: sender, type: "User" },
    installation: { id: 1 },
  });
}

export const signature = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** POSTs an `issues` webhook signed with `secret` to `url` (the full webhook URL). */
export function deliverIssues(
  url: string,
  secret: string,
  deliveryId: string,
  payload: string,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": deliveryId,
      "x-hub-signature-256": signature(secret, payload),
    },
    body: payload,
  });
}
