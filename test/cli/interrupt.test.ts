/**
 * Ctrl-C on a real terminal (a pseudo-terminal), at several stages of `auto-fix fix`: the first stops the
 * run within seconds (the model call in flight or the sandboxed command and its process tree), writes the
 * report naming the stage, exits 130; the second quits at once and still writes the report. No run,
 * finished, failed or interrupted, leaves a folder in its (private) TMPDIR.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fence, promptKind, verdict } from "../review/helpers.ts";
import { agentScript, patchAnswer, roleOf, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES } from "../support/fix-harness.ts";
import { runOnTerminal } from "../support/pty.ts";
import { type ScriptHandler, startScriptedModel } from "../support/scripted-model.ts";
import { BIN } from "./support.ts";

const repo = join(FIX_FIXTURES, "py-stats");
const BUGGY = "    return sum(values) / (len(values) - 1)";
const FIXED = "    return sum(values) / len(values)";
const REPRO =
  "from stats.summary import mean\nresult = mean([2, 4, 6])\nassert result == 4, f'expected 4, got {result}'\n";

/** The whole repair: a reproducer, one search, one patch, an approving review. */
function goodScript(): ScriptHandler {
  const agents = agentScript({
    search: [
      searchSays("Found it.", {
        bug_locations: [{ file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len." }],
      }),
    ],
    patch: [patchAnswer("stats/summary.py", BUGGY, FIXED)],
  });
  return (req, i) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write" || kind === "repro-feedback" || kind === "rewrite-test")
      return fence("python", REPRO);
    if (kind === "review" || kind === "review-retry") return verdict("yes", "yes");
    return agents(req, i);
  };
}

/** A fresh cwd and a private, empty TMPDIR (traversable, as the sandbox needs). */
function place(t: { after: (fn: () => void) => void }) {
  const cwd = mkdtempSync(join(tmpdir(), "auto-fix-interrupt-"));
  const tmp = join(cwd, "tmp");
  execFileSync("mkdir", ["-p", tmp]);
  chmodSync(cwd, 0o755);
  chmodSync(tmp, 0o777);
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  return { cwd, tmp, out: join(cwd, "out") };
}

function start(baseURL: string, where: ReturnType<typeof place>, extra: string[] = [], dir = repo) {
  return runOnTerminal(
    [
      process.execPath,
      BIN,
      "fix",
      "--repo",
      dir,
      "--issue",
      join(dir, "issue.md"),
      "--out",
      where.out,
      ...extra,
    ],
    {
      cwd: where.cwd,
      env: {
        PATH: process.env.PATH,
        HOME: where.cwd,
        TMPDIR: where.tmp,
        TERM: "xterm",
        OPENAI_BASE_URL: baseURL,
        AUTO_FIX_MODEL: "gpt-4o-mini",
        AUTO_FIX_CACHE_DIR: join(where.cwd, "cache"),
        AUTO_FIX_SETUP_CACHE: "off",
      },
    },
  );
}

/** `sleep <seconds>` processes (the sandboxed test command's first part), by pid. */
function sleeping(seconds: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv[0]?.split("/").pop() === "sleep" && argv[1] === seconds) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Exit within a generous bound: the report written, naming the interruption and the stage; TMPDIR empty. */
async function interrupted(
  run: ReturnType<typeof start>,
  where: ReturnType<typeof place>,
  label: string,
): Promise<string> {
  const pressed = Date.now();
  const code = await run.exited;
  const seconds = (Date.now() - pressed) / 1000;
  console.log(`${label}: exited ${code} ${seconds.toFixed(1)} s after Ctrl-C`);
  assert.equal(code, 130, run.output().slice(-3000));
  assert.ok(seconds < 20, `${label}: took ${seconds} s to stop`);
  const report = readFileSync(join(where.out, "report.md"), "utf8");
  const stage = /the run was interrupted during the ([a-z-]+) stage/.exec(report)?.[1];
  assert.ok(stage, `${label}: the report names the interruption and its stage:\n${report.slice(0, 2000)}`);
  assert.deepEqual(readdirSync(where.tmp), [], `${label}: nothing left in TMPDIR`);
  return stage;
}

test("Ctrl-C during the search stops the model call at once; the report says so; TMPDIR is left empty", async (t) => {
  let asked!: () => void;
  const searching = new Promise<void>((r) => {
    asked = r;
  });
  const script = goodScript();
  const server = await startScriptedModel((req, i) => {
    if (roleOf(req) === "search") {
      asked();
      return { content: "Let me look.", delayMs: 60_000 };
    }
    return script(req, i);
  });
  t.after(() => server.close());
  const where = place(t);
  const run = start(server.baseURL, where);
  await searching;
  run.press("\x03");
  assert.equal(await interrupted(run, where, "search"), "search");
  assert.match(run.output(), /interrupted; stopping and writing the report/);
});

test("Ctrl-C while the repository's tests run in the sandbox kills them and their processes", async (t) => {
  const server = await startScriptedModel(goodScript());
  t.after(() => server.close());
  const where = place(t);
  const marker = `${40 + Math.floor(Math.random() * 10)}.${process.pid}`;
  const run = start(server.baseURL, where, ["--test-cmd", `sleep ${marker}; python -m pytest -q`]);
  await until(() => sleeping(marker).length > 0 || run.child.exitCode !== null, 120_000, "the test command");
  assert.equal(run.child.exitCode, null, run.output().slice(-3000));
  // The status line names the command running and how long it has run.
  await run.waitFor(
    new RegExp(`running \`sleep ${marker.replace(".", "\\.")}; python -m pytest -q\` \\(\\d+ s so far`),
    10_000,
  );
  run.press("\x03");
  const stage = await interrupted(run, where, "sandboxed tests");
  assert.ok(["reproduce", "review", "validate"].includes(stage), stage);
  assert.deepEqual(sleeping(marker), [], "the sandboxed command is gone");
});

test("a second Ctrl-C quits at once and still writes the report; TMPDIR is left empty", async (t) => {
  // A repository of many files: its private copy takes seconds, and the copy does not stop for Ctrl-C,
  // so the second Ctrl-C arrives while the first is still waiting for the copy to end.
  const where = place(t);
  const big = join(where.cwd, "big");
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(big, "data", String(d)), { recursive: true });
    for (let f = 0; f < 300; f++) writeFileSync(join(big, "data", String(d), `${f}.txt`), `${d}/${f}\n`);
  }
  writeFileSync(join(big, "issue.md"), "# mean() is wrong\n\nIt divides by the wrong count.\n");
  const server = await startScriptedModel(goodScript());
  t.after(() => server.close());
  const run = start(server.baseURL, where, [], big);
  await run.waitFor(/auto-fix: workspace/, 60_000);
  run.press("\x03");
  await run.waitFor(/interrupted; stopping/, 10_000);
  run.press("\x03");
  assert.equal(await interrupted(run, where, "second Ctrl-C"), "workspace");
  assert.match(run.output(), /quitting now/);
});

test("a finished run and a failed run leave TMPDIR as they found it", async (t) => {
  const server = await startScriptedModel(goodScript());
  t.after(() => server.close());
  const where = place(t);
  const run = start(server.baseURL, where);
  const code = await run.exited;
  assert.equal(code, 0, run.output().slice(-3000));
  assert.ok(existsSync(join(where.out, "report.md")));
  assert.deepEqual(readdirSync(where.tmp), [], "finished run: nothing left in TMPDIR");

  const broken = await startScriptedModel(() => ({
    status: 400,
    body: { error: { message: "no such model" } },
  }));
  t.after(() => broken.close());
  const failed = place(t);
  const second = start(broken.baseURL, failed);
  const failedCode = await second.exited;
  assert.notEqual(failedCode, 0, second.output().slice(-3000));
  assert.deepEqual(readdirSync(failed.tmp), [], "failed run: nothing left in TMPDIR");
});

/** `issue --dry-run` on a checkout of the fixture, Ctrl-C pressed `presses` times during the search. */
async function issueInterrupted(t: { after: (fn: () => void) => void }, presses: 1 | 2): Promise<void> {
  const where = place(t);
  const checkout = join(where.cwd, "stats");
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  execFileSync("cp", ["-r", repo, checkout]);
  const git = (args: string[]) =>
    execFileSync("git", ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", ...args], {
      cwd: checkout,
      env,
    });
  git(["init", "-q", "-b", "main"]);
  git(["add", "-A"]);
  git(["commit", "-q", "-m", "Initial commit"]);
  let asked!: () => void;
  const searching = new Promise<void>((r) => {
    asked = r;
  });
  const script = goodScript();
  const server = await startScriptedModel((req, i) => {
    if (roleOf(req) === "search") {
      asked();
      return { content: "Let me look.", delayMs: 60_000 };
    }
    return script(req, i);
  });
  t.after(() => server.close());
  const dry = join(where.cwd, "dry");
  const run = runOnTerminal(
    [process.execPath, BIN, "issue", checkout, "--issue", join(checkout, "issue.md"), "--dry-run", dry],
    {
      cwd: where.cwd,
      env: {
        PATH: process.env.PATH,
        HOME: where.cwd,
        TMPDIR: where.tmp,
        TERM: "xterm",
        OPENAI_BASE_URL: server.baseURL,
        AUTO_FIX_MODEL: "gpt-4o-mini",
        AUTO_FIX_CACHE_DIR: join(where.cwd, "cache"),
        AUTO_FIX_SETUP_CACHE: "off",
      },
    },
  );
  await searching;
  // What the pipeline is doing is on the terminal while it runs.
  await run.waitFor(/auto-fix issue: pipeline: search/, 10_000);
  run.press("\x03");
  const pressed = Date.now();
  if (presses === 2) {
    await run.waitFor(/interrupted; stopping the run/, 5000);
    run.press("\x03");
  }
  const code = await run.exited;
  const seconds = (Date.now() - pressed) / 1000;
  console.log(`issue --dry-run, ${presses} Ctrl-C: exited ${code} ${seconds.toFixed(1)} s after Ctrl-C`);
  assert.equal(code, 130, run.output().slice(-3000));
  assert.ok(seconds < 20, `took ${seconds} s to stop`);
  const reports = execFileSync("find", [dry, "-name", "report.md"], { encoding: "utf8" }).trim().split("\n");
  assert.ok(reports[0], `the pipeline wrote its report:\n${run.output().slice(-2000)}`);
  assert.match(readFileSync(reports[0]!, "utf8"), /the run was interrupted during the search stage/);
  assert.deepEqual(readdirSync(where.tmp), [], "nothing left in TMPDIR");
}

test("issue --dry-run: Ctrl-C stops the pipeline, which writes its report; exit 130; TMPDIR is left empty", (t) =>
  issueInterrupted(t, 1));

test("issue --dry-run: a second Ctrl-C quits at once; the pipeline still writes its report; TMPDIR is left empty", (t) =>
  issueInterrupted(t, 2));
