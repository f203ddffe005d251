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
    disk: "killed: disk limit of the work tree reached",
    files: "killed: file-count limit of the work tree reached",
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
  const net = describeNetwork(r);
  if (net) lines.push(net);
  return lines.join("\n");
}

/** What a run with network was allowed and refused, in a few lines (null for runs without network). */
export function describeNetwork(r: ExecResult): string | null {
  const n = r.network;
  if (!n) return null;
  if (n.refused) return `Network: refused: ${n.refused}`;
  const lines = [
    `Network: outbound through ${n.tool}, ${n.allow === "public" ? "any public address" : `allow-list (${n.allow.length} entries)`}; the host is not reachable`,
  ];
  if (n.unusable.length > 0) lines.push(`  not usable from the allow-list: ${n.unusable.join(", ")}`);
  if (n.blocked.length > 0) {
    const shown = n.blocked
      .slice(0, 20)
      .map((b) => `${b.address}${b.port === null ? "" : `:${b.port}`}/${b.protocol}`);
    const more = n.blocked.length > 20 ? ` and ${n.blocked.length - 20} more` : "";
    lines.push(`  blocked connection attempts: ${shown.join(", ")}${more}`);
  }
  return lines.join("\n");
}
