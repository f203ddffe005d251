import { readdirSync, readFileSync } from "node:fs";

/** Parent pid and real uid of every process visible in /proc (one pass). */
function snapshot(): { ppid: Map<number, number>; uid: Map<number, number>; threads: Map<number, number> } {
  const ppid = new Map<number, number>();
  const uid = new Map<number, number>();
  const threads = new Map<number, number>();
  let names: string[] = [];
  try {
    names = readdirSync("/proc");
  } catch {
    return { ppid, uid, threads };
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      const p = /^PPid:\s+(\d+)/m.exec(status);
      const u = /^Uid:\s+(\d+)/m.exec(status);
      const t = /^Threads:\s+(\d+)/m.exec(status);
      if (p) ppid.set(Number(name), Number(p[1]));
      if (u) uid.set(Number(name), Number(u[1]));
      threads.set(Number(name), t ? Number(t[1]) : 1);
    } catch {
      // gone meanwhile
    }
  }
  return { ppid, uid, threads };
}

/** How many processes descend from `root` (itself included). */
export function countDescendants(root: number): number {
  const { ppid } = snapshot();
  const children = new Map<number, number[]>();
  for (const [pid, parent] of ppid) {
    const list = children.get(parent);
    if (list) list.push(pid);
    else children.set(parent, [pid]);
  }
  let count = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    count++;
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  return count;
}

/** How many tasks (threads count, as RLIMIT_NPROC counts them) the given real uid runs now. */
export function processesOfUid(uid: number): number {
  const snap = snapshot();
  let n = 0;
  for (const [pid, u] of snap.uid) if (u === uid) n += snap.threads.get(pid) ?? 1;
  return n;
}
