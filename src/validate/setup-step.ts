import type { RepoConfig } from "../config/index.ts";
import {
  restoreSetupResult,
  SetupCacheRefusal,
  type SetupCacheSpec,
  type SandboxPort,
  setupCacheKey,
  snapshotTree,
  storeSetupResult,
} from "../sandbox/index.ts";
import { runSetup, type SetupRun } from "./run-tests.ts";

/** How the setup step's cache served a job. */
export interface SetupCacheUse {
  key: string;
  /** The files the key was made of: setup scripts the commands name, manifests and lock files. */
  lockFiles: string[];
  /** The setup step did not run: its kept result was put into the tree. */
  used: boolean;
  /** The setup step ran and its result was kept for the next run. */
  stored: boolean;
  /** Entries (files, folders, links) restored or kept. */
  entries: number;
  /** Why the result could not be kept, when it could not. */
  problem?: string;
}

/**
 * The setup step (dependency installs: the only commands that run with network) in `dir`, the job's
 * base tree: its kept dependency folders when the same repository ran it with the same inputs (setup
 * scripts, manifests, lock files) before, else the commands themselves, whose dependency folders are
 * kept when they all succeed and changed nothing else.
 */
export async function prepareSetup(
  sandbox: SandboxPort,
  dir: string,
  config: RepoConfig,
  spec: SetupCacheSpec | null | undefined,
): Promise<{ runs: SetupRun[]; cache: SetupCacheUse | null }> {
  if (config.setup.length === 0) return { runs: [], cache: null };
  const key = spec ? setupCacheKey(dir, spec, config.setup, sandbox.kind) : null;
  if (!spec || !key) return { runs: await runSetup(sandbox, dir, config), cache: null };
  const restored = await restoreSetupResult(spec, key.key, dir);
  if (restored !== null) {
    return {
      runs: [],
      cache: { key: key.key, lockFiles: key.files, used: true, stored: false, entries: restored },
    };
  }
  const before = await snapshotTree(dir);
  const runs = await runSetup(sandbox, dir, config);
  const cache: SetupCacheUse = { key: key.key, lockFiles: key.files, used: false, stored: false, entries: 0 };
  if (runs.every((r) => r.ok)) {
    try {
      cache.entries = await storeSetupResult(spec, key, dir, before, config.setup);
      cache.stored = true;
    } catch (err) {
      cache.problem =
        err instanceof SetupCacheRefusal
          ? `its result is not kept: ${err.message}`
          : `the setup result could not be kept: ${(err as Error).message}`;
    }
  }
  return { runs, cache };
}
