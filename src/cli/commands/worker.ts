import { createCliPipeline } from "../../issue-run/cli-pipeline.ts";
import { readSettings } from "../../issue-run/settings.ts";
import { checkModelAtStart } from "../../model/endpoint-check.ts";
import { UserError } from "../../core/errors.ts";
import { runAppWorker } from "../../app/worker.ts";
import type { ParsedArgs } from "../args.ts";
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
export async function run(parsed: ParsedArgs, io: CliIO): Promise<number> {
  if (parsed.positionals.length > 0) throw new UserError(`unexpected argument '${parsed.positionals[0]}'`);
  const values = {
    concurrency: parsed.string("concurrency"),
    "grace-seconds": parsed.string("grace-seconds"),
    port: parsed.string("port"),
    host: parsed.string("host"),
  };
  const concurrency = positiveInt("concurrency", values.concurrency, 256);
  if (concurrency === 0) throw new UserError("--concurrency must be at least 1");
  const grace = positiveInt("grace-seconds", values["grace-seconds"], 3600) ?? 30;
  const port = positiveInt("port", values.port, 65535);
  if (!io.env.REDIS_URL) {
    io.stderr(
      "auto-fix worker: REDIS_URL is not set; taking jobs from the embedded store in " +
        `${io.env.AUTO_FIX_DATA_DIR || ".auto-fix/data"} (only workers on this machine can share it)\n`,
    );
  }
  // The model is checked once as the worker starts: what would make every job fail is said now.
  const appSettings = readSettings(io.env);
  for (const w of appSettings.warnings) io.stderr(`auto-fix worker: warning: ${w}\n`);
  void checkModelAtStart(io.env, io.cwd, appSettings.maxCostUsdPerRun).then((r) => {
    for (const n of r.notes) io.stderr(`auto-fix worker: warning: ${n}\n`);
    for (const p of r.problems) io.stderr(`auto-fix worker: jobs will fail: ${p}\n`);
  });
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
