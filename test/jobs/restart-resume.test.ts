/**
 * Kill the app server with SIGKILL in the middle of a run and start it again at once, ten times in a row.
 * The killed server's parent does not reap it (as a supervisor busy elsewhere, or a shell that has moved
 * on, would not for a while), so the dead server stays a zombie: its pid still answers `kill(pid, 0)`. The
 * restarted server must still see that the lease holder is dead and resume the run at once instead of
 * waiting for the lease (60 s) to expire.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { readProcessStat } from "../../src/core/processes.ts";
import { startWorld, type World } from "./support/app-e2e.ts";
import { waitFor } from "./support/wait.ts";

const CHILD = fileURLToPath(new URL("./support/app-child.ts", import.meta.url));
const LEASE_SECONDS = 60;
const TRIALS = Number(process.env.I17_TRIALS ?? 10);

interface Server {
  /** The parent that never reaps the server (`sleep`, exec'd by the shell that started the server). */
  parent: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts the app server as the child of a process that never waits for it. */
async function startUnreaped(w: World, options: Record<string, unknown>): Promise<Server> {
  const parent = spawn(
    "/bin/sh",
    [
      "-c",
      '"$0" "$@" & exec sleep 600',
      process.execPath,
      CHILD,
      JSON.stringify({ role: "server", logFile: w.logFile, ...options }),
    ],
    { env: w.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  parent.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  parent.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const url = await waitFor(
    "the server to listen",
    () => /listening (http:\/\/\S+)/.exec(out)?.[1],
    30_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${out}`);
  });
  return { parent, url, output: () => out };
}

interface AppEvent {
  event: string;
  issue?: string;
  pid: number;
  t: number;
}

const eventsOf = (w: World): AppEvent[] => w.events() as unknown as AppEvent[];

test("a server killed with SIGKILL (left a zombie) and restarted at once resumes its run at once, ten times", async () => {
  const w = await startWorld({ AUTO_FIX_JOB_LEASE_SECONDS: String(LEASE_SECONDS) });
  const parents: ChildProcess[] = [];
  const serverPids = new Set<number>();
  const hold = join(w.dir, "release");
  const figures: number[] = [];
  try {
    const issues = w.addIssues(TRIALS);
    const titleOf = (k: number): string => `(${k})`;
    const holding = (k: number, notPid?: number) =>
      waitFor(`the run of issue ${k} to hold`, () =>
        eventsOf(w).find((e) => e.event === "holding" && e.issue?.includes(titleOf(k)) && e.pid !== notPid),
      );
    let server = await startUnreaped(w, { holdFile: hold });
    parents.push(server.parent);
    assert.equal(await w.label(server.url, issues[0]!, "restart-0"), 200);
    let victim = (await holding(0)).pid;

    for (let k = 0; k < TRIALS; k++) {
      serverPids.add(victim);
      process.kill(victim, "SIGKILL");
      // The precondition this test is about: the dead server is a zombie, not gone.
      const state = await waitFor("the killed server to become a zombie", () => {
        const s = readProcessStat(victim);
        return s?.state === "Z" ? s.state : undefined;
      });
      assert.equal(state, "Z");
      const killedAt = Date.now();
      writeFileSync(hold, ""); // the resumed run goes through to its pull request
      server = await startUnreaped(w, { holdFile: hold });
      parents.push(server.parent);
      const listeningAt = Date.now();
      const resumed = await waitFor(
        `issue ${k}'s run to resume`,
        () =>
          eventsOf(w).find(
            (e) => e.event === "pipeline" && e.issue?.includes(titleOf(k)) && !serverPids.has(e.pid),
          ),
        LEASE_SECONDS * 1000 + 30_000,
      );
      const ms = resumed.t - killedAt;
      figures.push(ms);
      console.log(
        `restart ${k + 1}: the run resumed ${ms} ms after the kill (${resumed.t - listeningAt} ms after the server listened)`,
      );
      assert.ok(
        ms < (LEASE_SECONDS * 1000) / 2,
        `the run resumed ${ms} ms after the kill: it waited for the lease to expire\n${server.output()}`,
      );
      await waitFor(`issue ${k}'s pull request`, () => w.repo.pulls.size === k + 1, 30_000);
      rmSync(hold);
      if (k + 1 < TRIALS) {
        assert.equal(await w.label(server.url, issues[k + 1]!, `restart-${k + 1}`), 200);
        victim = (await holding(k + 1)).pid;
      } else {
        victim = resumed.pid;
      }
    }
    console.log(`resume after kill (ms): ${figures.join(", ")}`);
    const runs = eventsOf(w).filter((e) => e.event === "pipeline");
    // Each issue ran twice (the killed run and the resumed one), and no other run started.
    assert.equal(runs.length, 2 * TRIALS, readFileSync(w.logFile, "utf8"));
    assert.equal(w.repo.pulls.size, TRIALS);
  } finally {
    for (const p of parents) {
      // The server is the parent's only child: stop it (it becomes a zombie), then its parent.
      for (const pid of p.pid === undefined ? [] : childrenOf(p.pid)) {
        kill(pid, "SIGTERM");
        await waitFor(
          "the server to stop",
          () => readProcessStat(pid)?.state !== "S" && readProcessStat(pid)?.state !== "R",
          15_000,
        ).catch(() => kill(pid, "SIGKILL"));
      }
      const exited = new Promise((resolve) => p.once("exit", resolve));
      if (p.exitCode === null && p.signalCode === null) {
        p.kill("SIGKILL");
        await exited;
      }
      // A process the killed servers started (and that outlived them) may still hold these pipes open;
      // the test must not wait for it.
      p.stdout?.destroy();
      p.stderr?.destroy();
    }
    // Processes that logged an event (servers, pipeline children) and are still running are this test's
    // leftovers: stop them, so nothing outlives the test.
    for (const pid of new Set(eventsOf(w).map((e) => e.pid))) {
      if (pid !== process.pid && readProcessStat(pid) && readProcessStat(pid)?.state !== "Z")
        kill(pid, "SIGKILL");
    }
    await w.close();
  }
});

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
