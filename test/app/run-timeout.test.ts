import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createCliPipeline, describeLimit, runTimeoutMs } from "../../src/issue-run/cli-pipeline.ts";
import { OWNER, REPO, startHarness, type Harness } from "./harness.ts";

// A pipeline that never finishes (a crafted repository's tests, a hung parser) must not hold a worker
// slot: the child runs under a wall-clock limit and is killed with every process it started, including
// one that left its process group, and the status comment says the run timed out.

const work = mkdtempSync(join(tmpdir(), "auto-fix-timeout-"));
const pidFile = join(work, "pids.json");
/** Stands in for `bin/auto-fix.js fix …`: starts a child in its group and one in a session of its own. */
const hangingCli = join(work, "hanging-cli.mjs");
writeFileSync(
  hangingCli,
  `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const inGroup = spawn("sleep", ["600"], { stdio: "ignore" });
const ownSession = spawn("sleep", ["600"], { stdio: "ignore", detached: true });
writeFileSync(${JSON.stringify(pidFile)}, JSON.stringify([process.pid, inGroup.pid, ownSession.pid]));
process.stderr.write("auto-fix: index\\n");
setInterval(() => {}, 1000);
`,
);

/** Alive = listed in /proc and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const text = readFileSync(stat, "utf8");
    return text.slice(text.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

let h: Harness;
before(async () => {
  h = await startHarness({
    pipeline: createCliPipeline({ env: { PATH: process.env.PATH }, cliPath: hangingCli, timeoutMs: 1500 }),
  });
});
after(async () => {
  await h.close();
  if (existsSync(pidFile)) {
    for (const pid of JSON.parse(readFileSync(pidFile, "utf8")) as number[]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone, as the test expects
      }
    }
  }
  rmSync(work, { recursive: true, force: true });
});

test("the limit comes from AUTO_FIX_RUN_TIMEOUT_MINUTES (default 30) and is stated in plain words", () => {
  assert.equal(runTimeoutMs({}), 30 * 60_000);
  assert.equal(runTimeoutMs({ AUTO_FIX_RUN_TIMEOUT_MINUTES: "45" }), 45 * 60_000);
  assert.equal(runTimeoutMs({ AUTO_FIX_RUN_TIMEOUT_MINUTES: "0.5" }), 30_000);
  assert.equal(runTimeoutMs({ AUTO_FIX_RUN_TIMEOUT_MINUTES: "-3" }), 30 * 60_000, "a bad value falls back");
  assert.equal(runTimeoutMs({ AUTO_FIX_RUN_TIMEOUT_MINUTES: "soon" }), 30 * 60_000);
  assert.equal(describeLimit(30 * 60_000), "30 minutes");
  assert.equal(describeLimit(60_000), "60 seconds");
  assert.equal(describeLimit(1500), "2 seconds");
});

test("a run past its wall-clock limit is killed with its whole process tree and the status comment says so", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) returns -1" });
  assert.equal(await h.labeled(issue.number), 200);
  await h.idle();

  const pids = JSON.parse(readFileSync(pidFile, "utf8")) as number[];
  assert.equal(pids.length, 3);
  for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} was left running`);

  const status = h.github.commentsOn(OWNER, REPO, issue.number).find((c) => c.body.includes("timed out"));
  assert.ok(status, "the status comment reports the time-out");
  assert.match(
    status.body,
    /The run timed out after 2 seconds and was stopped, so no pull request was opened\./,
  );
  assert.match(status.body, /AUTO_FIX_RUN_TIMEOUT_MINUTES/);
  assert.equal(h.github.repo(OWNER, REPO).pulls.size, 0, "no pull request");
  const outcome = [...h.outcomes.values()].at(-1);
  assert.equal(outcome?.action, "queued");
});
