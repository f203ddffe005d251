/** Liveness of lease holders from /proc, and held deliveries of a dead process taken up at once. */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { processAlive, readProcessStat } from "../../src/core/processes.ts";
import { ownerIsDeadLocal } from "../../src/jobs/liveness.ts";
import { SqliteJobQueue } from "../../src/jobs/sqlite-queue.ts";
import { waitFor } from "./support/wait.ts";

const QUEUE = fileURLToPath(new URL("../../src/jobs/sqlite-queue.ts", import.meta.url));

/** A `sleep` whose parent (another `sleep`) never reaps it; returns both. */
async function unreapedSleep(): Promise<{ parent: ChildProcess; pid: number }> {
  const parent = spawn("/bin/sh", ["-c", "sleep 600 & exec sleep 600"], { stdio: "ignore" });
  const pid = await waitFor("the child sleep", () => {
    const ppid = parent.pid!;
    // Once the shell has become the parent sleep, its one child is the other sleep.
    if (!readFileSync(`/proc/${ppid}/cmdline`, "utf8").startsWith("sleep")) return undefined;
    const kids = readFileSync(`/proc/${ppid}/task/${ppid}/children`, "utf8").trim().split(/\s+/);
    return kids[0] ? Number(kids[0]) : undefined;
  });
  return { parent, pid };
}

async function end(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((resolve) => p.once("exit", resolve));
  p.kill("SIGKILL");
  await exited;
}

test("a zombie, a vanished pid and a reused pid are dead; a running process with its start time is alive", async () => {
  const { parent, pid } = await unreapedSleep();
  try {
    const stat = readProcessStat(pid);
    assert.ok(stat, "the child runs");
    assert.equal(processAlive(pid, stat.startTime), true);
    assert.equal(processAlive(pid), true);
    // The same pid with another start time is another process: the recorded holder is gone.
    assert.equal(processAlive(pid, String(Number(stat.startTime) + 1)), false);
    const owner = `${hostname()}|${pid}|${stat.startTime}|n`;
    assert.equal(ownerIsDeadLocal(owner, "me"), false);
    assert.equal(ownerIsDeadLocal(`other-host|${pid}|${stat.startTime}|n`, "me"), false, "not ours to judge");
    process.kill(pid, "SIGKILL");
    await waitFor("the zombie", () => readProcessStat(pid)?.state === "Z");
    // kill(pid, 0) still succeeds on a zombie: the reason it is not asked.
    assert.doesNotThrow(() => process.kill(pid, 0));
    assert.equal(processAlive(pid, stat.startTime), false);
    assert.equal(ownerIsDeadLocal(owner, "me"), true);
  } finally {
    await end(parent);
  }
  assert.equal(processAlive(2 ** 22 + 1), false);
  // Owners written before start times were recorded (host|pid|nonce) are still read.
  const self = readProcessStat(process.pid)!;
  assert.equal(ownerIsDeadLocal(`${hostname()}|${process.pid}|${self.startTime}|other-queue`, "me"), false);
  assert.equal(ownerIsDeadLocal(`${hostname()}|${process.pid}|legacy-nonce`, "me"), true);
});

test("held deliveries of a killed process are taken up at once; a live holder's are left alone", async () => {
  const dir = await mkdtemp(join(tmpdir(), "af-held-owner-"));
  const holder = (id: string): ChildProcess =>
    spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { SqliteJobQueue } = await import(${JSON.stringify(QUEUE)});
         const q = new SqliteJobQueue({ dataDir: ${JSON.stringify(dir)} });
         await q.holdDelivery({ deliveryId: ${JSON.stringify(id)}, event: "issues.labeled", payload: { n: 1 } });
         process.stdout.write("held\\n");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
  const held = (p: ChildProcess): Promise<void> =>
    new Promise((resolve, reject) => {
      p.stdout?.on("data", (d: Buffer) => d.toString().includes("held") && resolve());
      p.once("exit", (code) => reject(new Error(`the holder exited (${code})`)));
    });
  const dead = holder("d-dead");
  const live = holder("d-live");
  const q = new SqliteJobQueue({ dataDir: dir });
  try {
    await Promise.all([held(dead), held(live)]);
    await q.holdDelivery({ deliveryId: "d-mine", event: "issues.labeled", payload: {} });
    await end(dead);
    // Two minutes is the app's default wait for held deliveries of a process that may still be working.
    const taken = await q.takeHeldDeliveries(120_000);
    assert.deepEqual(
      taken.map((h) => h.deliveryId),
      ["d-dead"],
    );
    assert.deepEqual(taken[0]?.payload, { n: 1 });
    // Claimed: now ours (alive), so not taken again before its time.
    assert.deepEqual(await q.takeHeldDeliveries(120_000), []);
    assert.deepEqual(
      (await q.takeHeldDeliveries(0)).map((h) => h.deliveryId).sort(),
      ["d-dead", "d-live", "d-mine"],
      "by age, every one is taken",
    );
  } finally {
    await end(dead);
    await end(live);
    await q.close();
    await rm(dir, { recursive: true, force: true });
  }
});
