import { RetryableError, UserError } from "../core/errors.ts";

/** The run's model budget (tokens or dollars) is spent; the run stops cleanly and reports it. */
export class BudgetExceeded extends Error {
  readonly limit: { tokens?: number; usd?: number };
  readonly spent: { tokens: number; usd: number | null };
  constructor(
    limit: { tokens?: number; usd?: number },
    spent: { tokens: number; usd: number | null },
    message?: string,
  ) {
    const parts: string[] = [];
    if (limit.tokens !== undefined) parts.push(`${spent.tokens} of ${limit.tokens} tokens`);
    if (limit.usd !== undefined && spent.usd !== null)
      parts.push(`$${spent.usd.toFixed(4)} of $${limit.usd.toFixed(4)}`);
    super(message ?? `model budget reached: ${parts.join(", ")} spent`);
    this.name = "BudgetExceeded";
    this.limit = limit;
    this.spent = spent;
  }
}

/**
 * The model gave too many unusable answers in a row (no JSON, no edit, nothing): the run stops rather
 * than pay for more. A kind of budget, so every stage that ends cleanly on a spent budget ends on it too.
 */
export class UnusableAnswers extends BudgetExceeded {
  readonly count: number;
  constructor(count: number, message: string) {
    super({}, { tokens: 0, usd: null }, message);
    this.name = "UnusableAnswers";
    this.count = count;
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

/**
 * The endpoint answered a chat request with something that is not the JSON of the API (a web page, plain
 * text): the base URL points at a website, a proxy's error page, or lacks `/v1`. Retrying cannot help.
 */
export class NonJsonAnswer extends ModelRequestRejected {
  readonly contentType: string | null;
  readonly body: string;
  constructor(message: string, status: number | null, contentType: string | null, body: string) {
    super(message, status);
    this.name = "NonJsonAnswer";
    this.contentType = contentType;
    this.body = body;
  }
}
