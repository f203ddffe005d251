import { readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import { UserError } from "./errors.ts";

/**
 * The operator's ceilings: the most any run may get, whatever the repository's configuration asks for.
 * Only the environment of the auto-fix process sets them (a repository cannot); the configuration's
 * requests are clamped to them (and the report names each clamped request), and the sandbox clamps every
 * run it is asked for again, so no caller can hand it more.
 */
export interface Ceilings {
  memoryMb: number;
  maxProcesses: number;
  /** CPUs one sandboxed run may keep busy at once (a cgroup quota; fractions allowed). */
  cpus: number;
  /** Wall time of one sandboxed command, and of one validation budget. */
  commandMs: number;
  /** What a run may add to its work tree. */
  diskMb: number;
  /** stdout + stderr of one command. */
  outputBytes: number;
}

interface CeilingVar {
  key: keyof Ceilings;
  env: string;
  unit: string;
  /** Value of the variable → the ceiling's value. */
  scale: number;
  min: number;
  integer: boolean;
}

export const CEILING_VARS: readonly CeilingVar[] = [
  { key: "memoryMb", env: "AUTO_FIX_MAX_MEMORY_MB", unit: "MB", scale: 1, min: 64, integer: true },
  { key: "maxProcesses", env: "AUTO_FIX_MAX_PROCESSES", unit: "processes", scale: 1, min: 8, integer: true },
  { key: "cpus", env: "AUTO_FIX_MAX_CPUS", unit: "CPUs", scale: 1, min: 0.1, integer: false },
  { key: "commandMs", env: "AUTO_FIX_MAX_COMMAND_SECONDS", unit: "s", scale: 1000, min: 1, integer: false },
  { key: "diskMb", env: "AUTO_FIX_MAX_DISK_MB", unit: "MB", scale: 1, min: 16, integer: true },
  {
    key: "outputBytes",
    env: "AUTO_FIX_MAX_OUTPUT_MB",
    unit: "MB",
    scale: 1024 * 1024,
    min: 1,
    integer: false,
  },
];

function readPidMax(): number | null {
  try {
    const n = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim());
    return Number.isFinite(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/**
 * The ceilings when the operator sets none, from this machine: half its memory (at most 8 GB), 1,024
 * processes (at most an eighth of the kernel's pid space), every CPU but one, an hour per command, 4 GB
 * of disk and 8 MB of output.
 */
export function defaultCeilings(
  machine: { memoryBytes?: number; cpus?: number; pidMax?: number | null } = {},
): Ceilings {
  const mem = machine.memoryBytes ?? totalmem();
  const cpus = machine.cpus ?? availableParallelism();
  const pidMax = machine.pidMax === undefined ? readPidMax() : machine.pidMax;
  return {
    memoryMb: Math.max(256, Math.min(8192, Math.floor(mem / 2 / (1024 * 1024)))),
    maxProcesses: Math.max(64, Math.min(1024, pidMax === null ? 1024 : Math.floor(pidMax / 8))),
    cpus: Math.max(1, cpus - 1),
    commandMs: 3600_000,
    diskMb: 4096,
    outputBytes: 8 * 1024 * 1024,
  };
}

/**
 * The ceilings from the environment (`AUTO_FIX_MAX_MEMORY_MB`, `AUTO_FIX_MAX_PROCESSES`,
 * `AUTO_FIX_MAX_CPUS`, `AUTO_FIX_MAX_COMMAND_SECONDS`, `AUTO_FIX_MAX_DISK_MB`, `AUTO_FIX_MAX_OUTPUT_MB`),
 * each defaulting to `defaultCeilings()`. A value that is not a number, or is below the least that makes
 * sense, is a UserError naming the variable: a typo never lifts a limit.
 */
export function ceilingsFromEnv(env: NodeJS.ProcessEnv, defaults: Ceilings = defaultCeilings()): Ceilings {
  const out: Ceilings = { ...defaults };
  for (const v of CEILING_VARS) {
    const raw = env[v.env]?.trim();
    if (raw === undefined || raw === "") continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || (v.integer && !Number.isInteger(n)) || n < v.min) {
      throw new UserError(
        `${v.env}=${JSON.stringify(raw.slice(0, 40))} is not usable: expected ${v.integer ? "a whole number" : "a number"} of ${v.unit}, at least ${v.min}`,
      );
    }
    out[v.key] = n * v.scale;
  }
  return out;
}

/** One request the ceilings lowered, for the report. */
export interface Clamped {
  what: string;
  asked: string;
  used: string;
  env: string;
}

/** "the repository asked for memory-mb 65536; the operator's ceiling is 4096 (AUTO_FIX_MAX_MEMORY_MB)…" */
export function describeClamped(c: Clamped): string {
  return `The repository asked for ${c.what} ${c.asked}; the operator's ceiling is ${c.used} (${c.env}), so ${c.used} was used.`;
}

/** `value` lowered to `ceiling`, recording it in `clamped` when it was. */
export function clampTo(
  value: number,
  ceiling: number,
  note: { what: string; env: string; show: (n: number) => string },
  clamped: Clamped[],
): number {
  if (value <= ceiling) return value;
  clamped.push({ what: note.what, asked: note.show(value), used: note.show(ceiling), env: note.env });
  return ceiling;
}
