/** Which limit ended a run, when one did. */
export type LimitKind = "time" | "memory" | "processes" | "output";

/** One command to run in the sandbox. */
export interface RunRequest {
  /** Host directory mounted writable as the work tree (a private copy: the caller owns it). */
  workdir: string;
  /** argv, or a shell command line run with `/bin/sh -c`. */
  command: string[] | string;
  /** Network access (a setup step may ask for it); off by default. */
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
}

export type SandboxKind = "bwrap" | "docker" | "none";

/** Which limits a backend actually enforces on this machine (reported, never silently dropped). */
export interface SandboxCapabilities {
  kind: SandboxKind;
  network: "isolated" | "host";
  memory: "cgroup" | "docker" | "none";
  processes: "cgroup" | "rlimit" | "tree-count" | "docker" | "none";
  /** Everything the backend wants a user to know (e.g. a limit that cannot be enforced here). */
  notes: string[];
}

export interface SandboxPort {
  readonly kind: SandboxKind;
  run(req: RunRequest): Promise<ExecResult>;
  capabilities(): Promise<SandboxCapabilities>;
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
} as const;

/** The mount point of the work tree inside the sandbox. */
export const SANDBOX_WORKDIR = "/workspace";
export const SANDBOX_HOME = "/home/sandbox";
