/** The chat interface every stage talks to; the openai-backed implementation and test doubles satisfy it. */

export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatOptions {
  /** Pipeline stage the call belongs to ("search", "proxy", "patch", "review", ...): used for accounting. */
  stage: string;
  /** Ask for a JSON object (JSON mode where the endpoint supports it; callers still validate the text). */
  json?: boolean;
  /** Number of choices to sample. */
  n?: number;
  temperature?: number;
  maxTokens?: number;
  /** Short label for the artifact file name (e.g. "round-03"). */
  label?: string;
  signal?: AbortSignal;
}

export interface CallUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** null when the model's price is unknown. */
  cost_usd: number | null;
  /** True when the endpoint reported no usage and the numbers are estimated from text length. */
  estimated: boolean;
}

export interface ChatResult {
  /** One text per choice (at least one). */
  texts: string[];
  /** The first choice's text. */
  content: string;
  usage: CallUsage;
  model: string;
  finishReason: string | null;
  /** Messages dropped or shortened to fit the context window (0 when none). */
  trimmed: number;
  /** Sequence number of the call within the run (1-based); names its artifact files. */
  callId: number;
  /**
   * Tells the run whether this answer could be used (JSON that fits, an edit in the required format).
   * Enough unusable answers in a row stop the run before the next request (UnusableAnswers).
   */
  judge?: (verdict: { usable: boolean; why?: string }) => void;
}

export interface ModelPort {
  chat(messages: ChatMessage[], opts: ChatOptions): Promise<ChatResult>;
}
