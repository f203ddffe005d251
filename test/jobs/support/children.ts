import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./worker-child.ts", import.meta.url));

export interface LogEvent {
  event: string;
  job?: string;
  stage?: string | null;
  attempts?: number;
  pid: number;
}

export function readEvents(logFile: string): LogEvent[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LogEvent);
}

export interface Child {
  proc: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

export function spawnWorker(options: Record<string, unknown>): Child {
  const proc = spawn(process.execPath, [CHILD, JSON.stringify(options)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return { proc, exited, stderr: () => err };
}

/** Ends a child that is still running (used in `finally`). */
export async function reap(child: Child | undefined): Promise<void> {
  if (!child || child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill("SIGKILL");
  await child.exited;
}
