/**
 * Whether a process on this machine is still running. `kill(pid, 0)` is not enough: a killed process that
 * its parent has not reaped yet (a zombie) still answers it, and a pid can be reused by an unrelated process
 * later. On Linux the answer comes from `/proc/<pid>/stat`: a zombie or dead state means gone, and a start
 * time different from the one recorded means the pid now belongs to someone else.
 */
import { readFileSync } from "node:fs";

export interface ProcessStat {
  /** The one-letter state (R, S, D, Z, X, ...). */
  state: string;
  /** Start time after boot in clock ticks (field 22): with the pid, it names one process for good. */
  startTime: string;
}

/** `/proc/<pid>/stat` read and parsed; null when there is no such process (or no /proc). */
export function readProcessStat(pid: number): ProcessStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const rest = text.slice(close + 2).split(" ");
  // rest[0] is field 3 (state), so field 22 (starttime) is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return null;
  return { state, startTime };
}

const hasProc = (): boolean => readProcessStat(process.pid) !== null;

/**
 * True while the process `pid` (started at `startTime`, when recorded) runs on this machine. Without
 * /proc (not Linux), or for a process /proc hides from us, it falls back to `kill(pid, 0)`, which counts
 * a zombie as alive.
 */
export function processAlive(pid: number, startTime: string | null = null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const stat = hasProc() ? readProcessStat(pid) : null;
  if (stat) {
    if (stat.state === "Z" || stat.state === "X" || stat.state === "x") return false;
    return startTime === null || stat.startTime === startTime;
  }
  // No /proc, or the process is hidden from us (hidepid) or gone: the signal check tells the last two apart.
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
