import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Per-run control groups: a memory limit whose OOM kills are counted, and a process cap whose refused
 * forks are counted, so a run that hits either is reported with the right limit. cgroup v1 (one
 * hierarchy per controller) and v2 (unified) are both handled; where neither is writable, the caller
 * gets `null` and reports the limits as not enforced.
 */
export interface CgroupHandle {
  /** `cgroup.procs` files a process must write its pid to before it execs the sandbox. */
  procsFiles: string[];
  memory: boolean;
  processes: boolean;
  /** Whether a CPU quota (and a low share of contended CPU) holds the run. */
  cpu: boolean;
  /** OOM kills and refused forks so far. */
  events(): { oomKills: number; forkRefusals: number };
  /** SIGKILL every process still in the group. */
  killAll(): void;
  dispose(): Promise<void>;
}

interface Layout {
  version: 1 | 2;
  /** v1: directory of our cgroup per controller; v2: our cgroup directory. */
  memoryDir: string | null;
  pidsDir: string | null;
  cpuDir: string | null;
}

/** A sandboxed run's share of contended CPU, against the 1024 (v1) / 100 (v2) every other process has. */
const CPU_SHARES_V1 = 128;
const CPU_WEIGHT_V2 = 12;
const CPU_PERIOD_US = 100_000;

let cachedLayout: Layout | null | undefined;
let counter = 0;

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Where this process's cgroups are, per controller. Exported for tests and the capability report. */
export function probeCgroupLayout(): Layout | null {
  if (cachedLayout !== undefined) return cachedLayout;
  const mounts = readText("/proc/self/mounts").split("\n");
  const own = readText("/proc/self/cgroup").split("\n");
  const ownPath = (controller: string): string | null => {
    for (const line of own) {
      const [, ctrls, path] = line.split(":");
      if (ctrls !== undefined && path !== undefined && ctrls.split(",").includes(controller)) return path;
    }
    return null;
  };
  const v1Mount = (controller: string): string | null => {
    for (const line of mounts) {
      const [, dir, type, opts] = line.split(" ");
      if (type === "cgroup" && dir && opts?.split(",").includes(controller)) return dir;
    }
    return null;
  };
  const memMount = v1Mount("memory");
  const pidsMount = v1Mount("pids");
  if (memMount || pidsMount) {
    const memPath = ownPath("memory");
    const pidsPath = ownPath("pids");
    const cpuMount = v1Mount("cpu");
    const cpuPath = ownPath("cpu");
    cachedLayout = {
      version: 1,
      memoryDir: memMount && memPath !== null ? join(memMount, memPath) : null,
      pidsDir: pidsMount && pidsPath !== null ? join(pidsMount, pidsPath) : null,
      cpuDir: cpuMount && cpuPath !== null ? join(cpuMount, cpuPath) : null,
    };
    return cachedLayout;
  }
  for (const line of mounts) {
    const [, dir, type] = line.split(" ");
    if (type !== "cgroup2" || !dir) continue;
    if (!existsSync(join(dir, "cgroup.controllers"))) continue;
    const unified = own.find((l) => l.startsWith("0::"));
    if (!unified) continue;
    const base = join(dir, unified.slice(3));
    const ctrls = readText(join(base, "cgroup.controllers")).split(/\s+/);
    cachedLayout = {
      version: 2,
      memoryDir: ctrls.includes("memory") ? base : null,
      pidsDir: ctrls.includes("pids") ? base : null,
      cpuDir: ctrls.includes("cpu") ? base : null,
    };
    return cachedLayout;
  }
  cachedLayout = null;
  return null;
}

function counterIn(text: string, key: string): number {
  const m = new RegExp(`^${key}\\s+(\\d+)`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

function tryMkdir(parent: string, name: string): string | null {
  const dir = join(parent, name);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return null;
  }
}

let swept = false;

/** Removes groups left behind by auto-fix processes that died without cleaning up (empty ones only). */
function sweepStale(layout: Layout): void {
  if (swept) return;
  swept = true;
  for (const parent of new Set([layout.memoryDir, layout.pidsDir, layout.cpuDir])) {
    if (!parent) continue;
    let names: string[] = [];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^auto-fix-(\d+)-\d+$/.exec(name);
      if (!m || Number(m[1]) === process.pid) continue;
      try {
        process.kill(Number(m[1]), 0);
      } catch {
        rmdirQuiet(join(parent, name));
      }
    }
  }
}

export function createCgroup(limits: {
  memoryMb: number;
  maxProcesses: number;
  /** CPUs the group may keep busy (a CFS quota); left out: no CPU group. */
  cpus?: number;
}): CgroupHandle | null {
  const layout = probeCgroupLayout();
  if (!layout) return null;
  sweepStale(layout);
  const name = `auto-fix-${process.pid}-${++counter}`;
  const dirs: string[] = [];
  let memDir: string | null = null;
  let pidsDir: string | null = null;
  let cpuDir: string | null = null;
  const quota = limits.cpus === undefined ? null : Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US));
  const bytes = String(limits.memoryMb * 1024 * 1024);
  if (layout.version === 1) {
    if (layout.memoryDir) {
      memDir = tryMkdir(layout.memoryDir, name);
      if (memDir) {
        try {
          writeFileSync(join(memDir, "memory.limit_in_bytes"), bytes);
          try {
            writeFileSync(join(memDir, "memory.memsw.limit_in_bytes"), bytes);
          } catch {
            // swap accounting is optional
          }
          dirs.push(memDir);
        } catch {
          rmdirQuiet(memDir);
          memDir = null;
        }
      }
    }
    if (layout.pidsDir) {
      pidsDir = tryMkdir(layout.pidsDir, name);
      if (pidsDir) {
        try {
          writeFileSync(join(pidsDir, "pids.max"), String(limits.maxProcesses));
          dirs.push(pidsDir);
        } catch {
          rmdirQuiet(pidsDir);
          pidsDir = null;
        }
      }
    }
    if (layout.cpuDir && quota !== null) {
      cpuDir = tryMkdir(layout.cpuDir, name);
      if (cpuDir) {
        try {
          writeFileSync(join(cpuDir, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
          writeFileSync(join(cpuDir, "cpu.cfs_quota_us"), String(quota));
          writeFileSync(join(cpuDir, "cpu.shares"), String(CPU_SHARES_V1));
          dirs.push(cpuDir);
        } catch {
          rmdirQuiet(cpuDir);
          cpuDir = null;
        }
      }
    }
  } else {
    const base = layout.memoryDir ?? layout.pidsDir ?? layout.cpuDir;
    if (base) {
      const dir = tryMkdir(base, name);
      if (dir) {
        try {
          if (layout.memoryDir && existsSync(join(dir, "memory.max"))) {
            writeFileSync(join(dir, "memory.max"), bytes);
            writeFileSync(join(dir, "memory.swap.max"), "0");
            memDir = dir;
          }
        } catch {
          memDir = null;
        }
        try {
          if (layout.pidsDir && existsSync(join(dir, "pids.max"))) {
            writeFileSync(join(dir, "pids.max"), String(limits.maxProcesses));
            pidsDir = dir;
          }
        } catch {
          pidsDir = null;
        }
        try {
          if (quota !== null && layout.cpuDir && existsSync(join(dir, "cpu.max"))) {
            writeFileSync(join(dir, "cpu.max"), `${quota} ${CPU_PERIOD_US}`);
            writeFileSync(join(dir, "cpu.weight"), String(CPU_WEIGHT_V2));
            cpuDir = dir;
          }
        } catch {
          cpuDir = null;
        }
        if (memDir || pidsDir || cpuDir) dirs.push(dir);
        else rmdirQuiet(dir);
      }
    }
  }
  if (dirs.length === 0) return null;
  const memEventsFile =
    memDir === null
      ? null
      : layout.version === 1
        ? join(memDir, "memory.oom_control")
        : join(memDir, "memory.events");
  const pidsEventsFile = pidsDir === null ? null : join(pidsDir, "pids.events");
  const unique = [...new Set(dirs)];
  const killAll = (): void => {
    for (const dir of unique) {
      if (layout.version === 2 && existsSync(join(dir, "cgroup.kill"))) {
        try {
          writeFileSync(join(dir, "cgroup.kill"), "1");
          continue;
        } catch {
          // fall through to per-process kill
        }
      }
      for (const pid of readText(join(dir, "cgroup.procs")).split("\n")) {
        if (!pid) continue;
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  };
  return {
    procsFiles: unique.map((d) => join(d, "cgroup.procs")),
    memory: memDir !== null,
    processes: pidsDir !== null,
    cpu: cpuDir !== null,
    events: () => ({
      oomKills: memEventsFile ? counterIn(readText(memEventsFile), "oom_kill") : 0,
      forkRefusals: pidsEventsFile ? counterIn(readText(pidsEventsFile), "max") : 0,
    }),
    killAll,
    dispose: async () => {
      for (let attempt = 0; attempt < 400; attempt++) {
        const left = unique.filter((d) => existsSync(d) && !rmdirQuiet(d));
        if (left.length === 0) return;
        killAll();
        await new Promise((r) => setTimeout(r, 2));
      }
    },
  };
}

function rmdirQuiet(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}
