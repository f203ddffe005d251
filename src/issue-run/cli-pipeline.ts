import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { killTree } from "../core/kill-tree.ts";
import { RENAMED_SETTINGS } from "../model/config.ts";
import type { Pipeline } from "../contract/app-result.ts";
import { type FixResult, failedResult, parseFixResult } from "../contract/result.ts";

const CLI = fileURLToPath(new URL("../../bin/auto-fix.js", import.meta.url));

/** Environment the pipeline may see: model settings and basics, never the app's key, secret or tokens. */
const PASS_ENV =
  /^(PATH|HOME|LANG|LC_[A-Z]+|TMPDIR|TZ|OPENAI_[A-Z_]+|AZURE_OPENAI_[A-Z_]+|AUTO_FIX_[A-Z_]+|NODE_EXTRA_CA_CERTS)$/;

export function pipelineEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && PASS_ENV.test(k)) out[k] = v;
  return out;
}

/** A progress line `auto-fix fix` prints on stderr when it is not a terminal: `auto-fix: <stage>[ (detail)]`. */
const STAGE_LINE = /^auto-fix: ([a-z][a-z-]*)(?: \((.*)\))?$/;

/**
 * The result the child printed: its stdout is the JSON document (pretty-printed), or ends with it after
 * other output. Checked against the result contract; a refusal says what is wrong with it.
 */
export function readChildResult(
  stdout: string,
): { ok: true; result: FixResult } | { ok: false; message: string } {
  const text = stdout.trim();
  if (text === "") return { ok: false, message: "it printed no result" };
  const whole = parseFixResult(text);
  if (whole.ok) return whole;
  const start = text.lastIndexOf("\n{");
  if (start >= 0) {
    const tail = parseFixResult(text.slice(start + 1));
    if (tail.ok) return tail;
    // The last JSON document decides what is reported (it is the result the child meant).
    if (!tail.message.startsWith("the result is not JSON")) return tail;
  }
  return whole;
}

/** Default wall-clock limit of one pipeline run, in minutes (`AUTO_FIX_RUN_TIMEOUT_MINUTES`). */
export const DEFAULT_RUN_TIMEOUT_MINUTES = 30;
/** Most of the child's stdout kept (the result JSON is its last line); the earlier part is dropped. */
const MAX_STDOUT_CHARS = 32 * 1024 * 1024;
/**
 * The pipeline children running now. If this process exits before they end (a second Ctrl-C), each is
 * asked twice to stop (it then writes its report and removes its temporary folders at once), given a
 * few seconds, and killed with its tree.
 */
const liveRuns = new Set<number>();
process.once("exit", () => {
  if (liveRuns.size === 0) return;
  const nap = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const running = (pid: number): boolean => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  const interrupt = () => {
    for (const pid of liveRuns) {
      try {
        process.kill(pid, "SIGINT");
      } catch {
        // gone
      }
    }
  };
  interrupt();
  nap(200);
  interrupt();
  const end = Date.now() + EXIT_GRACE_MS;
  while (Date.now() < end && [...liveRuns].some(running)) nap(50);
  for (const pid of liveRuns) killTree(pid);
});
/** How long an exiting process waits for its runs to write their reports. */
const EXIT_GRACE_MS = 3000;

/** How long a cancelled run may take to stop and write its report before it is killed. */
const CANCEL_GRACE_MS = 10_000;
/** Longest stderr line read for a progress line; a longer one is skipped. */
const MAX_STAGE_LINE_CHARS = 4096;

/** The run's wall-clock limit from `AUTO_FIX_RUN_TIMEOUT_MINUTES` (minutes, > 0; default 30). */
export function runTimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.AUTO_FIX_RUN_TIMEOUT_MINUTES?.trim();
  const minutes = raw ? Number(raw) : Number.NaN;
  return (Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_RUN_TIMEOUT_MINUTES) * 60_000;
}

/** `30 minutes`, `1 minute`, `90 seconds`: the limit as the status comment states it. */
export function describeLimit(ms: number): string {
  if (ms < 120_000) {
    const s = Math.max(1, Math.round(ms / 1000));
    return `${s} second${s === 1 ? "" : "s"}`;
  }
  const m = Math.round(ms / 60_000);
  return `${m} minute${m === 1 ? "" : "s"}`;
}

/**
 * The pipeline as the command line runs it (`auto-fix fix ... --json`), in a child process of its own:
 * the same code path users run locally, killed with its whole process tree on cancel, and after the
 * run's wall-clock limit (then the result says it timed out).
 */
export function createCliPipeline(options: {
  env: NodeJS.ProcessEnv;
  cliPath?: string;
  /** Wall-clock limit of one run; default from `AUTO_FIX_RUN_TIMEOUT_MINUTES` in `env`. */
  timeoutMs?: number;
  /** Each progress line of the child (`auto-fix: …`, without that prefix), e.g. to show on a terminal. */
  onProgress?: (line: string) => void;
}): Pipeline {
  const limitMs = options.timeoutMs ?? runTimeoutMs(options.env);
  return (req) =>
    new Promise((resolve, reject) => {
      const args = [options.cliPath ?? CLI, "fix", "--repo", req.repoDir, "--issue", req.issueFile];
      args.push("--out", req.outDir, "--json");
      if (req.testCommand) args.push("--test-cmd", req.testCommand);
      if (req.maintainer) {
        // Typed input goes as a file (validated again by the command); a file per attempt, beside its folder.
        const file = `${req.outDir.replace(/\/+$/, "")}.maintainer.json`;
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, JSON.stringify(req.maintainer));
        args.push("--guidance-file", file);
      } else if (req.guidance) args.push("--guidance", req.guidance);
      // The run's spend limit (the operator's per-run limit, the repository's, or what is left of the
      // day's, already the lowest) is the pipeline's model budget, under its one name.
      const env = pipelineEnv(options.env);
      for (const old of RENAMED_SETTINGS.AUTO_FIX_MAX_COST_USD_PER_RUN ?? []) delete env[old];
      env.AUTO_FIX_MAX_COST_USD_PER_RUN = String(req.maxCostUsd);
      const startedAt = performance.now();
      // A run on another ref: the default branch's protected globs as well as the ref's own.
      if (req.protectedPaths && req.protectedPaths.length > 0) {
        env.AUTO_FIX_PROTECTED_PATHS = [env.AUTO_FIX_PROTECTED_PATHS ?? "", ...req.protectedPaths]
          .filter((g) => g.trim() !== "")
          .join("\n");
      }
      // The repository's model, already checked against the operator's list at admission.
      if (req.model) env.AUTO_FIX_MODEL = req.model;
      const child = spawn(process.execPath, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let pending = "";
      let timedOut = false;
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        if (stdout.length > MAX_STDOUT_CHARS) stdout = stdout.slice(-MAX_STDOUT_CHARS);
      });
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        stderr = (stderr + c).slice(-20_000);
        pending += c;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        if (pending.length > MAX_STAGE_LINE_CHARS) pending = "";
        for (const line of lines) {
          if (line.length > MAX_STAGE_LINE_CHARS) continue;
          if (options.onProgress && line.startsWith("auto-fix: ")) options.onProgress(line.slice(10).trim());
          const m = STAGE_LINE.exec(line.trim());
          if (m) req.onStage(m[1]!, m[2]);
        }
      });
      const kill = () => {
        if (child.pid) killTree(child.pid);
      };
      // A cancelled run is asked to stop as Ctrl-C asks it (it stops its commands and writes its report),
      // and killed with its whole tree if it has not ended within the grace.
      const cancel = () => {
        try {
          if (child.pid) process.kill(child.pid, "SIGINT");
        } catch {
          // already gone
        }
        setTimeout(kill, CANCEL_GRACE_MS).unref();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
        // A process that escaped the tree may still hold the pipes open: stop reading them.
        child.stdout.destroy();
        child.stderr.destroy();
      }, limitMs);
      req.signal.addEventListener("abort", cancel, { once: true });
      // A process that quits at once (a second Ctrl-C) takes its run with it.
      if (child.pid) liveRuns.add(child.pid);
      child.on("error", (err) => {
        clearTimeout(timer);
        if (child.pid) liveRuns.delete(child.pid);
        reject(err);
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        req.signal.removeEventListener("abort", cancel);
        if (child.pid) liveRuns.delete(child.pid);
        if (req.signal.aborted) return reject(new Error("cancelled"));
        const seconds = Math.round(performance.now() - startedAt) / 1000;
        if (timedOut) {
          const limit = describeLimit(limitMs);
          return resolve(
            failedResult({
              out: req.outDir,
              reason: `timed out after ${limit}`,
              error: `the run timed out after ${limit} (AUTO_FIX_RUN_TIMEOUT_MINUTES) and was stopped with every process it started`,
              timedOutAfter: limit,
              model: env.AUTO_FIX_MODEL ?? null,
              seconds,
            }),
          );
        }
        const read = readChildResult(stdout);
        if (read.ok) return resolve(read.result);
        const tail = stderr.trim().split("\n").slice(-5).join("\n");
        const said = childMessage(stderr);
        resolve(
          failedResult({
            out: req.outDir,
            reason: said ? `the pipeline stopped: ${said}` : "the pipeline gave no usable result",
            error: `the pipeline exited with code ${code} without a usable result: ${read.message}${said ? `\n${said}` : ""}${tail ? `\n${tail}` : ""}`,
            model: env.AUTO_FIX_MODEL ?? null,
            seconds,
          }),
        );
      });
    });
}

/**
 * The child's own last message (`auto-fix fix: …`, one line; for an internal error the error's message
 * without its stack), so that the issue and the log say what stopped the run in its words.
 */
export function childMessage(stderr: string): string | null {
  const lines = stderr.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^auto-fix [a-z-]+: (?:internal error: )?(?:\w*Error: )?(.+)$/.exec(lines[i]!.trim());
    if (m?.[1] && !/^warning: /.test(m[1])) return m[1].length > 400 ? `${m[1].slice(0, 399)}…` : m[1];
  }
  return null;
}
