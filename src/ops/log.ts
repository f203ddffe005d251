/**
 * The process's logger, as Probot builds its own: pino, human-readable lines in development and one JSON
 * object per line with `LOG_FORMAT=json` or `NODE_ENV=production` (what log collectors read: every job
 * line carries deliveryId, repository, issue, stage, durationMs and outcome as fields).
 */
import { getTransformStream } from "@probot/pino";
import { type Logger, pino } from "pino";

export async function createLog(env: NodeJS.ProcessEnv): Promise<Logger> {
  const logFormat = env.LOG_FORMAT
    ? env.LOG_FORMAT === "pretty"
      ? "pretty"
      : "json"
    : env.NODE_ENV === "production"
      ? "json"
      : "pretty";
  const transform = await getTransformStream({
    logFormat,
    logLevelInString: env.LOG_LEVEL_IN_STRING === "true",
    ...(env.SENTRY_DSN ? { sentryDsn: env.SENTRY_DSN } : {}),
  });
  transform.pipe(pino.destination(1) as unknown as NodeJS.WritableStream);
  return pino(
    { level: env.LOG_LEVEL || "info", name: "auto-fix", messageKey: env.LOG_MESSAGE_KEY || "msg" },
    transform,
  );
}
