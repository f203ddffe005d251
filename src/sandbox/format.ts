import { type ExecResult, SANDBOX_WORKDIR } from "./types.ts";

/** Paths inside the sandbox's work tree made repository-relative (`/workspace/src/a.py` → `src/a.py`). */
export function relativizeSandboxPaths(text: string): string {
  return text.replaceAll(`${SANDBOX_WORKDIR}/`, "");
}

/** How much of each stream the model sees. */
export const MODEL_STREAM_CHARS = 6000;

/** Keeps the head and the (more telling) tail of a long text, saying how much was cut. */
export function truncateMiddle(text: string, max: number = MODEL_STREAM_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  const tail = max - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[... ${cut} characters omitted ...]\n${text.slice(text.length - tail)}`;
}

export function describeOutcome(r: ExecResult): string {
  const limitText: Record<string, string> = {
    time: "killed: wall-time limit reached",
    memory: "killed: memory limit reached",
    processes: "killed: process limit reached",
    output: "killed: output limit reached",
  };
  if (r.limit) return limitText[r.limit]!;
  if (r.exitCode === null) return `killed by ${r.signal ?? "a signal"}`;
  return `exit code ${r.exitCode}`;
}

/** A run as the model (and `auto-fix sandbox`) sees it: outcome, then both streams, each truncated. */
export function formatExecForModel(r: ExecResult, maxChars: number = MODEL_STREAM_CHARS): string {
  const block = (name: string, text: string): string =>
    text.trim() === ""
      ? `${name}: (empty)`
      : `${name}:\n\`\`\`\n${truncateMiddle(relativizeSandboxPaths(text), maxChars).trimEnd()}\n\`\`\``;
  const lines = [`Result: ${describeOutcome(r)}`];
  if (r.truncated) lines.push("(output was cut at the sandbox's output limit)");
  lines.push(block("stdout", r.stdout), block("stderr", r.stderr));
  return lines.join("\n");
}
