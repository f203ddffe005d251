import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { commandArgv } from "./bwrap.ts";
import { createCgroup } from "./cgroup.ts";
import { buildSandboxEnv } from "./env.ts";
import { execLimited } from "./exec-limited.ts";
import type { Ceilings } from "../core/ceilings.ts";
import { launchCommand } from "./launch.ts";
import { runLimits, SANDBOX_NICE, sandboxCeilings } from "./limits.ts";
import {
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
  /** The operator's ceilings every run is clamped to (default: from the environment). */
  ceilings?: Ceilings;
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
  readonly #ceilings: Ceilings;

  constructor(opts: NoSandboxOptions = {}) {
    if (opts.allowUnsandboxed !== true) {
      throw new SandboxUnavailableError(
        "none",
        "running without a sandbox needs an explicit opt-in (AUTO_FIX_ALLOW_NO_SANDBOX=1 or --no-sandbox)",
      );
    }
    this.#warn = opts.warn ?? ((m) => process.stderr.write(`${m}\n`));
    this.#ceilings = sandboxCeilings(opts.ceilings);
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
    const limits = runLimits(req, this.#ceilings);
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
      nice: SANDBOX_NICE,
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
        timeoutMs: limits.timeoutMs,
        maxOutputBytes: limits.maxOutputBytes,
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
