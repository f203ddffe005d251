import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix, resolve } from "node:path";
import type { Ceilings } from "../core/ceilings.ts";
import { createCgroup } from "./cgroup.ts";
import { buildSandboxEnv } from "./env.ts";
import { tmpfsCopiesAvailable } from "./disk.ts";
import { execLimited } from "./exec-limited.ts";
import { launchCommand, Stage, stagedTool, traversableByOthers } from "./launch.ts";
import { runLimits, SANDBOX_NICE, sandboxCeilings } from "./limits.ts";
import {
  attachNetwork,
  findNetworkTools,
  type NetworkHandle,
  type NetworkPlan,
  networkAllowFromEnv,
  parseAllowList,
  planNetwork,
  type ResolveCache,
  refusedNetwork,
} from "./network.ts";
import { markOwned, overlayCopiesAvailable, ownOverlayCopy } from "./overlay.ts";
import { chownTree, sharedFolderRefusal } from "./ownership.ts";
import { sharedBindsOf } from "./shared-deps.ts";
import { processesOfUid } from "./proc-tree.ts";
import { discoverToolMounts, type ToolMount } from "./tools.ts";
import {
  DEFAULT_LIMITS,
  DEFAULT_SANDBOX_UID,
  type ExecResult,
  type NetworkReport,
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
   * When auto-fix runs as root, the unprivileged host uid sandboxed commands run as (never 0): files
   * they create are that uid's, a setuid file they make is not root's, root-only files stay unreadable.
   * Default `AUTO_FIX_SANDBOX_UID`, else 65534. Folders it cannot traverse are bound through a staging
   * folder, so work trees may stay in private (0700) folders.
   */
  runAsUid?: number;
  /**
   * Who a run with network may reach: host names, IPv4 addresses or ranges, or `*` for any public
   * address. Default `AUTO_FIX_NETWORK_ALLOW`, else the package registries.
   */
  networkAllow?: string[];
  /** Paths of the network tools (default: found on the system). */
  networkTools?: { slirp4netns?: string; nft?: string; nsenter?: string };
  /** The operator's ceilings every run is clamped to (default: from the environment). */
  ceilings?: Ceilings;
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

const MIB = 1024 * 1024;

/**
 * The bwrap argument list for one run: pure, so tests can check what is and is not mounted.
 * `ctx.workdir` (and each tool's `source`) is the host path bound, which may be a staging mount point.
 */
export function planBwrap(
  req: Pick<RunRequest, "network" | "cwd" | "memoryMb">,
  env: Record<string, string>,
  ctx: {
    workdir: string;
    tools: Array<ToolMount & { source?: string }>;
    homeDir?: string | undefined;
    hostRoot?: string;
    /** Generated /etc/hosts and /etc/resolv.conf of a network run, and its info/block descriptors. */
    net?: { hosts: string; resolv: string; infoFd: number; blockFd: number } | undefined;
    tmpMb?: number;
    /** Dependency trees bound read-only into the work tree (`shared-deps.ts`), host path first. */
    shared?: Array<{ source: string; rel: string }>;
  },
): string[] {
  const root = ctx.hostRoot ?? "/";
  // Every namespace is new, the network one included: a run with network gets slirp4netns attached to
  // it from outside, never the host's namespace.
  const a: string[] = ["--unshare-all", "--unshare-user", "--disable-userns"];
  a.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", "1000", "--gid", "1000");
  a.push("--hostname", "sandbox");
  if (req.network && ctx.net)
    a.push("--info-fd", String(ctx.net.infoFd), "--block-fd", String(ctx.net.blockFd));
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
    if (ctx.net && (entry === "hosts" || entry === "resolv.conf")) continue;
    const host = posix.join(root, "etc", entry);
    if (existsSync(host)) a.push("--ro-bind", host, `/etc/${entry}`);
  }
  if (ctx.net)
    a.push("--ro-bind", ctx.net.hosts, "/etc/hosts", "--ro-bind", ctx.net.resolv, "/etc/resolv.conf");
  a.push("--proc", "/proc", "--dev", "/dev");
  // Every tmpfs is sized: what a run writes outside its work tree is bounded too.
  const tmp = String(
    (ctx.tmpMb ?? Math.min(req.memoryMb ?? DEFAULT_LIMITS.memoryMb, DEFAULT_LIMITS.tmpMb)) * MIB,
  );
  const small = String(16 * MIB);
  // bubblewrap's /dev is an unsized tmpfs: only its sized /dev/shm stays writable.
  a.push("--size", String(64 * MIB), "--tmpfs", "/dev/shm", "--remount-ro", "/dev");
  a.push(
    "--size",
    tmp,
    "--tmpfs",
    "/tmp",
    "--size",
    tmp,
    "--tmpfs",
    "/var/tmp",
    "--size",
    tmp,
    "--tmpfs",
    "/home",
  );
  for (const dir of ["/run", "/root", "/opt", "/mnt", "/srv"]) a.push("--size", small, "--tmpfs", dir);
  for (const tool of ctx.tools) a.push("--ro-bind", tool.source ?? tool.prefix, tool.prefix);
  if (ctx.homeDir) a.push("--bind", ctx.homeDir, SANDBOX_HOME);
  else a.push("--dir", SANDBOX_HOME);
  a.push("--bind", ctx.workdir, SANDBOX_WORKDIR);
  for (const t of ctx.shared ?? []) a.push("--ro-bind", t.source, posix.join(SANDBOX_WORKDIR, t.rel));
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
  readonly #allow: "public" | string[];
  readonly #netTools: ReturnType<typeof findNetworkTools>;
  readonly #resolved: ResolveCache = new Map();
  /** Toolchains whose parents the sandbox uid cannot traverse: bound through the staging folder. */
  readonly #stagedTools: Set<string>;
  readonly #ceilings: Ceilings;
  #probe: Promise<SandboxCapabilities> | undefined;

  constructor(opts: BwrapOptions = {}) {
    this.#bwrap = opts.bwrapPath ?? "bwrap";
    this.#tools = opts.tools ?? discoverToolMounts();
    this.#homeDir = opts.homeDir;
    this.#ceilings = sandboxCeilings(opts.ceilings);
    const isRoot = process.getuid?.() === 0;
    const uid = opts.runAsUid ?? sandboxUidFromEnv(process.env);
    if (uid === 0) {
      throw new SandboxUnavailableError(
        "bwrap",
        "the sandbox never runs as host uid 0; choose another runAsUid",
      );
    }
    this.#uid = isRoot ? uid : null;
    try {
      this.#allow = opts.networkAllow ? parseAllowList(opts.networkAllow) : networkAllowFromEnv(process.env);
    } catch (err) {
      throw new SandboxUnavailableError("bwrap", (err as Error).message);
    }
    this.#netTools = findNetworkTools(opts.networkTools);
    this.#stagedTools = new Set(
      this.#uid === null
        ? []
        : this.#tools.filter((t) => !traversableByOthers(posix.join(t.prefix, "bin"))).map((t) => t.prefix),
    );
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

  /** Why a run asking for network cannot have it here, or null when it can. */
  networkRefusal(): string | null {
    if (process.getuid?.() !== 0) {
      return "network for sandboxed commands needs auto-fix to run as root (it sets up the sandbox's own network namespace and firewall); the host's network is never shared";
    }
    const missing = [
      this.#netTools.slirp4netns ? null : "slirp4netns (Debian package 'slirp4netns')",
      this.#netTools.nft ? null : "nft (Debian package 'nftables')",
      this.#netTools.nsenter ? null : "nsenter (Debian package 'util-linux')",
    ].filter((m): m is string => m !== null);
    if (missing.length > 0) {
      return `network for sandboxed commands needs ${missing.join(" and ")}; not installed, so the run gets no network (the host's network is never shared)`;
    }
    return null;
  }

  capabilities(): Promise<SandboxCapabilities> {
    this.#probe ??= (async () => {
      const cg = createCgroup({ memoryMb: 64, maxProcesses: 64, cpus: this.#ceilings.cpus });
      await cg?.dispose();
      const notes: string[] = [];
      if (!cg?.memory) notes.push("memory limit not enforced: no writable memory cgroup");
      if (!cg?.cpu)
        notes.push(
          `CPU use is not capped (no writable cpu cgroup): sandboxed runs only get a lower priority (nice ${SANDBOX_NICE})`,
        );
      const root = (this.#uid ?? process.getuid?.()) === 0;
      if (!cg?.processes)
        notes.push(
          root
            ? "process limit: no writable pids cgroup and root is exempt from RLIMIT_NPROC; the process tree is counted instead"
            : "process limit by RLIMIT_NPROC and by counting the process tree (no writable pids cgroup)",
        );
      if (this.#uid !== null) notes.push(`runs as host uid ${this.#uid}`);
      const disk = tmpfsCopiesAvailable();
      if (!disk)
        notes.push(
          "disk and file-count limits not enforced: work copies need root to be made on a sized tmpfs",
        );
      else if (!overlayCopiesAvailable())
        notes.push(
          "every candidate's work tree is a full copy of the prepared tree: overlayfs cannot be mounted here",
        );
      const refusal = this.networkRefusal();
      if (refusal) notes.push(refusal);
      return {
        kind: "bwrap",
        network: "isolated",
        memory: cg?.memory ? "cgroup" : "none",
        processes: cg?.processes ? "cgroup" : root ? "tree-count" : "rlimit",
        cpu: cg?.cpu ? "cgroup" : "nice",
        disk: disk ? "tmpfs" : "none",
        networkAccess: refusal ? "refused" : "slirp4netns",
        notes,
      };
    })();
    return this.#probe;
  }

  /**
   * Gives a tree to the sandbox's unprivileged uid once (when auto-fix runs as root), before it is frozen
   * and copied: copies of it then need no ownership change per run, and none of its files is copied up
   * into a copy only to change its owner.
   */
  async adoptTree(dir: string): Promise<void> {
    if (this.#uid === null) return;
    const root = resolve(dir);
    await chownTree(root, this.#uid);
    markOwned(root, this.#uid);
  }

  async run(req: RunRequest): Promise<ExecResult> {
    const limits = runLimits(req, this.#ceilings);
    const env = buildSandboxEnv(req.env, { path: sandboxPath(this.#tools), workdir: SANDBOX_WORKDIR });
    if (req.network) {
      const refusal = this.networkRefusal();
      if (refusal) return refusedRun(refusal, this.#allow);
    }
    const workdir = resolve(req.workdir);
    const shared = sharedFolderRefusal(workdir);
    if (shared) throw new Error(shared);
    if (this.#uid !== null) {
      // An overlay copy: only what changed in it (and layers no sandbox adopted) is walked.
      if (!(await ownOverlayCopy(workdir, this.#uid))) await chownTree(workdir, this.#uid);
      if (this.#homeDir) await chownTree(this.#homeDir, this.#uid);
    }
    // Made only when a run needs it (a folder the sandbox uid cannot reach, a network run's /etc files).
    let stage: Stage | null = null;
    const getStage = async (): Promise<Stage> => {
      stage ??= await Stage.create();
      return stage;
    };
    let net: NetworkHandle | null = null;
    let netError: string | null = null;
    try {
      const binds: Array<{ source: string; target: string }> = [];
      const staged = async (source: string, name: string): Promise<string> => {
        if (this.#uid === null || traversableByOthers(source)) return source;
        const target = await (await getStage()).mountPoint(name);
        binds.push({ source, target });
        return target;
      };
      const bindWork = await staged(workdir, "work");
      const bindHome = this.#homeDir ? await staged(resolve(this.#homeDir), "home") : undefined;
      const shared: Array<{ source: string; rel: string }> = [];
      for (const [i, t] of sharedBindsOf(workdir).entries()) {
        shared.push({ source: await staged(t.source, `deps${i}`), rel: t.rel });
      }
      const tools: Array<ToolMount & { source?: string }> = [];
      for (const t of this.#tools) {
        tools.push(this.#stagedTools.has(t.prefix) ? { ...t, source: await stagedTool(t.prefix) } : t);
      }
      let plan: NetworkPlan | null = null;
      let netFiles: { hosts: string; resolv: string; infoFd: number; blockFd: number } | undefined;
      if (req.network) {
        plan = await planNetwork(this.#allow, this.#resolved);
        const st = await getStage();
        netFiles = {
          hosts: await st.file("hosts", plan.hostsFile),
          resolv: await st.file("resolv.conf", plan.resolvConf),
          infoFd: 3,
          blockFd: 4,
        };
      }
      const args = planBwrap({ ...req, memoryMb: limits.memoryMb }, env, {
        workdir: bindWork,
        tools,
        homeDir: bindHome,
        net: netFiles,
        shared,
      });
      const cgroup = createCgroup(limits);
      // With a pids cgroup, that is the limit (and its refusals are what report it). Without one,
      // RLIMIT_NPROC, which counts every process of the host uid: set above what that uid already runs.
      const uidNow = this.#uid ?? process.getuid?.() ?? 0;
      const nproc = cgroup?.processes ? null : limits.maxProcesses + processesOfUid(uidNow) + 2;
      const launch = launchCommand({
        uid: this.#uid,
        nproc,
        nice: SANDBOX_NICE,
        cgroupProcs: cgroup?.procsFiles ?? [],
        binds,
        keepFds: netFiles ? [netFiles.infoFd, netFiles.blockFd] : [],
        bwrap: [this.#bwrap, ...args, "--", ...commandArgv(req.command)],
      });
      const tools4net = this.#netTools;
      try {
        const result = await execLimited({
          argv: launch.argv,
          env: launch.env,
          cwd: "/",
          timeoutMs: limits.timeoutMs,
          maxOutputBytes: limits.maxOutputBytes,
          signal: req.signal,
          cgroup,
          ...(cgroup?.processes ? {} : { processCap: limits.maxProcesses }),
          backend: "bwrap",
          watchDisk: workdir,
          ...(plan
            ? {
                extraPipes: 2,
                onSpawn: (child, stop) => {
                  const p = plan;
                  // bubblewrap closes both ends when it is done with them (or dies): not an error here.
                  for (const s of [child.stdio[3], child.stdio[4]]) s?.on("error", () => {});
                  readChildPid(child)
                    .then((pid) =>
                      attachNetwork(pid, p, {
                        slirp4netns: tools4net.slirp4netns!,
                        nft: tools4net.nft!,
                        nsenter: tools4net.nsenter!,
                      }),
                    )
                    .then((h) => {
                      net = h;
                      (child.stdio[4] as NodeJS.WritableStream).write("go");
                    })
                    .catch((err: Error) => {
                      netError = err.message;
                      stop();
                    });
                },
              }
            : {}),
        });
        if (!plan) return result;
        const handle = net as NetworkHandle | null;
        const report: NetworkReport = {
          tool: "slirp4netns",
          allow: plan.allow,
          resolved: plan.resolved,
          unusable: plan.unusable,
          blocked: handle ? await handle.blocked() : [],
          ...(netError ? { refused: `the sandbox's network could not be set up: ${netError}` } : {}),
        };
        const stderr = netError ? `${result.stderr}auto-fix: ${report.refused}\n` : result.stderr;
        return { ...result, stderr, network: report };
      } finally {
        (net as NetworkHandle | null)?.close();
        await cgroup?.dispose();
      }
    } finally {
      await (stage as Stage | null)?.dispose();
    }
  }
}

/** Reads bubblewrap's `--info-fd` document and returns the sandbox's pid on the host. */
function readChildPid(child: ChildProcess): Promise<number> {
  return new Promise((resolveP, reject) => {
    const info = child.stdio[3] as NodeJS.ReadableStream | null;
    if (!info) return reject(new Error("no info descriptor"));
    let text = "";
    const onData = (c: Buffer): void => {
      text += c.toString("utf8");
      try {
        const pid = (JSON.parse(text) as { "child-pid"?: unknown })["child-pid"];
        info.removeListener("data", onData);
        if (typeof pid === "number") resolveP(pid);
        else reject(new Error("bubblewrap reported no child pid"));
      } catch {
        if (text.length > 65536) reject(new Error("bubblewrap's info document is too long"));
      }
    };
    info.on("data", onData);
    info.once("end", () => reject(new Error(`bubblewrap ended before reporting its pid`)));
  });
}

function refusedRun(reason: string, allow: "public" | string[]): ExecResult {
  return {
    exitCode: 126,
    signal: null,
    stdout: "",
    stderr: `auto-fix: network refused: ${reason}\n`,
    truncated: false,
    limit: null,
    durationMs: 0,
    backend: "bwrap",
    network: refusedNetwork(allow, reason),
  };
}

/** `AUTO_FIX_SANDBOX_UID`, else the default unprivileged uid. */
export function sandboxUidFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.AUTO_FIX_SANDBOX_UID;
  if (v === undefined || v === "") return DEFAULT_SANDBOX_UID;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 0xfffffffe) {
    throw new SandboxUnavailableError(
      "bwrap",
      `AUTO_FIX_SANDBOX_UID must be a positive uid, not ${JSON.stringify(v)}`,
    );
  }
  return n;
}
