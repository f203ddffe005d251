import { inlineCode } from "../../core/inert-markdown.ts";
import type { FixResult } from "../../contract/app-result.ts";

interface Summary {
  instructions?: { source?: unknown; bytes?: unknown; truncated?: unknown } | null;
  review?: { points?: unknown } | null;
  checks?: unknown;
}

/**
 * What the run was told besides the issue, for the pull request body: the repository's instructions file
 * (which, how big, whether it was cut), the review's comments and the failing checks it read. Read
 * leniently from the result's `maintainer` summary; nothing when there was none.
 */
export function maintainerLines(result: FixResult): string[] {
  const m = (result as { maintainer?: Summary }).maintainer;
  if (!m || typeof m !== "object") return [];
  const out: string[] = [];
  const ins = m.instructions;
  if (ins && typeof ins.source === "string") {
    const bytes = typeof ins.bytes === "number" ? `, ${ins.bytes} bytes` : "";
    const cut = ins.truncated === true ? ", cut to its first 16 KiB" : "";
    out.push(
      `Repository instructions: ${inlineCode(ins.source, 200)}${bytes}${cut} (given to the model as the maintainer's conventions).`,
    );
  }
  const points = typeof m.review?.points === "number" ? m.review.points : 0;
  if (points > 0) out.push(`Review comments read: ${points} (each is answered in its thread).`);
  if (Array.isArray(m.checks) && m.checks.length > 0) {
    const names = m.checks.filter((c): c is string => typeof c === "string").slice(0, 10);
    out.push(`Failing checks read as evidence: ${names.map((n) => inlineCode(n, 100)).join(", ")}.`);
  }
  return out.length > 0 ? [...out.flatMap((l) => [l, ""])] : [];
}
