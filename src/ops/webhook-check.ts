/**
 * At start, the webhook server asks GitHub where it sends the app's webhooks (`GET /app/hook/config`,
 * as the app) and says clearly when that URL cannot reach this server.
 */
import type { WebhookStatus } from "./http.ts";
import { type Problem, registeredHookProblems, type WebhookSettings } from "./webhook-url.ts";

/** Reads GitHub's `GET /app/hook/config` answer (its `url`). */
export type HookConfigReader = () => Promise<{ url?: string | null | undefined }>;

export async function checkRegisteredHook(
  read: HookConfigReader,
  settings: WebhookSettings,
): Promise<{ status: WebhookStatus; problems: Problem[] }> {
  let url: string | null;
  try {
    url = (await read()).url ?? null;
  } catch (err) {
    const detail = `could not read the app's webhook URL from GitHub: ${(err as Error).message}`;
    return { status: { ok: null, url: null, detail }, problems: [{ level: "warning", message: detail }] };
  }
  const problems = registeredHookProblems(url, settings);
  const errors = problems.filter((p) => p.level === "error");
  return {
    status: {
      ok: errors.length === 0,
      url,
      detail: errors.length === 0 ? `GitHub delivers to ${url}` : errors.map((p) => p.message).join("; "),
    },
    problems,
  };
}
