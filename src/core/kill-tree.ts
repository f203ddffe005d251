import { readdirSync, readFileSync } from "node:fs";

/** Parent pid of every process visible in /proc (one pass). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  let names: string[] = [];
  try {
    names = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last `)`.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(pid, Number(rest[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** `root` and every process descending from it, as /proc shows them now. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const stack = [root];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  return out;
}

const signal = (pid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
};

/**
 * Kills a process, its process group and every process descending from it, including those that left
 * the group (a sandbox launcher starts its own session). The tree is frozen first (SIGSTOP, repeated
 * until no new process appears) so that nothing forks while it is being killed, then SIGKILLed.
 */
export function killTree(root: number): void {
  const stopped = new Set<number>();
  signal(-root, "SIGSTOP");
  for (let round = 0; round < 10; round++) {
    const found = descendants(root).filter((p) => !stopped.has(p));
    if (found.length === 0) break;
    for (const p of found) {
      signal(p, "SIGSTOP");
      stopped.add(p);
    }
  }
  signal(-root, "SIGKILL");
  for (const p of stopped) signal(p, "SIGKILL");
  // Stopped processes receive SIGKILL at once; anything that appeared after the last round is caught here.
  for (const p of descendants(root)) signal(p, "SIGKILL");
}
