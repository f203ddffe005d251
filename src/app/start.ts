import { run } from "probot";
import { createAutoFixApp } from "./app.ts";
import { createCliPipeline } from "./cli-pipeline.ts";
import { createJobQueue } from "./queue-factory.ts";
import { readSettings } from "./settings.ts";

/**
 * `npm start`: without APP_ID/PRIVATE_KEY Probot serves its setup page, which registers the app from
 * `app.yml`; with them it serves webhooks (GHE_HOST/GHE_PROTOCOL select a GitHub Enterprise server).
 */
const settings = readSettings(process.env);
const { queue, ledger } = await createJobQueue(process.env);
const server = await run(
  createAutoFixApp({
    queue,
    ledger,
    settings,
    pipeline: createCliPipeline({ env: process.env }),
    model: process.env.AUTO_FIX_MODEL ?? "default",
  }),
);
process.on("SIGTERM", async () => {
  await server.stop();
  await queue.stop(30_000);
  process.exit(0);
});
