import { getPrivateKey } from "@probot/get-private-key";
import { pino } from "pino";
import { Probot } from "probot";
import type { JobHandler } from "../jobs/types.ts";
import { createWorker } from "./app.ts";
import { createCliPipeline } from "./cli-pipeline.ts";
import { githubBaseUrl } from "./server.ts";
import { readSettings } from "./settings.ts";

/**
 * The job handler for a worker process without a webhook server (`auto-fix worker` on Redis): the same
 * GitHub App credentials (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, GHE_HOST/GHE_PROTOCOL) and model settings.
 */
export function createJobHandlerFromEnv(env: NodeJS.ProcessEnv): JobHandler {
  const appId = Number(env.APP_ID);
  const privateKey = getPrivateKey({ env });
  if (!Number.isInteger(appId) || appId <= 0 || !privateKey) {
    throw new Error("a worker needs the GitHub App's APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH)");
  }
  const baseUrl = githubBaseUrl(env);
  const app = new Probot({
    appId,
    privateKey,
    log: pino({ level: env.LOG_LEVEL ?? "info" }),
    ...(baseUrl ? { baseUrl } : {}),
  });
  return createWorker(app, {
    settings: readSettings(env),
    pipeline: createCliPipeline({ env }),
    model: env.AUTO_FIX_MODEL ?? "default",
  });
}
