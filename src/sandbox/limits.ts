import { type Ceilings, ceilingsFromEnv } from "../core/ceilings.ts";
import { DEFAULT_LIMITS, type RunRequest } from "./types.ts";

/** The niceness every sandboxed run starts with: the host's own processes come first on a busy CPU. */
export const SANDBOX_NICE = 10;

/** The limits one run gets: what it asked for (or the defaults), never more than the operator's ceilings. */
export interface RunLimits {
  timeoutMs: number;
  memoryMb: number;
  maxProcesses: number;
  maxOutputBytes: number;
  /** CPUs the run may keep busy at once. */
  cpus: number;
}

/**
 * A sandbox's ceilings: the ones handed in, else the operator's environment. A bad variable does not
 * stop the sandbox from being made (the command line refuses it earlier, naming it); the defaults hold.
 */
export function sandboxCeilings(given: Ceilings | undefined, env: NodeJS.ProcessEnv = process.env): Ceilings {
  if (given) return given;
  try {
    return ceilingsFromEnv(env);
  } catch {
    return ceilingsFromEnv({});
  }
}

export function runLimits(req: RunRequest, ceilings: Ceilings): RunLimits {
  const within = (asked: number, ceiling: number): number => Math.max(1, Math.min(asked, ceiling));
  return {
    timeoutMs: within(req.timeoutMs ?? DEFAULT_LIMITS.timeoutMs, ceilings.commandMs),
    memoryMb: within(req.memoryMb ?? DEFAULT_LIMITS.memoryMb, ceilings.memoryMb),
    maxProcesses: within(req.maxProcesses ?? DEFAULT_LIMITS.maxProcesses, ceilings.maxProcesses),
    maxOutputBytes: within(req.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes, ceilings.outputBytes),
    cpus: ceilings.cpus,
  };
}
