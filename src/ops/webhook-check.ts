/**
 * At start, the webhook server asks GitHub where it sends the app's webhooks (`GET /app/hook/config`,
 * as the app) and says clearly when that URL cannot reach this server.
 */
import type { GitHubStatus, WebhookStatus } from "./http.ts";
import { type Problem, registeredHookProblems, type WebhookSettings } from "./webhook-url.ts";

/** Reads GitHub's `GET /app/hook/config` answer (its `url`). */
export type HookConfigReader = () => Promise<{ url?: string | null | undefined }>;

/** What went wrong with a call to GitHub, in words: the HTTP status, or the network error's code. */
export function describeGitHubError(err: unknown, api: string): string {
  const e = err as Error & { status?: number; cause?: { code?: string; message?: string } };
  // Octokit reports a connection that failed, or a request that timed out, as HTTP 500 with the
  // network error's words.
  const timedOut = e.name === "TimeoutError" || /aborted due to timeout/.test(e.message);
  const network = timedOut
    ? ["no answer in time"]
    : /ECONN\w+|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|fetch failed/.exec(e.message);
  if (typeof e.status === "number" && e.status > 0 && !network) {
    if (e.status === 401)
      return `GitHub's API at ${api} refused the app's credentials (HTTP 401): check APP_ID and PRIVATE_KEY (a key of this app, not revoked) and that this machine's clock is right`;
    return `GitHub's API at ${api} answered HTTP ${e.status}: ${e.message}`;
  }
  const why = timedOut ? network?.[0] : (e.cause?.code ?? network?.[0] ?? e.cause?.message ?? e.message);
  return `cannot reach GitHub's API at ${api}: ${why}; nothing can be answered or fixed until it can (check the network, a proxy, or GHE_HOST)`;
}

export async function checkRegisteredHook(
  read: HookConfigReader,
  settings: WebhookSettings,
  api = "https://api.github.com",
): Promise<{ status: WebhookStatus; github: GitHubStatus; problems: Problem[] }> {
  let url: string | null;
  try {
    url = (await read()).url ?? null;
  } catch (err) {
    const github = { ok: false, detail: describeGitHubError(err, api) };
    const detail = `could not read the app's webhook URL from GitHub: ${github.detail}`;
    return {
      status: { ok: null, url: null, detail },
      github,
      problems: [{ level: "error", message: github.detail }],
    };
  }
  const github = { ok: true, detail: `GitHub's API at ${api} answers` };
  const problems = registeredHookProblems(url, settings);
  const errors = problems.filter((p) => p.level === "error");
  return {
    status: {
      ok: errors.length === 0,
      url,
      detail: errors.length === 0 ? `GitHub delivers to ${url}` : errors.map((p) => p.message).join("; "),
    },
    github,
    problems,
  };
}
