/**
 * SIGTERM to `npm start` (what a process manager or `kill` sends to the command it started) stops the
 * app: no process of it is left, and nothing listens on its port afterwards.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { dirname } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { descendants } from "../../src/core/kill-tree.ts";
import { tempDir } from "../support/temp.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const hasNpm = (() => {
  try {
    execFileSync("npm", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const c = connect(port, "127.0.0.1");
    c.once("connect", () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("SIGTERM to npm start stops the app: no process left, nothing listening", {
  skip: !hasNpm && "npm is not installed",
}, async () => {
  const port = await freePort();
  const npm = spawn("npm", ["start"], {
    cwd: ROOT,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: tempDir("auto-fix-npm-home-"),
      PORT: String(port),
      NO_SMEE_SETUP: "true",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  npm.stdout.on("data", (c: Buffer) => (output += c));
  npm.stderr.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<void>((r) => npm.once("exit", () => r()));
  let tree: number[] = [];
  try {
    assert.ok(await until(() => listening(port), 60_000), `the app never listened on ${port}:\n${output}`);
    tree = descendants(npm.pid!).filter((p) => p !== npm.pid);
    assert.ok(tree.length > 0, "npm started the app in a process of its own");
    npm.kill("SIGTERM");
    await exited;
    const stopped = await until(async () => !(await listening(port)) && tree.every((p) => !alive(p)), 15_000);
    assert.ok(
      stopped,
      `after SIGTERM to npm: listening ${await listening(port)}, alive ${tree.filter(alive)}\n${output}`,
    );
  } finally {
    for (const p of [...descendants(npm.pid!), ...tree]) {
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});
