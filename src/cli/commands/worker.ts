import { parseArgs } from "node:util";
import { createCliPipeline } from "../../app/cli-pipeline.ts";
import { UserError } from "../../core/errors.ts";
import { runAppWorker } from "../../jobs/app-worker.ts";
import type { CliIO } from "../main.ts";

function positiveInt(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new UserError(`--${name} must be an integer from 0 to ${max}`);
  return n;
}

/**
 * `auto-fix worker`: takes repair jobs from the shared queue (REDIS_URL) and runs them; on SIGTERM it
 * stops taking jobs and lets running ones finish or checkpoint within the grace period.
 */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        concurrency: { type: "string" },
        "grace-seconds": { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const concurrency = positiveInt("concurrency", values.concurrency as string | undefined, 256);
  if (concurrency === 0) throw new UserError("--concurrency must be at least 1");
  const grace = positiveInt("grace-seconds", values["grace-seconds"] as string | undefined, 3600) ?? 30;
  const port = positiveInt("port", values.port as string | undefined, 65535);
  if (!io.env.REDIS_URL) {
    io.stderr(
      "auto-fix worker: REDIS_URL is not set; taking jobs from the embedded store in " +
        `${io.env.AUTO_FIX_DATA_DIR || ".auto-fix/data"} (only workers on this machine can share it)\n`,
    );
  }
  await runAppWorker({
    env: io.env,
    pipeline: createCliPipeline({ env: io.env }),
    ...(concurrency !== undefined && { concurrency }),
    graceMs: grace * 1000,
    ...(port !== undefined && { port }),
    ...(typeof values.host === "string" && { host: values.host }),
    log: (line) => io.stderr(`auto-fix worker: ${line}\n`),
    ...(port !== undefined && {
      onListening: (p: number) => io.stderr(`auto-fix worker: /health and /metrics on port ${p}\n`),
    }),
  });
  return 0;
}
