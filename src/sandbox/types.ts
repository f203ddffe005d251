/** Which limit ended a run, when one did. */
export type LimitKind = "time" | "memory" | "processes" | "output" | "disk" | "files";

/** One command to run in the sandbox. */
export interface RunRequest {
  /** Host directory mounted writable as the work tree (a private copy: the caller owns it). */
  workdir: string;
  /** argv, or a shell command line run with `/bin/sh -c`. */
  command: string[] | string;
  /**
   * Network access (a setup step may ask for it); off by default. When on, the run gets its own network
   * namespace with outbound access through slirp4netns only: nothing of the host (loopback, its own
   * addresses, abstract sockets, private ranges) and, by default, only the allow-listed hosts.
   */
  network?: boolean;
  timeoutMs?: number;
  memoryMb?: number;
  maxProcesses?: number;
  /** Cap on stdout + stderr together; past it the run is killed. */
  maxOutputBytes?: number;
  /** Extra environment (on top of the allow-listed base). Never the host's secrets. */
  env?: Record<string, string>;
  /** Working directory relative to the work tree (default: its root). */
  cwd?: string;
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** True when output was cut (output limit, or another limit hit while output was being kept). */
  truncated: boolean;
  limit: null | LimitKind;
  durationMs: number;
  /** The backend that ran it. */
  backend: SandboxKind;
  /** For runs with network: what was allowed and which connection attempts were blocked. */
  network?: NetworkReport;
}

/** One outbound attempt the sandbox's firewall refused. */
export interface BlockedAttempt {
  address: string;
  protocol: string;
  port: number | null;
}

export interface NetworkReport {
  /** The tool that gave the run its outbound access (null when the run was refused network). */
  tool: "slirp4netns" | null;
  /** "public": any public address; else the allow-listed hosts and addresses. */
  allow: "public" | string[];
  /** Allow-listed names and the addresses they were pinned to for this run. */
  resolved: Record<string, string[]>;
  /** Allow-listed entries that could not be used (did not resolve, resolved only to private addresses). */
  unusable: string[];
  /** Outbound attempts refused, one entry per address, protocol and port. */
  blocked: BlockedAttempt[];
  /** Why network was refused, when it was. */
  refused?: string;
}

export type SandboxKind = "bwrap" | "docker" | "none";

/** Which limits a backend actually enforces on this machine (reported, never silently dropped). */
export interface SandboxCapabilities {
  kind: SandboxKind;
  network: "isolated" | "host";
  memory: "cgroup" | "docker" | "none";
  processes: "cgroup" | "rlimit" | "tree-count" | "docker" | "none";
  /**
   * How a run's CPU use is held: a cgroup quota of `AUTO_FIX_MAX_CPUS` with a low share of contended CPU,
   * or only a lower scheduling priority (nice) where no CPU cgroup can be written.
   */
  cpu?: "cgroup" | "nice" | "docker" | "none";
  /** How disk use and file counts of the work tree are limited (sized tmpfs copies), when reported. */
  disk?: "tmpfs" | "docker" | "none";
  /** How a run that asks for network gets it, when reported. */
  networkAccess?: "slirp4netns" | "bridge" | "host" | "refused";
  /** Everything the backend wants a user to know (e.g. a limit that cannot be enforced here). */
  notes: string[];
}

export interface SandboxPort {
  readonly kind: SandboxKind;
  run(req: RunRequest): Promise<ExecResult>;
  capabilities(): Promise<SandboxCapabilities>;
  /**
   * Makes a tree ready for sandboxed runs once, before copies of it are made (bubblewrap as root: gives
   * it to the unprivileged uid). Backends that need nothing leave it out.
   */
  adoptTree?(dir: string): Promise<void>;
}

/** The backend cannot run on this machine (no bwrap, no docker daemon, no image, no opt-in). */
export class SandboxUnavailableError extends Error {
  readonly kind: SandboxKind;
  constructor(kind: SandboxKind, message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
    this.kind = kind;
  }
}

export const DEFAULT_LIMITS = {
  timeoutMs: 300_000,
  memoryMb: 2048,
  maxProcesses: 256,
  maxOutputBytes: 8 * 1024 * 1024,
  /** How much a run may add to its work tree (bytes), when the tree is a sized copy. */
  diskMb: 4096,
  /** How many files and folders a run may add to its work tree. */
  maxFiles: 200_000,
  /** Size of the sandbox's own /tmp and home (each). */
  tmpMb: 1024,
} as const;

/** The unprivileged host uid sandboxed commands run as when auto-fix runs as root. */
export const DEFAULT_SANDBOX_UID = 65534;

/** The mount point of the work tree inside the sandbox. */
export const SANDBOX_WORKDIR = "/workspace";
export const SANDBOX_HOME = "/home/sandbox";
