import type { Ceilings } from "../core/ceilings.ts";
import { BwrapSandbox, type BwrapOptions } from "./bwrap.ts";
import { DockerSandbox } from "./docker.ts";
import { NoSandbox } from "./none.ts";
import type { SetupCacheSpec } from "./setup-cache-key.ts";
import { prefetchToolMounts } from "./tools.ts";
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
export { forgetShared, type SharedTree, sharedTreesOf, shareTrees } from "./shared-deps.ts";
export {
  DEFAULT_COPY_LIMITS,
  freezeTree,
  makeWorkCopy,
  type WorkCopy,
  type WorkCopyOptions,
  WorkCopyRefusedError,
} from "./work-copy.ts";

export { runLimits, SANDBOX_NICE } from "./limits.ts";
export { SANDBOX_DEPS_DIR } from "./env.ts";
export {
  repositoryIdentity,
  restoreSetupResult,
  SetupCacheRefusal,
  type SetupCacheSpec,
  setupCacheKey,
  snapshotTree,
  storeSetupResult,
} from "./setup-cache.ts";
export {
  DEFAULT_SETUP_CACHE_MB,
  evictSetupCache,
  SETUP_CACHE_CAP_ENV,
  setupCacheCapBytes,
} from "./setup-cache-evict.ts";
export { prefetchToolMounts } from "./tools.ts";
export { readRuntimeLine, type RuntimeName, runtimesFor } from "./runtime-versions.ts";

export interface SandboxOptions extends BwrapOptions {
  /** Docker image: the operator's (`AUTO_FIX_SANDBOX_IMAGE`), never a repository's. */
  image?: string | undefined;
  ceilings?: Ceilings;
  /** Opt-in for the no-sandbox backend. */
  allowUnsandboxed?: boolean;
  warn?: (message: string) => void;
}

/**
 * A sandbox of the given kind. "auto" picks Docker when the operator named an image and a daemon
 * answers, else bubblewrap; it never falls back to running without a sandbox.
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
  const dockerOpts = {
    image: opts.image,
    ...(opts.ceilings ? { ceilings: opts.ceilings } : {}),
    ...(opts.runAsUid !== undefined ? { runAsUid: opts.runAsUid } : {}),
  };
  if (kind === "docker") return DockerSandbox.create(dockerOpts);
  if (kind === "auto" && opts.image) {
    try {
      return await DockerSandbox.create(dockerOpts);
    } catch (err) {
      opts.warn?.(`auto-fix: docker sandbox unavailable (${(err as Error).message}); using bubblewrap`);
    }
  }
  // The host's toolchains, probed side by side (or already, when the command started the probes).
  if (!opts.tools) await prefetchToolMounts();
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

/**
 * The sandbox of one run, made once by its caller; `port` is null when none can run here, `problem` says
 * why. `notes`: what the repository asked of the sandbox that only the operator decides.
 */
export type RunSandbox =
  | { port: SandboxPort; problem: null; notes?: string[]; setupCache?: SetupCacheSpec | null }
  | { port: null; problem: string; notes?: string[]; setupCache?: SetupCacheSpec | null };

/**
 * Makes the one sandbox a run uses. Only the operator chooses it: the kind `AUTO_FIX_SANDBOX` names
 * (default auto) and the image `AUTO_FIX_SANDBOX_IMAGE` names. A repository's `sandbox.backend` and
 * `sandbox.image` describe what it would like; they never switch the backend, its image, its network or
 * its user, and a run that asked is told so in its notes. A sandbox that cannot run here is not an
 * exception: the run goes on without running anything from the repository, and says why.
 */
export async function openRunSandbox(
  wanted: { backend: SandboxKind | "auto"; image: string | null },
  env: NodeJS.ProcessEnv,
  opts: SandboxOptions = {},
): Promise<RunSandbox> {
  const kind = sandboxKindFromEnv(env);
  const image = env.AUTO_FIX_SANDBOX_IMAGE?.trim() || undefined;
  const notes: string[] = [];
  try {
    const port = await createSandbox(kind, {
      ...opts,
      image,
      allowUnsandboxed: opts.allowUnsandboxed ?? env.AUTO_FIX_ALLOW_NO_SANDBOX === "1",
    });
    const asked = repositoryAsked(wanted, port.kind, image);
    if (asked) notes.push(asked);
    return { port, problem: null, notes };
  } catch (err) {
    if (!(err instanceof SandboxUnavailableError)) throw err;
    return { port: null, problem: err.message, notes };
  }
}

function repositoryAsked(
  wanted: { backend: SandboxKind | "auto"; image: string | null },
  kind: SandboxKind,
  image: string | undefined,
): string | null {
  const differs =
    (wanted.backend !== "auto" && wanted.backend !== kind) ||
    (wanted.image !== null && (kind !== "docker" || wanted.image !== image));
  if (!differs) return null;
  const ask = [
    wanted.backend !== "auto" ? `the ${wanted.backend} backend` : null,
    wanted.image !== null ? `the image ${JSON.stringify(wanted.image.slice(0, 200))}` : null,
  ]
    .filter(Boolean)
    .join(" with ");
  return `The repository's configuration asks for ${ask}; only the operator chooses the sandbox (AUTO_FIX_SANDBOX, AUTO_FIX_SANDBOX_IMAGE), so the ${kind} sandbox${kind === "docker" && image ? ` with the image ${image}` : ""} ran.`;
}
