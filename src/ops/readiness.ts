/**
 * What `/health` says about the parts a run needs besides the job store: the model settings and whether
 * its endpoint answers, the sandbox backend, and the free disk space. A process that runs jobs cannot work
 * without them, so its health is not "ok" then. Every answer comes from a check that ran.
 */
import { statfsSync } from "node:fs";
import { resolve } from "node:path";
import { checkPricing, loadModelSettings } from "../model/config.ts";
import { checkModelEndpoint } from "../model/endpoint-check.ts";
import { createSandbox, sandboxKindFromEnv } from "../sandbox/index.ts";

export interface PartCheck {
  ok: boolean;
  /** What is configured or in use (never a key). */
  detail: string;
}

export interface ModelCheck extends PartCheck {
  name: string | null;
  /** The endpoint's origin and path, without credentials or query. */
  endpoint: string | null;
}

export interface SandboxCheck extends PartCheck {
  backend: string | null;
}

/** One `GET <base>/models`, as recent as the cache allows. */
export interface EndpointReachability extends PartCheck {
  /** Seconds since the check ran. */
  checkedSecondsAgo: number;
}

export interface DiskCheck extends PartCheck {
  path: string;
  freeBytes: number | null;
}

/** The endpoint without user, password, query or fragment. */
export function safeEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/**
 * The model settings as the pipeline will read them (environment over the config file in `cwd`), and
 * whether a run's dollar budget can be enforced for this model (a known price or a token budget).
 */
export function checkModel(env: NodeJS.ProcessEnv, cwd: string, maxCostUsdPerRun: number): ModelCheck {
  try {
    const { model, budget, prices } = loadModelSettings(env, cwd);
    checkPricing(model.model, { ...budget, usd: maxCostUsdPerRun }, prices);
    return {
      ok: true,
      name: model.model,
      endpoint: safeEndpoint(model.baseURL),
      detail: `${model.model} at ${safeEndpoint(model.baseURL)}`,
    };
  } catch (err) {
    return { ok: false, name: env.AUTO_FIX_MODEL || null, endpoint: null, detail: (err as Error).message };
  }
}

/**
 * The sandbox backend runs would get (`AUTO_FIX_SANDBOX`, default bubblewrap; Docker when an image is
 * set), created and self-tested: a sandbox that cannot start a process here is reported with the reason.
 */
export async function checkSandbox(env: NodeJS.ProcessEnv): Promise<SandboxCheck> {
  const kind = sandboxKindFromEnv(env);
  try {
    const sandbox = await createSandbox(kind, {
      image: env.AUTO_FIX_SANDBOX_IMAGE || undefined,
      allowUnsandboxed: env.AUTO_FIX_ALLOW_NO_SANDBOX === "1",
    });
    const detail =
      sandbox.kind === "none"
        ? "no sandbox (AUTO_FIX_ALLOW_NO_SANDBOX=1): repository code runs unconfined"
        : `${sandbox.kind} works`;
    return { ok: true, backend: sandbox.kind, detail };
  } catch (err) {
    return { ok: false, backend: kind === "auto" ? null : kind, detail: (err as Error).message };
  }
}

/**
 * Free space where runs write (`AUTO_FIX_WORK_DIR`, `AUTO_FIX_DATA_DIR`): below `minFreeMb`
 * (`AUTO_FIX_MIN_FREE_DISK_MB`, default 1024) a clone or a test run is likely to fail half-way.
 */
export function checkDisk(paths: string[], minFreeMb: number): DiskCheck[] {
  const seen = new Set<string>();
  const out: DiskCheck[] = [];
  for (const p of paths) {
    const path = resolve(p);
    if (seen.has(path)) continue;
    seen.add(path);
    // The folder may not exist yet: its nearest existing parent holds the space it will use.
    let probe = path;
    for (;;) {
      try {
        const st = statfsSync(probe);
        const free = st.bavail * st.bsize;
        const mb = Math.floor(free / 1024 / 1024);
        out.push(
          mb >= minFreeMb
            ? { ok: true, path, freeBytes: free, detail: `${mb} MB free` }
            : {
                ok: false,
                path,
                freeBytes: free,
                detail: `only ${mb} MB free at ${path} (runs need at least ${minFreeMb} MB, AUTO_FIX_MIN_FREE_DISK_MB): free some space or move the folder to a larger disk`,
              },
        );
        break;
      } catch {
        const parent = resolve(probe, "..");
        if (parent === probe) {
          out.push({ ok: false, path, freeBytes: null, detail: `cannot read the free space at ${path}` });
          break;
        }
        probe = parent;
      }
    }
  }
  return out;
}

export interface Readiness {
  model(): ModelCheck;
  sandbox(): Promise<SandboxCheck>;
  /** Whether the model endpoint answers (null when the settings themselves are wrong: nothing to ask). */
  endpoint(): Promise<EndpointReachability | null>;
  disk(): DiskCheck[];
}

/**
 * Checks that are cheap enough to repeat but not on every probe: the sandbox self-test is run at most
 * once per `ttlMs` (a failing one again on the next probe after that).
 */
export function createReadiness(
  env: NodeJS.ProcessEnv,
  options: {
    /** The operator's per-run dollar limit: a model without a price can only run under a token budget. */
    maxCostUsdPerRun: number;
    cwd?: string;
    ttlMs?: number;
    now?: () => number;
    /** How long one endpoint request may take (default 5 s). */
    endpointTimeoutMs?: number;
  },
): Readiness {
  const ttl = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  const cwd = options.cwd ?? process.cwd();
  let sandbox: { at: number; check: Promise<SandboxCheck> } | null = null;
  let endpoint: { at: number; key: string; check: Promise<PartCheck> } | null = null;
  const minFreeMb = Number(env.AUTO_FIX_MIN_FREE_DISK_MB);
  return {
    model: () => checkModel(env, cwd, options.maxCostUsdPerRun),
    sandbox: () => {
      if (!sandbox || now() - sandbox.at > ttl) sandbox = { at: now(), check: checkSandbox(env) };
      return sandbox.check;
    },
    endpoint: async () => {
      let settings: ReturnType<typeof loadModelSettings>;
      try {
        settings = loadModelSettings(env, cwd);
      } catch {
        return null;
      }
      const key = `${settings.model.baseURL}\n${settings.model.model}`;
      if (!endpoint || endpoint.key !== key || now() - endpoint.at > ttl) {
        const check = checkModelEndpoint(settings.model, {
          timeoutMs: options.endpointTimeoutMs ?? 5000,
        }).then(
          (r) => ({ ok: r.ok, detail: r.message }),
          (err: unknown) => ({ ok: false, detail: `the model endpoint check failed: ${String(err)}` }),
        );
        endpoint = { at: now(), key, check };
      }
      const at = endpoint.at;
      return { ...(await endpoint.check), checkedSecondsAgo: Math.max(0, Math.round((now() - at) / 1000)) };
    },
    disk: () =>
      checkDisk(
        [
          env.AUTO_FIX_WORK_DIR?.trim() || resolve(cwd, ".auto-fix/work"),
          env.AUTO_FIX_DATA_DIR?.trim() || resolve(cwd, ".auto-fix/data"),
        ],
        Number.isFinite(minFreeMb) && minFreeMb >= 0 ? minFreeMb : 1024,
      ),
  };
}
