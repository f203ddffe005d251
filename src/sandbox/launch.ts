import { execFile, execFileSync } from "node:child_process";
import { lstatSync, rmdirSync } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, readdir, rmdir, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { processAlive } from "../core/processes.ts";
import { readMounts } from "../core/mounts.ts";
import { SandboxUnavailableError } from "./types.ts";

/**
 * The host side of a bubblewrap run. A small bash prelude, started by auto-fix:
 *  1. closes every inherited descriptor above 2 (except the ones the run hands to bubblewrap on
 *     purpose), so nothing the launcher left open without close-on-exec reaches the command;
 *  2. joins the run's cgroups and sets RLIMIT_NPROC;
 *  3. when auto-fix is root: in a private mount namespace of its own, binds the host folders the
 *     sandbox needs (work tree, home, toolchains) onto an empty per-run staging folder that the
 *     sandbox uid can traverse — so their parents may stay private (0700) — then
 *  4. drops to the unprivileged sandbox uid (setpriv, no new privileges) and execs bubblewrap, which
 *     builds the sandbox as that user in a new user namespace.
 */
export const PRELUDE = [
  'keep=" $AF_KEEP_FDS "',
  "for f in /proc/$$/fd/*; do",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  '  n="${f##*/}"',
  '  case "$keep" in *" $n "*) continue ;; esac',
  '  if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi',
  "done",
  'for f in $AF_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done',
  'if [ -n "$AF_NPROC" ]; then ulimit -u "$AF_NPROC" || exit 125; fi',
  // A lower priority than the host's own processes (the webhook server, other jobs): the sandbox, as an
  // unprivileged uid, can never raise it again.
  'if [ -n "$AF_NICE" ]; then renice -n "$AF_NICE" -p $$ >/dev/null || exit 125; fi',
  "unset AF_CGROUP_PROCS AF_KEEP_FDS AF_NPROC AF_NICE keep f n",
  'while [ "$1" != "--" ]; do mount --bind "$1" "$2" || exit 125; shift 2; done',
  "shift",
  'exec "$@"',
].join("\n");

export interface LaunchSpec {
  /** Host uid to drop to before bubblewrap (auto-fix running as root), or null to stay. */
  uid: number | null;
  nproc: number | null;
  /** Scheduling priority (niceness) the run starts with; null leaves the launcher's own. */
  nice?: number | null;
  cgroupProcs: string[];
  /** Host folders bound onto staging folders (needs root; done in a private mount namespace). */
  binds: Array<{ source: string; target: string }>;
  /** Descriptors (3, 4, ...) handed to bubblewrap on purpose; every other one above 2 is closed. */
  keepFds: number[];
  /** The bubblewrap command line. */
  bwrap: string[];
}

export function launchCommand(spec: LaunchSpec): { argv: string[]; env: Record<string, string> } {
  const drop =
    spec.uid === null
      ? []
      : ["setpriv", `--reuid=${spec.uid}`, `--regid=${spec.uid}`, "--clear-groups", "--no-new-privs", "--"];
  const binds = spec.binds.flatMap((b) => [b.source, b.target]);
  const bash = ["/bin/bash", "-c", PRELUDE, "sandbox", ...binds, "--", ...drop, ...spec.bwrap];
  const argv = binds.length > 0 ? ["unshare", "--mount", "--propagation", "private", "--", ...bash] : bash;
  return {
    argv,
    env: {
      AF_CGROUP_PROCS: spec.cgroupProcs.join(" "),
      AF_KEEP_FDS: spec.keepFds.join(" "),
      AF_NPROC: spec.nproc === null ? "" : String(spec.nproc),
      AF_NICE: spec.nice === null || spec.nice === undefined ? "" : String(spec.nice),
      PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
    },
  };
}

/** Whether a user that is neither owner nor in the group can reach `path` (every parent has o+x). */
export function traversableByOthers(path: string): boolean {
  let dir = dirname(resolve(path));
  for (;;) {
    try {
      if ((lstatSync(dir).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    if (dir === "/") return true;
    dir = dirname(dir);
  }
}

/**
 * A per-run folder of empty mount points (and the run's generated /etc files), traversable by the
 * sandbox uid. Removed after the run without recursion: only empty folders and the files written here
 * are removed, so a bind that were somehow visible on the host could never take a tree with it.
 */
export class Stage {
  readonly dir: string;
  readonly #files: string[] = [];
  readonly #dirs: string[] = [];
  #filesDir: string | null = null;
  #mounted: string | null = null;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async create(): Promise<Stage> {
    if (!sweptStages) {
      sweptStages = true;
      await sweepStaleStages();
    }
    const dir = await mkdtemp(join(tmpdir(), `auto-fix-run-${process.pid}-`));
    await chmod(dir, 0o711);
    if (!traversableByOthers(dir)) {
      await rmdir(dir);
      // Not an internal error: the sandbox cannot start here until the operator changes TMPDIR.
      throw new SandboxUnavailableError(
        "bwrap",
        `the temporary folder ${tmpdir()} is not reachable by the sandbox's unprivileged uid; set TMPDIR to a folder whose parents are world-traversable (e.g. /tmp)`,
      );
    }
    return new Stage(dir);
  }

  async mountPoint(name: string): Promise<string> {
    const path = join(this.dir, name);
    await mkdir(path, { mode: 0o755 });
    this.#dirs.push(path);
    return path;
  }

  async file(name: string, content: string): Promise<string> {
    const path = join(await this.#generatedFiles(), name);
    await writeFile(path, content, { mode: 0o644, flag: "wx" });
    this.#files.push(path);
    return path;
  }

  /**
   * Where the run's generated files go: a small tmpfs of their own when this process may mount (root,
   * as every run with network is), so that a file bound from there names no host path in the sandbox's
   * /proc/self/mountinfo (its source is plain "tmpfs", its path "/hosts").
   */
  async #generatedFiles(): Promise<string> {
    if (this.#filesDir) return this.#filesDir;
    const at = await this.mountPoint("files");
    if (process.getuid?.() === 0) {
      await mountSmallTmpfs(at);
      this.#mounted = at;
    }
    this.#filesDir = at;
    return at;
  }

  async dispose(): Promise<void> {
    for (const f of this.#files) await unlink(f).catch(() => {});
    if (this.#mounted) await unmountLazily(this.#mounted);
    for (const d of this.#dirs) await rmdir(d).catch(() => {});
    await rmdir(this.dir).catch(async () => {
      const left = await readdir(this.dir).catch(() => []);
      throw new Error(`sandbox staging folder ${this.dir} is not empty after the run: ${left.join(", ")}`);
    });
  }
}

let sweptStages = false;

const stageMount = (cmd: string, args: string[]): Promise<void> =>
  new Promise((res, rej) => {
    execFile(
      cmd,
      args,
      { timeout: 30_000, env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
      (err, _o, stderr) =>
        err ? rej(new Error(`${cmd} ${args.join(" ")}: ${(stderr || err.message).trim()}`)) : res(),
    );
  });

const mountSmallTmpfs = (dir: string): Promise<void> =>
  stageMount("mount", [
    "-t",
    "tmpfs",
    "-o",
    "size=64k,nr_inodes=16,mode=0755,nosuid,nodev,noexec",
    "tmpfs",
    dir,
  ]);

const unmountLazily = (dir: string): Promise<void> =>
  stageMount("umount", [dir]).catch(() => stageMount("umount", ["-l", dir]).catch(() => {}));

/**
 * Staging folders of auto-fix processes that died mid-run (their mount namespaces died with them, so
 * the folders are empty mount points and the run's generated files): removed, never recursively.
 */
export async function sweepStaleStages(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const m = /^auto-fix-run-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    try {
      process.kill(Number(m[1]), 0);
      continue;
    } catch {
      // owner gone
    }
    const dir = join(tmpdir(), name);
    const mounted = new Set(readMounts().map((m) => m.target));
    for (const entry of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, entry);
      // The generated files' own tmpfs: released first (its files go with it).
      if (mounted.has(path)) await unmountLazily(path);
      const st = await lstat(path).catch(() => null);
      if (st?.isDirectory()) await rmdir(path).catch(() => {});
      else if (st?.isFile() && st.size < 1024 * 1024) await unlink(path).catch(() => {});
    }
    await rmdir(dir).catch(() => {});
  }
}

/**
 * Toolchains the sandbox uid cannot reach (pyenv's Python under /root): bound read-only, once per
 * process, onto a folder whose name is random and whose parent others can traverse but not list, so
 * runs need no mount of their own. Unmounted when the process exits; a process that died leaves them
 * to the next one's sweep.
 */
const toolStages = new Map<string, Promise<string>>();
const toolMounts = new Set<string>();

function mountCmd(args: string[]): Promise<void> {
  return new Promise((resolveP, reject) => {
    execFile(
      "mount",
      args,
      { timeout: 10_000, env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
      (err, _o, e) =>
        err ? reject(new Error(`mount ${args.join(" ")}: ${(e || err.message).trim()}`)) : resolveP(),
    );
  });
}

export function stagedTool(prefix: string): Promise<string> {
  let p = toolStages.get(prefix);
  if (!p) {
    p = (async () => {
      if (toolStages.size === 0) sweepStaleToolStages();
      const dir = await mkdtemp(join(tmpdir(), `auto-fix-tools-${process.pid}-`));
      await chmod(dir, 0o711);
      const target = join(dir, "prefix");
      await mkdir(target, { mode: 0o755 });
      await mountCmd(["--bind", prefix, target]);
      toolMounts.add(target);
      if (toolMounts.size === 1) process.once("exit", unmountToolStages);
      await mountCmd(["-o", "remount,bind,ro,nosuid,nodev", target]);
      return target;
    })();
    toolStages.set(prefix, p);
    p.catch(() => toolStages.delete(prefix));
  }
  return p;
}

function unmountToolStages(): void {
  for (const target of toolMounts) {
    try {
      execFileSync("umount", ["-l", target], { stdio: "ignore", timeout: 5000 });
      rmdirSync(target);
      rmdirSync(dirname(target));
    } catch {
      // left for the next process's sweep
    }
  }
  toolMounts.clear();
}

/** Tool stages of auto-fix processes that are gone: unmounted and removed. */
export function sweepStaleToolStages(): void {
  for (const { target } of readMounts()) {
    const m = /\/auto-fix-tools-(\d+)-[^/]+\/prefix$/.exec(target);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    try {
      execFileSync("umount", ["-l", target], { stdio: "ignore", timeout: 5000 });
      rmdirSync(target);
      rmdirSync(dirname(target));
    } catch {
      // still busy
    }
  }
}
