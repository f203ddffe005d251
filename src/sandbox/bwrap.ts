import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix, resolve } from "node:path";
import { createCgroup } from "./cgroup.ts";
import { buildSandboxEnv } from "./env.ts";
import { execLimited } from "./exec-limited.ts";
import { processesOfUid } from "./proc-tree.ts";
import { chownTree } from "./ownership.ts";
import { discoverToolMounts, type ToolMount } from "./tools.ts";
import {
  DEFAULT_LIMITS,
  type ExecResult,
  type RunRequest,
  SANDBOX_HOME,
  SANDBOX_WORKDIR,
  type SandboxCapabilities,
  type SandboxPort,
  SandboxUnavailableError,
} from "./types.ts";

export interface BwrapOptions {
  bwrapPath?: string;
  /** Toolchains to mount (default: discovered from the host). */
  tools?: ToolMount[];
  /** Host directory mounted as the sandbox's home (persists between runs); default a fresh tmpfs. */
  homeDir?: string;
  /**
   * When auto-fix runs as root, run the sandbox as this unprivileged host uid instead (root-only files
   * stay unreadable and RLIMIT_NPROC applies); every mounted path must then be traversable by it.
   * Default `null`: host uid kept, every capability dropped, only the listed paths mounted.
   */
  runAsUid?: number | null;
}

/** Files and folders of /etc a toolchain needs; nothing else of /etc (no keys, no shadow). */
export const ETC_ALLOW = [
  "passwd",
  "group",
  "hosts",
  "resolv.conf",
  "nsswitch.conf",
  "host.conf",
  "gai.conf",
  "services",
  "protocols",
  "mime.types",
  "localtime",
  "timezone",
  "os-release",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "ssl/certs",
  "ca-certificates",
  "ca-certificates.conf",
  "java-17-openjdk",
  "java-21-openjdk",
  "maven",
  "python3",
  "python3.11",
  "python3.12",
  "python3.13",
];

/**
 * The bwrap argument list for one run: pure, so tests can check what is and is not mounted.
 */
export function planBwrap(
  req: Pick<RunRequest, "network" | "cwd" | "memoryMb">,
  env: Record<string, string>,
  ctx: { workdir: string; tools: ToolMount[]; homeDir?: string | undefined; hostRoot?: string },
): string[] {
  const root = ctx.hostRoot ?? "/";
  const a: string[] = ["--unshare-all", "--unshare-user"];
  if (req.network) a.push("--share-net");
  a.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", "1000", "--gid", "1000");
  a.push("--hostname", "sandbox");
  a.push("--ro-bind", "/usr", "/usr");
  for (const dir of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const host = posix.join(root, dir);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(host);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) a.push("--symlink", readlinkSync(host), `/${dir}`);
    else if (st.isDirectory()) a.push("--ro-bind", host, `/${dir}`);
  }
  for (const entry of ETC_ALLOW) {
    const host = posix.join(root, "etc", entry);
    if (existsSync(host)) a.push("--ro-bind", host, `/etc/${entry}`);
  }
  a.push("--proc", "/proc", "--dev", "/dev");
  const tmpSize = String((req.memoryMb ?? DEFAULT_LIMITS.memoryMb) * 1024 * 1024);
  a.push("--size", tmpSize, "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run");
  a.push("--tmpfs", "/home", "--tmpfs", "/root", "--tmpfs", "/opt", "--tmpfs", "/mnt", "--tmpfs", "/srv");
  for (const tool of ctx.tools) a.push("--ro-bind", tool.prefix, tool.prefix);
  if (ctx.homeDir) a.push("--bind", ctx.homeDir, SANDBOX_HOME);
  else a.push("--dir", SANDBOX_HOME);
  a.push("--bind", ctx.workdir, SANDBOX_WORKDIR);
  a.push("--remount-ro", "/");
  a.push("--chdir", posix.join(SANDBOX_WORKDIR, req.cwd ?? "."));
  a.push("--clearenv");
  for (const [k, v] of Object.entries(env)) a.push("--setenv", k, v);
  return a;
}

export const commandArgv = (command: string[] | string): string[] =>
  typeof command === "string" ? ["/bin/sh", "-c", command] : command;

function sandboxPath(tools: ToolMount[]): string {
  return [...tools.map((t) => `${t.prefix}/bin`), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
}

/** The default backend on Linux: bubblewrap namespaces, cgroups for memory and processes. */
export class BwrapSandbox implements SandboxPort {
  readonly kind = "bwrap" as const;
  readonly #bwrap: string;
  readonly #tools: ToolMount[];
  readonly #homeDir: string | undefined;
  readonly #uid: number | null;
  #probe: Promise<SandboxCapabilities> | undefined;

  constructor(opts: BwrapOptions = {}) {
    this.#bwrap = opts.bwrapPath ?? "bwrap";
    this.#tools = opts.tools ?? discoverToolMounts();
    this.#homeDir = opts.homeDir;
    const isRoot = process.getuid?.() === 0;
    this.#uid = isRoot ? (opts.runAsUid ?? null) : null;
    try {
      execFileSync(this.#bwrap, ["--version"], { stdio: "ignore" });
    } catch {
      throw new SandboxUnavailableError(
        "bwrap",
        `bubblewrap (${this.#bwrap}) is not installed; install the 'bubblewrap' package or choose another sandbox`,
      );
    }
  }

  /**
   * Runs `true` in a throw-away sandbox: bubblewrap can be installed yet unusable (user namespaces
   * disabled, a seccomp profile refusing them). Throws SandboxUnavailableError with bwrap's own words.
   */
  async selfTest(): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), "auto-fix-selftest-"));
    try {
      const r = await this.run({ workdir: dir, command: ["true"], timeoutMs: 30_000 });
      if (r.exitCode !== 0) {
        throw new SandboxUnavailableError(
          "bwrap",
          `bubblewrap cannot create a sandbox here: ${r.stderr.trim() || `exit ${r.exitCode ?? r.signal}`}` +
            " (user namespaces may be disabled: see kernel.unprivileged_userns_clone / apparmor_restrict_unprivileged_userns)",
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  capabilities(): Promise<SandboxCapabilities> {
    this.#probe ??= (async () => {
      const cg = createCgroup({ memoryMb: 64, maxProcesses: 64 });
      await cg?.dispose();
      const notes: string[] = [];
      if (!cg?.memory) notes.push("memory limit not enforced: no writable memory cgroup");
      const root = (this.#uid ?? process.getuid?.()) === 0;
      if (!cg?.processes)
        notes.push(
          root
            ? "process limit: no writable pids cgroup and root is exempt from RLIMIT_NPROC; the process tree is counted instead"
            : "process limit by RLIMIT_NPROC and by counting the process tree (no writable pids cgroup)",
        );
      if (this.#uid !== null) notes.push(`runs as host uid ${this.#uid}`);
      return {
        kind: "bwrap",
        network: "isolated",
        memory: cg?.memory ? "cgroup" : "none",
        processes: cg?.processes ? "cgroup" : root ? "tree-count" : "rlimit",
        notes,
      };
    })();
    return this.#probe;
  }

  async run(req: RunRequest): Promise<ExecResult> {
    const limits = {
      timeoutMs: req.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
      memoryMb: req.memoryMb ?? DEFAULT_LIMITS.memoryMb,
      maxProcesses: req.maxProcesses ?? DEFAULT_LIMITS.maxProcesses,
      maxOutputBytes: req.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
    };
    const env = buildSandboxEnv(req.env, { path: sandboxPath(this.#tools), workdir: SANDBOX_WORKDIR });
    if (this.#uid !== null) {
      await chownTree(req.workdir, this.#uid);
      if (this.#homeDir) await chownTree(this.#homeDir, this.#uid);
    }
    const args = planBwrap(req, env, {
      workdir: resolve(req.workdir),
      tools: this.#tools,
      homeDir: this.#homeDir,
    });
    const cgroup = createCgroup(limits);
    // A small host shell puts itself in the cgroups, drops to the sandbox uid, and execs bwrap.
    const prelude = [
      'for f in $AF_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done',
      "unset AF_CGROUP_PROCS",
      'exec "$@"',
    ].join("\n");
    // RLIMIT_NPROC counts every process of the host uid, so the cap is set above what that uid already
    // runs (root is exempt from it; the pids cgroup is what holds there).
    const uidNow = this.#uid ?? process.getuid?.() ?? 0;
    const nproc = limits.maxProcesses + (cgroup?.processes ? 0 : processesOfUid(uidNow) + 2);
    const drop =
      this.#uid === null
        ? ["prlimit", `--nproc=${nproc}`, "--"]
        : [
            "prlimit",
            `--nproc=${nproc}`,
            "--",
            "setpriv",
            `--reuid=${this.#uid}`,
            `--regid=${this.#uid}`,
            "--clear-groups",
            "--",
          ];
    try {
      return await execLimited({
        argv: [
          "/bin/sh",
          "-c",
          prelude,
          "sandbox",
          ...drop,
          this.#bwrap,
          ...args,
          "--",
          ...commandArgv(req.command),
        ],
        env: { AF_CGROUP_PROCS: (cgroup?.procsFiles ?? []).join(" "), PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
        cwd: "/",
        timeoutMs: limits.timeoutMs,
        maxOutputBytes: limits.maxOutputBytes,
        signal: req.signal,
        cgroup,
        ...(cgroup?.processes ? {} : { processCap: limits.maxProcesses }),
        backend: "bwrap",
      });
    } finally {
      await cgroup?.dispose();
    }
  }
}
