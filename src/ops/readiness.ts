/**
 * What `/health` says about the parts a run needs besides the job store: the model settings and the
 * sandbox backend. A process that runs jobs cannot work without either, so its health is not "ok" then.
 */
import { checkPricing, loadModelSettings } from "../model/config.ts";
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

export interface Readiness {
  model(): ModelCheck;
  sandbox(): Promise<SandboxCheck>;
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
  },
): Readiness {
  const ttl = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  const cwd = options.cwd ?? process.cwd();
  let sandbox: { at: number; check: Promise<SandboxCheck> } | null = null;
  return {
    model: () => checkModel(env, cwd, options.maxCostUsdPerRun),
    sandbox: () => {
      if (!sandbox || now() - sandbox.at > ttl) sandbox = { at: now(), check: checkSandbox(env) };
      return sandbox.check;
    },
  };
}
