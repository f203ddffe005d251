import { BwrapSandbox, type BwrapOptions } from "./bwrap.ts";
import { DockerSandbox } from "./docker.ts";
import { NoSandbox } from "./none.ts";
import { type SandboxKind, type SandboxPort, SandboxUnavailableError } from "./types.ts";

export { BwrapSandbox, commandArgv, planBwrap, sandboxUidFromEnv } from "./bwrap.ts";
export { detectDocker, dockerRunArgs } from "./docker.ts";
export { SECRET_NAME, buildSandboxEnv } from "./env.ts";
export {
  describeNetwork,
  describeOutcome,
  formatExecForModel,
  relativizeSandboxPaths,
  truncateMiddle,
} from "./format.ts";
export { DEFAULT_NETWORK_ALLOW, networkAllowFromEnv, parseAllowList } from "./network.ts";
export type {
  BlockedAttempt,
  ExecResult,
  NetworkReport,
  LimitKind,
  RunRequest,
  SandboxCapabilities,
  SandboxKind,
  SandboxPort,
} from "./types.ts";
export { DEFAULT_LIMITS, DEFAULT_SANDBOX_UID, SANDBOX_WORKDIR, SandboxUnavailableError } from "./types.ts";
export { overlayCopiesAvailable } from "./overlay.ts";
export {
  DEFAULT_COPY_LIMITS,
  freezeTree,
  makeWorkCopy,
  type WorkCopy,
  type WorkCopyOptions,
  WorkCopyRefusedError,
} from "./work-copy.ts";

export interface SandboxOptions extends BwrapOptions {
  /** Docker image (from the repository configuration). */
  image?: string | undefined;
  /** Opt-in for the no-sandbox backend. */
  allowUnsandboxed?: boolean;
  warn?: (message: string) => void;
}

/**
 * A sandbox of the given kind. "auto" picks Docker when an image is configured and a daemon answers,
 * else bubblewrap; it never falls back to running without a sandbox.
 * Throws `SandboxUnavailableError` (with the reason) when the kind cannot run here.
 */
export async function createSandbox(
  kind: SandboxKind | "auto" = "auto",
  opts: SandboxOptions = {},
): Promise<SandboxPort> {
  if (kind === "none") {
    return new NoSandbox({
      ...(opts.allowUnsandboxed === undefined ? {} : { allowUnsandboxed: opts.allowUnsandboxed }),
      ...(opts.warn ? { warn: opts.warn } : {}),
    });
  }
  if (kind === "docker") return DockerSandbox.create({ image: opts.image });
  if (kind === "auto" && opts.image) {
    try {
      return await DockerSandbox.create({ image: opts.image });
    } catch (err) {
      opts.warn?.(`auto-fix: docker sandbox unavailable (${(err as Error).message}); using bubblewrap`);
    }
  }
  const sandbox = new BwrapSandbox(opts);
  await sandbox.selfTest();
  return sandbox;
}

/** Sandbox kind from the environment (`AUTO_FIX_SANDBOX=bwrap|docker|none|auto`). */
export function sandboxKindFromEnv(env: NodeJS.ProcessEnv): SandboxKind | "auto" {
  const v = env.AUTO_FIX_SANDBOX;
  if (v === "bwrap" || v === "docker" || v === "none" || v === "auto") return v;
  return "auto";
}

/** The sandbox of one run, made once by its caller; `port` is null when none can run here, `problem` says why. */
export type RunSandbox = { port: SandboxPort; problem: null } | { port: null; problem: string };

/**
 * Makes the one sandbox a run uses: the kind `AUTO_FIX_SANDBOX` names, else the repository
 * configuration's backend; the image from `AUTO_FIX_SANDBOX_IMAGE`, else the configuration's. A sandbox
 * that cannot run here is not an exception: the run goes on without running anything from the repository,
 * and says why.
 */
export async function openRunSandbox(
  wanted: { backend: SandboxKind | "auto"; image: string | null },
  env: NodeJS.ProcessEnv,
  opts: SandboxOptions = {},
): Promise<RunSandbox> {
  const envKind = sandboxKindFromEnv(env);
  const kind = envKind !== "auto" ? envKind : wanted.backend;
  try {
    const port = await createSandbox(kind, {
      ...opts,
      image: env.AUTO_FIX_SANDBOX_IMAGE ?? wanted.image ?? undefined,
      allowUnsandboxed: opts.allowUnsandboxed ?? env.AUTO_FIX_ALLOW_NO_SANDBOX === "1",
    });
    return { port, problem: null };
  } catch (err) {
    if (!(err instanceof SandboxUnavailableError)) throw err;
    return { port: null, problem: err.message };
  }
}
