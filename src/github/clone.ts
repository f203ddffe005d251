/**
 * The shallow clone of a job's repository, run by the system `git` in its own process group, so that the
 * memory a large pack takes is git's, never the worker's (which runs every concurrent job), and bounded
 * by a size cap the operator sets (AUTO_FIX_MAX_CLONE_MB). The token reaches git through a credential
 * helper reading an environment variable of git's own process: it is never on a command line, in a URL,
 * in `.git/config` or in an error message.
 */
import { spawn } from "node:child_process";
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";

export const CLONE_CAP_ENV = "AUTO_FIX_MAX_CLONE_MB";
export const DEFAULT_MAX_CLONE_MB = 1024;
/** How often the clone's size on disk is looked at while git receives the pack. */
const WATCH_EVERY_MS = 100;
/** Lines of git's own error output kept in a message. */
const STDERR_LINES = 6;

const MB = 1024 * 1024;

/** The operator's cap on a clone (pack plus checked-out files), in bytes; a bad value is refused by name. */
export function maxCloneBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[CLONE_CAP_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_MAX_CLONE_MB * MB;
  const mb = Number(raw.trim());
  if (!Number.isFinite(mb) || mb <= 0) {
    throw new UserError(
      `${CLONE_CAP_ENV} must be a positive number of megabytes, not ${JSON.stringify(raw)}`,
    );
  }
  return Math.floor(mb * MB);
}

/** A clone past the operator's cap: refused, and nothing of it is left on disk. */
export class CloneTooLargeError extends Error {
  readonly bytes: number;
  readonly capBytes: number;
  readonly stage: "pack" | "files";
  constructor(bytes: number, capBytes: number, stage: "pack" | "files") {
    super(
      `the repository is too large to clone: ${stage === "pack" ? "its pack passed" : "its pack and files come to"} ${megabytes(bytes)}, over the cap of ${megabytes(capBytes)} set by ${CLONE_CAP_ENV}`,
    );
    this.name = "CloneTooLargeError";
    this.bytes = bytes;
    this.capBytes = capBytes;
    this.stage = stage;
  }
}

const megabytes = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/** Where git may connect: http(s) only (no file://, ssh or ext:: transports from a URL). */
export function originOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UserError(`the clone URL ${JSON.stringify(url.slice(0, 200))} is not a URL`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new UserError(`the clone URL must be http(s), not ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) throw new UserError("the clone URL must not carry credentials");
  return parsed.origin;
}

/**
 * git's environment: nothing of the worker's but the path, proxies and certificates; no system or user
 * configuration, no prompts, no templates (hooks); http(s) only; and the token for the clone's own
 * origin only, through a credential helper that reads it from git's environment.
 */
export function gitEnv(origin: string, token: string): NodeJS.ProcessEnv {
  const pass = [
    "PATH",
    "HOME",
    "http_proxy",
    "https_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "no_proxy",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
  ];
  const env: NodeJS.ProcessEnv = {};
  for (const k of pass) if (process.env[k] !== undefined) env[k] = process.env[k];
  const config: [string, string][] = [
    ["protocol.allow", "never"],
    ["protocol.https.allow", "always"],
    ["protocol.http.allow", "always"],
    ["core.hooksPath", "/dev/null"],
    ["advice.detachedHead", "false"],
    [
      `credential.${origin}.helper`,
      '!f() { cat >/dev/null; test "$1" = get || exit 0; echo username=x-access-token; echo "password=$AUTO_FIX_GIT_TOKEN"; }; f',
    ],
  ];
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return {
    ...env,
    GIT_CONFIG_COUNT: String(config.length),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    LANG: "C",
    AUTO_FIX_GIT_TOKEN: token,
  };
}

/** Bytes of the regular files under `dir` (links are not followed; a file gone meanwhile counts 0). */
export async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    const st = await lstat(path).catch(() => null);
    if (!st) continue;
    if (st.isDirectory()) total += await diskBytes(path);
    else if (st.isFile()) total += st.size;
  }
  return total;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why the run was stopped early, when it was. */
  stopped: Error | null;
}

/**
 * Runs git in its own process group; `watch` is called every WATCH_EVERY_MS and may return an error to
 * stop the whole group with. `signal` stops it too.
 */
export function runGit(
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal; watch?: () => Promise<Error | null> },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: "pipe" });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let errBytes = 0;
    let stopped: Error | null = null;
    const stop = (why: Error): void => {
      if (stopped) return;
      stopped = why;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const onAbort = (): void => stop(new Error("the clone was cancelled"));
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    let watching = false;
    const timer = opts.watch
      ? setInterval(() => {
          if (watching || stopped) return;
          watching = true;
          void opts.watch!()
            .then((why) => {
              if (why) stop(why);
            })
            .finally(() => {
              watching = false;
            });
        }, WATCH_EVERY_MS)
      : null;
    child.stdin.end();
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => {
      // Progress and errors only; a flood is cut (the last lines are what matter).
      errBytes += c.length;
      err.push(c);
      while (errBytes > 64 * 1024 && err.length > 1) errBytes -= err.shift()!.length;
    });
    child.on("error", (e) => {
      if (timer) clearInterval(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      reject(
        (e as NodeJS.ErrnoException).code === "ENOENT"
          ? new UserError("git is not installed: the app clones repositories with the system git")
          : e,
      );
    });
    child.on("close", (code) => {
      if (timer) clearInterval(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        stopped,
      });
    });
  });
}

/** git's error output, last lines only, without the token (should any part of git ever echo it). */
export function gitProblem(what: string, run: Run, token: string): Error {
  const lines = run.stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^(Cloning into|remote: (Counting|Compressing|Enumerating|Total))/.test(l));
  const tail = lines.slice(-STDERR_LINES).join(" — ");
  const text = `${what} failed (exit ${run.code ?? "signal"})${tail ? `: ${tail}` : ""}`;
  return new Error(token ? text.split(token).join("***") : text);
}

/**
 * Shallow clone (depth 1, one branch, no tags, no submodules) of `ref` (a branch or tag; default: the
 * remote's default branch) into `dir`, which must not exist yet. The pack is watched while it arrives,
 * and the files a checkout would write are summed before any is written: past `maxBytes` (default: the
 * operator's AUTO_FIX_MAX_CLONE_MB) the clone stops with CloneTooLargeError and `dir` is removed. Any
 * failure removes `dir` too. `branch` is the branch checked out (the ref's name for a tag).
 */
export async function gitShallowClone(options: {
  url: string;
  dir: string;
  token: string;
  ref?: string | undefined;
  maxBytes?: number;
  signal?: AbortSignal;
}): Promise<{ commit: string; branch: string | null }> {
  const cap = options.maxBytes ?? maxCloneBytes();
  const origin = originOf(options.url);
  if (options.ref !== undefined && (options.ref.startsWith("-") || /[\0\n]/.test(options.ref))) {
    throw new UserError(`the ref ${JSON.stringify(options.ref.slice(0, 100))} is not a branch or tag name`);
  }
  const env = gitEnv(origin, options.token);
  const { dir, token } = options;
  const signal = options.signal ? { signal: options.signal } : {};
  try {
    const clone = await runGit(
      [
        "clone",
        "--quiet",
        "--no-checkout",
        "--depth=1",
        "--single-branch",
        "--no-tags",
        "--template=",
        ...(options.ref ? [`--branch=${options.ref}`] : []),
        "--",
        options.url,
        dir,
      ],
      {
        cwd: process.cwd(),
        env,
        ...signal,
        watch: async () => {
          const bytes = await diskBytes(dir);
          return bytes > cap ? new CloneTooLargeError(bytes, cap, "pack") : null;
        },
      },
    );
    if (clone.stopped) throw clone.stopped;
    if (clone.code !== 0) throw gitProblem("git clone", clone, token);
    const packBytes = await diskBytes(dir);
    if (packBytes > cap) throw new CloneTooLargeError(packBytes, cap, "pack");
    // The files the checkout would write, summed from the tree before anything is written.
    const tree = await runGit(["ls-tree", "-r", "-l", "-z", "--full-tree", "HEAD"], {
      cwd: dir,
      env,
      ...signal,
    });
    if (tree.stopped) throw tree.stopped;
    if (tree.code !== 0) throw gitProblem("git ls-tree", tree, token);
    let fileBytes = 0;
    for (const entry of tree.stdout.split("\0")) {
      const m = /^\d+ blob [0-9a-f]+ +(\d+)\t/.exec(entry);
      if (m) fileBytes += Number(m[1]);
    }
    if (packBytes + fileBytes > cap) throw new CloneTooLargeError(packBytes + fileBytes, cap, "files");
    const checkout = await runGit(["reset", "--hard", "--quiet", "HEAD"], { cwd: dir, env, ...signal });
    if (checkout.stopped) throw checkout.stopped;
    if (checkout.code !== 0) throw gitProblem("git checkout", checkout, token);
    const head = await runGit(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: dir, env });
    if (head.code !== 0) throw gitProblem("git rev-parse", head, token);
    const branch = await runGit(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: dir, env });
    return {
      commit: head.stdout.trim(),
      branch: branch.code === 0 ? branch.stdout.trim() : (options.ref ?? "HEAD"),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
}
