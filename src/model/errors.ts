import { RetryableError, UserError } from "../core/errors.ts";

/** The run's model budget (tokens or dollars) is spent; the run stops cleanly and reports it. */
export class BudgetExceeded extends Error {
  readonly limit: { tokens?: number; usd?: number };
  readonly spent: { tokens: number; usd: number };
  constructor(limit: { tokens?: number; usd?: number }, spent: { tokens: number; usd: number }) {
    const parts: string[] = [];
    if (limit.tokens !== undefined) parts.push(`${spent.tokens} of ${limit.tokens} tokens`);
    if (limit.usd !== undefined) parts.push(`$${spent.usd.toFixed(4)} of $${limit.usd.toFixed(4)}`);
    super(`model budget reached: ${parts.join(", ")} spent`);
    this.name = "BudgetExceeded";
    this.limit = limit;
    this.spent = spent;
  }
}

/** The prompt does not fit the model's context window even after trimming the history. */
export class ContextLengthExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContextLengthExceeded";
  }
}

/** The endpoint kept failing (timeouts, 429, 5xx, connection errors) after every retry. */
export class ModelUnavailable extends RetryableError {
  readonly status: number | null;
  readonly attempts: number;
  constructor(message: string, status: number | null, attempts: number, cause?: unknown) {
    super(message, { cause });
    this.name = "ModelUnavailable";
    this.status = status;
    this.attempts = attempts;
  }
}

/** The endpoint rejected the request for a reason retrying cannot fix (401, 403, 404, 400). */
export class ModelRequestRejected extends Error {
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.name = "ModelRequestRejected";
    this.status = status;
  }
}

/** No model is configured, or the configuration is invalid: the message names what to set. */
export class ModelConfigError extends UserError {
  constructor(message: string) {
    super(message, 2);
    this.name = "ModelConfigError";
  }
}
