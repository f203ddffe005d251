import { type ChildProcess, spawn } from "node:child_process";
import { statfsSync } from "node:fs";
import type { CgroupHandle } from "./cgroup.ts";
import { overlayCopy } from "./overlay.ts";
import { countDescendants } from "./proc-tree.ts";
import type { ExecResult, LimitKind, SandboxKind } from "./types.ts";

export interface LimitedSpawn {
  argv: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Extra file descriptors handed to the child as fd 3, 4, ... */
  extraFds?: number[];
  /** Pipes (socket pairs) handed to the child after `extraFds`; reachable as `child.stdio[3 + n]`. */
  extraPipes?: number;
  /** Called once the child is spawned (e.g. to set up its network before it is released). */
  onSpawn?: (child: ChildProcess, stop: () => void) => void;
  /**
   * A work tree on a sized tmpfs: when it is full (bytes or inodes) the run is stopped and reported as
   * the disk or files limit.
   */
  watchDisk?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
  cgroup: CgroupHandle | null;
  /**
   * Without a pids cgroup: the process cap, enforced by counting the spawned tree every poll (the
   * kernel's RLIMIT_NPROC refuses the forks; this notices it and ends the run).
   */
  processCap?: number;
  backend: SandboxKind;
  /** Kill whatever the backend started beyond the spawned process (e.g. a container). */
  killExtra?: () => void;
}

const POLL_MS = 100;
/** After the main process exits, how long to wait for its pipes before closing them ourselves. */
const PIPE_GRACE_MS = 500;

/**
 * Spawns a process in its own process group and enforces the limits: wall time (timer), output
 * (bytes counted as they are read), memory and processes (cgroup counters polled). On any limit, or when
 * the main process ends, the whole tree is killed: the process group, the cgroup, and whatever the
 * backend adds (a bwrap pid namespace dies with its init).
 */
export function execLimited(spec: LimitedSpawn): Promise<ExecResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
      env: spec.env,
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stdio: [
        "ignore",
        "pipe",
        "pipe",
        ...(spec.extraFds ?? []),
        ...Array.from({ length: spec.extraPipes ?? 0 }, () => "pipe" as const),
      ],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let limit: LimitKind | null = null;
    let killedByUs = false;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let exited = false;
    let spawnError: Error | null = null;
    let settled = false;

    const killTree = (): void => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // group already gone
        }
      }
      spec.cgroup?.killAll();
      spec.killExtra?.();
    };
    const stop = (why: LimitKind | null): void => {
      if (killedByUs) return;
      killedByUs = true;
      if (limit === null) limit = why;
      killTree();
    };
    const take = (sink: Buffer[], chunk: Buffer): void => {
      if (kept >= spec.maxOutputBytes) {
        truncated = true;
        stop("output");
        return;
      }
      const room = spec.maxOutputBytes - kept;
      if (chunk.length > room) {
        sink.push(chunk.subarray(0, room));
        kept += room;
        truncated = true;
        stop("output");
        return;
      }
      sink.push(chunk);
      kept += chunk.length;
    };
    child.stdout!.on("data", (c: Buffer) => take(out, c));
    child.stderr!.on("data", (c: Buffer) => take(err, c));

    const timer = setTimeout(() => stop("time"), spec.timeoutMs);
    const cap = spec.processCap;
    const diskFull = (): LimitKind | null => (spec.watchDisk ? tmpfsFull(spec.watchDisk) : null);
    const check = (): void => {
      if (exited) return;
      const full = diskFull();
      if (full) stop(full);
      else if (spec.cgroup) {
        const ev = spec.cgroup.events();
        if (ev.oomKills > 0) stop("memory");
        else if (ev.forkRefusals > 0) stop("processes");
      } else if (cap !== undefined && child.pid !== undefined && countDescendants(child.pid) >= cap) {
        stop("processes");
      }
    };
    const poll =
      spec.cgroup === null && cap === undefined && !spec.watchDisk ? null : setInterval(check, POLL_MS);
    const onAbort = (): void => stop(null);
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    if (spec.signal?.aborted) onAbort();

    let graceTimer: NodeJS.Timeout | null = null;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      if (graceTimer) clearTimeout(graceTimer);
      spec.signal?.removeEventListener("abort", onAbort);
      if (limit === null && spec.cgroup) {
        const ev = spec.cgroup.events();
        if (ev.oomKills > 0) limit = "memory";
        else if (ev.forkRefusals > 0) limit = "processes";
      }
      if (limit === null) limit = diskFull();
      const stderr = Buffer.concat(err).toString("utf8");
      resolve({
        exitCode: spawnError ? 127 : killedByUs ? null : exitCode,
        signal: killedByUs ? "SIGKILL" : exitSignal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: spawnError ? `${stderr}${stderr ? "\n" : ""}could not start: ${spawnError.message}` : stderr,
        truncated,
        limit,
        durationMs: Math.round(performance.now() - started),
        backend: spec.backend,
      });
    };
    if (spec.onSpawn && child.pid !== undefined) spec.onSpawn(child, () => stop(null));
    child.on("error", (e) => {
      spawnError = e;
      finish();
    });
    child.on("exit", (code, sig) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      // Anything the command left behind dies with it.
      killTree();
      graceTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
    child.on("close", () => {
      if (exited) finish();
    });
  });
}

const TMPFS_MAGIC = 0x01021994;

/** "disk" or "files" when `path` is on a tmpfs that has no room left, else null. */
export function tmpfsFull(path: string): LimitKind | null {
  try {
    // An overlay copy's changes go to its own tmpfs: that is the one that fills.
    const st = statfsSync(overlayCopy(path)?.base ?? path);
    if (st.type !== TMPFS_MAGIC) return null;
    if (st.bavail * st.bsize < 64 * 1024) return "disk";
    if (st.files > 0 && st.ffree < 2) return "files";
  } catch {
    // the tree is gone: nothing to report
  }
  return null;
}
