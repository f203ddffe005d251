/**
 * In setup mode (not registered yet) `/health` and `/metrics` still answer: 503 with what to do, and
 * whether the webhook proxy channel the app will be registered with can be reached from here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { PROMETHEUS_CONTENT_TYPE } from "../ops/metrics.ts";

/** Whether the proxy channel answers (any HTTP answer counts); null when there is none to check. */
export type ProxyCheck = () => Promise<string | null>;

/** One request to the proxy channel (at most every 30 s): a problem sentence, or null when it answers. */
export function proxyChecker(proxyUrl: string | null, timeoutMs = 5000): ProxyCheck {
  let last: { at: number; answer: Promise<string | null> } | null = null;
  return () => {
    if (!proxyUrl) return Promise.resolve(null);
    if (!last || Date.now() - last.at > 30_000) {
      const answer = fetch(proxyUrl, {
        method: "HEAD",
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      }).then(
        () => null,
        (err: Error & { cause?: { code?: string; message?: string } }) => {
          const why =
            err.name === "TimeoutError"
              ? "no answer in time"
              : (err.cause?.code ?? err.cause?.message ?? err.message);
          return `the webhook proxy ${proxyUrl} cannot be reached from this server (${why}): GitHub's deliveries will not arrive; check the network or set WEBHOOK_PROXY_URL to a channel that answers`;
        },
      );
      last = { at: Date.now(), answer };
    }
    return last.answer;
  };
}

/** Answers /health and /metrics in setup mode; false for any other path. */
export async function serveSetupOps(
  req: IncomingMessage,
  res: ServerResponse,
  options: {
    baseUrl: string;
    proxy: ProxyCheck;
    /** What else will make runs fail (the model settings), named as the log names it. */
    problems?: () => readonly string[];
    /** Hears each /health answer (to log when it changes). */
    onReport?: (report: { status: string; problems: string[] }) => void;
  },
): Promise<boolean> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/health" && path !== "/metrics") return false;
  const proxyProblem = await options.proxy();
  const problems = [
    `setup: auto-fix is not registered yet: open ${options.baseUrl}/probot to register it on GitHub, then restart`,
    ...(proxyProblem ? [`webhook: ${proxyProblem}`] : []),
    ...(options.problems?.() ?? []).map((p) => `model: ${p}`),
  ];
  if (path === "/health") {
    const body = { status: "unavailable", role: "setup", problems, warnings: [], registered: false };
    options.onReport?.(body);
    res
      .writeHead(503, { "content-type": "application/json", "cache-control": "no-store" })
      .end(req.method === "HEAD" ? undefined : `${JSON.stringify(body)}\n`);
    return true;
  }
  const text = [
    "# HELP auto_fix_health_status 0 ok, 1 degraded, 2 unavailable (a run cannot work; see /health problems)",
    "# TYPE auto_fix_health_status gauge",
    "auto_fix_health_status 2",
    "# HELP auto_fix_registered 1 once the GitHub App is registered and the server restarted with its credentials",
    "# TYPE auto_fix_registered gauge",
    "auto_fix_registered 0",
    "# HELP auto_fix_check_ok 1 when the health check passed, 0 when it failed",
    "# TYPE auto_fix_check_ok gauge",
    `auto_fix_check_ok{check="registered"} 0`,
    "",
  ].join("\n");
  res
    .writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE })
    .end(req.method === "HEAD" ? undefined : text);
  return true;
}
