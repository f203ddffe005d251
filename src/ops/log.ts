/**
 * The process's logger, as Probot builds its own: pino, human-readable lines in development and one JSON
 * object per line with `LOG_FORMAT=json` or `NODE_ENV=production` (what log collectors read: every job
 * line carries deliveryId, repository, issue, stage, durationMs and outcome as fields).
 */
import { getTransformStream } from "@probot/pino";
import { type Logger, pino } from "pino";

/** The HTTP server's line for a request to /health or /metrics (`GET /health 503 - 3ms`). */
const POLLED_PATH_LINE = /^(?:GET|HEAD) \/(?:health|metrics)(?:\?\S*)? \d{3} - \d+ms$/;

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
    {
      level: env.LOG_LEVEL || "info",
      name: "auto-fix",
      messageKey: env.LOG_MESSAGE_KEY || "msg",
      hooks: {
        // The HTTP server's line per request is left out for /health and /metrics: a poller would fill
        // the log (with a stack trace per 503); a change of health is logged once (ops/http.ts).
        logMethod(args, method) {
          if (args.some((a) => typeof a === "string" && POLLED_PATH_LINE.test(a))) return;
          method.apply(this, args);
        },
      },
    },
    transform,
  );
}
