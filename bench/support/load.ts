/** An open-loop load generator: signed webhook deliveries at a fixed rate, latency per request. */
import { createHmac, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";

export interface Delivery {
  id: string;
  event: string;
  body: Buffer;
  signature: string;
}

export function signedDelivery(event: string, payload: unknown, secret: string): Delivery {
  const body = Buffer.from(JSON.stringify(payload));
  return {
    id: randomUUID(),
    event,
    body,
    signature: `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
  };
}

export interface LoadResult {
  sent: number;
  latenciesMs: number[];
  statuses: Record<string, number>;
  errors: number;
  /** Network errors by code (a refused or reset connection is an unacknowledged delivery). */
  errorCodes: Record<string, number>;
  wallSeconds: number;
}

function send(url: URL, d: Delivery, agent: Agent): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": d.body.length,
          "x-github-event": d.event,
          "x-github-delivery": d.id,
          "x-hub-signature-256": d.signature,
          "user-agent": "GitHub-Hookshot/bench",
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    req.on("error", reject);
    req.end(d.body);
  });
}

/** Sends `deliveries` at `rate` per second (on schedule, whether or not earlier ones were answered). */
export async function runLoad(url: URL, deliveries: Delivery[], rate: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const result: LoadResult = {
    sent: 0,
    latenciesMs: [],
    statuses: {},
    errors: 0,
    errorCodes: {},
    wallSeconds: 0,
  };
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < deliveries.length; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const d = deliveries[i]!;
    result.sent += 1;
    pending.push(
      send(url, d, agent).then(
        ({ status, ms }) => {
          result.latenciesMs.push(ms);
          result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        },
        (err: NodeJS.ErrnoException) => {
          result.errors += 1;
          const code = err.code ?? err.message;
          result.errorCodes[code] = (result.errorCodes[code] ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  result.wallSeconds = (performance.now() - start) / 1000;
  agent.destroy();
  return result;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}
