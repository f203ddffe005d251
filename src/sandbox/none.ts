import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { commandArgv } from "./bwrap.ts";
import { createCgroup } from "./cgroup.ts";
import { buildSandboxEnv } from "./env.ts";
import { execLimited } from "./exec-limited.ts";
import { launchCommand } from "./launch.ts";
import {
  DEFAULT_LIMITS,
  type ExecResult,
  type RunRequest,
  type SandboxCapabilities,
  type SandboxPort,
  SandboxUnavailableError,
} from "./types.ts";

export interface NoSandboxOptions {
  /** Must be true: running repository code on the host is never a default. */
  allowUnsandboxed?: boolean;
  /** Where the loud warning goes (default: stderr). */
  warn?: (message: string) => void;
}

/**
 * Runs commands directly on the host, with the time, output, memory and process limits that can be had
 * without namespaces (a cgroup where writable, else the process group). The host's network, files and
 * home are all visible: it exists for machines without bubblewrap or Docker, behind an explicit opt-in,
 * and says so on every run.
 */
export class NoSandbox implements SandboxPort {
  readonly kind = "none" as const;
  readonly #warn: (message: string) => void;

  constructor(opts: NoSandboxOptions = {}) {
    if (opts.allowUnsandboxed !== true) {
      throw new SandboxUnavailableError(
        "none",
        "running without a sandbox needs an explicit opt-in (AUTO_FIX_ALLOW_NO_SANDBOX=1 or --no-sandbox)",
      );
    }
    this.#warn = opts.warn ?? ((m) => process.stderr.write(`${m}\n`));
  }

  async capabilities(): Promise<SandboxCapabilities> {
    return {
      kind: "none",
      network: "host",
      memory: "none",
      processes: "none",
      notes: ["NO SANDBOX: commands run on the host with its network, files and home"],
    };
  }

  async run(req: RunRequest): Promise<ExecResult> {
    const argv = commandArgv(req.command);
    this.#warn(
      `auto-fix: WARNING: running WITHOUT A SANDBOX (network, host files and home are reachable): ${argv.join(" ")}`,
    );
    const limits = {
      memoryMb: req.memoryMb ?? DEFAULT_LIMITS.memoryMb,
      maxProcesses: req.maxProcesses ?? DEFAULT_LIMITS.maxProcesses,
    };
    const home = mkdtempSync(join(tmpdir(), "auto-fix-home-"));
    const env = buildSandboxEnv(req.env, {
      path: process.env.PATH ?? "/usr/bin:/bin",
      home,
      workdir: resolve(req.workdir),
    });
    const cgroup = createCgroup(limits);
    // The same prelude as the sandbox's: inherited descriptors above 2 closed, cgroups joined.
    const launch = launchCommand({
      uid: null,
      nproc: null,
      cgroupProcs: cgroup?.procsFiles ?? [],
      binds: [],
      keepFds: [],
      bwrap: argv,
    });
    try {
      return await execLimited({
        argv: launch.argv,
        env: { ...launch.env, ...env },
        cwd: join(resolve(req.workdir), req.cwd ?? "."),
        timeoutMs: req.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
        maxOutputBytes: req.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
        signal: req.signal,
        cgroup,
        ...(cgroup?.processes ? {} : { processCap: limits.maxProcesses }),
        backend: "none",
      });
    } finally {
      await cgroup?.dispose();
      rmSync(home, { recursive: true, force: true });
    }
  }
}
