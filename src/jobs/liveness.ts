/**
 * Whether a process on this machine is still running, for handing over the leases (and held deliveries) of
 * a worker that died. `kill(pid, 0)` is not enough: a killed process that its parent has not reaped yet (a
 * zombie) still answers it, and a pid can be reused by an unrelated process later. On Linux the answer
 * comes from `/proc/<pid>/stat`: a zombie or dead state means gone, and a start time different from the
 * one recorded with the lease means the pid now belongs to someone else.
 */
import { hostname } from "node:os";
import { processAlive, readProcessStat } from "../core/processes.ts";

/** This process's identity for lease owners: host, pid and (where known) start time. */
export function selfIdentity(): { host: string; pid: number; startTime: string | null } {
  return { host: hostname(), pid: process.pid, startTime: readProcessStat(process.pid)?.startTime ?? null };
}

/**
 * Lease owner strings: `host|pid|start|nonce`. The start time may be empty (no /proc); owners written
 * before it was recorded (`host|pid|nonce`) are still read, without the pid-reuse check.
 */
export function ownerId(nonce: string): string {
  const me = selfIdentity();
  return `${me.host}|${me.pid}|${me.startTime ?? ""}|${nonce}`;
}

export interface ParsedOwner {
  host: string;
  pid: number;
  startTime: string | null;
}

export function parseOwner(owner: string | null | undefined): ParsedOwner | null {
  const parts = (owner ?? "").split("|");
  if (parts.length < 3) return null;
  const pid = Number(parts[1]);
  if (!parts[0] || !Number.isInteger(pid) || pid <= 0) return null;
  const startTime = parts.length >= 4 && /^\d+$/.test(parts[2]!) ? parts[2]! : null;
  return { host: parts[0], pid, startTime };
}

/**
 * True when `owner` names a process of this machine that is no longer running (so what it holds may be
 * taken at once). Owners of other machines, unreadable owners and `self` are never dead.
 */
export function ownerIsDeadLocal(owner: string | null | undefined, self: string): boolean {
  if (!owner || owner === self) return false;
  const o = parseOwner(owner);
  if (!o || o.host !== hostname()) return false;
  // Our own pid without a start time to compare: a predecessor's (owners of this process carry one).
  if (o.pid === process.pid && o.startTime === null) return true;
  return !processAlive(o.pid, o.startTime);
}
