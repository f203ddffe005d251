import { MemoryJobQueue } from "../jobs/memory-queue.ts";
import type { JobQueue } from "../jobs/types.ts";
import { MemoryRunLedger, type RunLedger } from "./budgets.ts";

/**
 * The one place the app gets its job queue and run ledger. In-process for now; the durable store
 * (node:sqlite) and the Redis queue replace this factory's body.
 */
export async function createJobQueue(
  _env: NodeJS.ProcessEnv,
): Promise<{ queue: JobQueue; ledger: RunLedger }> {
  return { queue: new MemoryJobQueue(), ledger: new MemoryRunLedger() };
}
