import { GitHubApiError } from "../github/errors.ts";
import type { JobQueue } from "../jobs/types.ts";
import type { HandleOutcome } from "./handler.ts";
import { handleTrigger } from "./handler.ts";
import { type DeliveryTarget, MAINTAINER_EVENTS, type MaintainerDeps } from "./maintainer-events.ts";
import { parseTrigger, type TriggerEvent } from "./trigger.ts";

/** The webhook events the app handles, by the name a held delivery is stored under. */
const KINDS: Record<string, TriggerEvent["kind"]> = {
  "issues.labeled": "labeled",
  "issue_comment.created": "comment",
};

const NETWORK_CODES =
  /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+)$/;

/** GitHub could not be reached or failed on its side: the delivery is kept to be tried again later. */
export function isTransient(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e instanceof GitHubApiError) return e.retryable;
    const { status, code } = e as Error & { status?: unknown; code?: unknown };
    if (typeof status === "number" && status > 0) return status >= 500 || status === 429;
    if (typeof code === "string" && NETWORK_CODES.test(code)) return true;
    if (e.name === "TimeoutError" || e.message === "fetch failed") return true;
    e = e.cause;
  }
  return false;
}

/** The name a delivery is held under: the webhook's name and action. */
export function heldEventName(kind: TriggerEvent["kind"]): string {
  const name = Object.keys(KINDS).find((k) => KINDS[k] === kind);
  if (!name) throw new Error(`no webhook event for trigger kind ${kind}`);
  return name;
}

export interface ResumeDeps {
  queue: JobQueue;
  /** A delivery this process is still working on (slow GitHub): left alone, still held. */
  busy: (deliveryId: string) => boolean;
  /** Dependencies for one delivery, authenticated as its installation (minus `defer`). */
  depsFor: (event: DeliveryTarget) => Promise<Omit<MaintainerDeps, "defer">>;
  onOutcome: (deliveryId: string, outcome: HandleOutcome) => void;
  warn: (message: string) => void;
}

/**
 * Finishes deliveries that were answered but whose work after the answer never ended (the process was
 * killed between the two): each is handled again from its stored body, with the work after the answer
 * run at once. Handling is idempotent where it matters: a stored job is found again by its delivery id,
 * and a cancel of a run already stopped says there is nothing to cancel. A delivery that fails again is
 * dropped with a warning, so that a permanent failure is not retried forever.
 */
export async function resumeHeldDeliveries(olderThanMs: number, deps: ResumeDeps): Promise<number> {
  const held = await deps.queue.takeHeldDeliveries(olderThanMs);
  for (const h of held) {
    if (deps.busy(h.deliveryId)) continue;
    const kind = KINDS[h.event];
    const maintainer = MAINTAINER_EVENTS[h.event];
    const event = kind ? parseTrigger(h.deliveryId, kind, h.payload) : null;
    const other = maintainer ? maintainer.parse(h.deliveryId, h.payload) : null;
    let keep = false;
    try {
      if (maintainer && other) {
        const base = await deps.depsFor(other);
        const outcome = await maintainer.handle(other, {
          ...base,
          defer: async (work) => {
            const later = await work();
            if (later) deps.onOutcome(h.deliveryId, later);
          },
        });
        deps.onOutcome(h.deliveryId, outcome);
        continue;
      }
      if (!event) {
        deps.warn(
          `dropped held delivery ${h.deliveryId}: its stored body (${h.event}) is not an event the app handles`,
        );
        continue;
      }
      const base = await deps.depsFor(event);
      const outcome = await handleTrigger(event, {
        ...base,
        defer: async (work) => {
          const later = await work();
          if (later) deps.onOutcome(h.deliveryId, later);
        },
      });
      deps.onOutcome(h.deliveryId, outcome);
    } catch (error) {
      keep = isTransient(error);
      deps.warn(
        `resuming held delivery ${h.deliveryId} failed: ${error instanceof Error ? error.message : String(error)}${keep ? "; GitHub could not be reached, so it stays held and is tried again later" : "; dropped"}`,
      );
    } finally {
      if (!keep) await deps.queue.releaseDelivery(h.deliveryId);
    }
  }
  return held.length;
}
